"""The parent side of the sandbox: start the child, send calls, classify outcomes.

One child serves many calls (starting Python per call would cost ~20 ms);
when it dies or hangs it is killed as a group and a fresh one started, and
the call that killed it becomes a finding.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from engines import sandbox
from engines.pyfunc import protocol

PROJECT_ROOT = str(Path(__file__).resolve().parents[2])
STDERR_TAIL_BYTES = 64 * 1024
# Time a child may take to import its target before the target counts as hung.
IMPORT_TIMEOUT_SECONDS = 30.0


class TargetError(Exception):
    """The target cannot be fuzzed at all (import fails, nothing to call)."""


@dataclass(frozen=True)
class Outcome:
    """What one call did. ``status`` is ok, exception, crashed, timeout or unbuildable (no call was made)."""

    status: str
    crash_type: str = ""
    message: str = ""
    trace: str = ""
    # Coverage arcs (file, from, to) this child had not reported before.
    arcs: tuple = ()
    # Raised on purpose by the function under test (an explicit raise).
    expected: bool = False
    # Only for a detailed call (an example): every arc the call ran, and the
    # repr of what it returned.
    all_arcs: frozenset = frozenset()
    returned: str = ""


def _arcs(items) -> tuple:
    # The child is untrusted: keep only well-formed (file, from, to) triples.
    if not isinstance(items, list):
        return ()
    return tuple(
        (arc[0], arc[1], arc[2])
        for arc in items
        if isinstance(arc, list) and len(arc) == 3 and isinstance(arc[0], str) and all(type(n) is int for n in arc[1:])
    )


def _stack_dump(stderr_text: str) -> str:
    # faulthandler writes "Fatal Python error: ..." on a crash and
    # "Current thread ..." on SIGUSR1; earlier stderr is the target's chatter.
    for marker in ("Fatal Python error", "Current thread", "Thread 0x", "Stack (most recent"):
        index = stderr_text.rfind(marker)
        if index != -1:
            return stderr_text[index:]
    return stderr_text


class Child:
    """A sandboxed interpreter with the target imported, serving calls."""

    def __init__(
        self,
        module: str,
        limits: sandbox.Limits,
        search_path: list[str] = (),
        include: list[str] = (),
        exclude: list[str] = (),
        setup: list[str] = (),
    ):
        self.module = module
        self.selection = json.dumps({"include": list(include), "exclude": list(exclude), "setup": list(setup)})
        self.limits = limits
        self.search_path = list(search_path)
        self.process: subprocess.Popen | None = None
        self.workdir: str | None = None
        self.calls = 0
        self.cap: sandbox.ProcessCap | None = None
        self.guard: sandbox.ScratchGuard | None = None

    def start(self) -> dict:
        """Start the child and return its discovery message (functions, skipped)."""
        self.workdir = tempfile.mkdtemp(prefix="fuzzweb-pyfunc-")
        request_r, request_w = os.pipe()
        response_r, response_w = os.pipe()
        stderr = open(os.path.join(self.workdir, "stderr"), "wb")  # noqa: SIM115 - child owns it
        paths = [os.path.abspath(p) for p in self.search_path]
        command = [sys.executable, "-m", "engines.pyfunc.child", self.module]
        command += [str(request_r), str(response_w), self.selection, *paths]
        environment = sandbox.scrubbed_environment({"PYTHONPATH": PROJECT_ROOT})
        # The target's own code, read-only: its search path, or the folder of a source file.
        readable = tuple(paths) + (
            (os.path.dirname(os.path.abspath(self.module)),) if self.module.endswith(".py") else ()
        )
        command = sandbox.confine(command, scratch=self.workdir, environment=environment, readable=readable)
        limits = self.limits
        self.cap = sandbox.ProcessCap.create(limits.processes)
        cap = self.cap

        def prepare_child() -> None:
            if cap is not None:
                cap.enter()
            sandbox.apply_limits(limits)

        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                pass_fds=(request_r, response_w),
                cwd=self.workdir,
                # bubblewrap's own init keeps this environment: scrubbed too.
                env=environment,
                start_new_session=True,
                preexec_fn=prepare_child,
            )
        finally:
            stderr.close()
            os.close(request_r)
            os.close(response_w)
        self.guard = sandbox.ScratchGuard(self.workdir, self.process.pid)
        self._requests, self._responses = request_w, response_r
        self.calls = 0
        try:
            hello = protocol.receive_response(self._responses, IMPORT_TIMEOUT_SECONDS)
        except protocol.ChannelTimeout:
            self.stop()
            raise TargetError(f"importing {self.module} took over {IMPORT_TIMEOUT_SECONDS:.0f} s") from None
        except (protocol.ChannelClosed, ValueError):
            detail = self._stderr_tail()
            self.stop()
            raise TargetError(f"the child exited while importing {self.module}:\n{detail}") from None
        if hello.get("status") == "import_error":
            self.stop()
            raise TargetError(f"importing {self.module} failed:\n{hello.get('traceback', '')}")
        return hello

    def call(self, function: str, args: list, kwargs: dict, detail: bool = False) -> Outcome:
        """Run one call; the child is restarted by the caller if it did not survive.

        ``detail``: report every arc of the call and its return value, for
        choosing examples, without counting the arcs as reported.
        """
        self.calls += 1
        try:
            protocol.send_request(self._requests, (function, args, kwargs, detail))
            response = protocol.receive_response(self._responses, self.limits.call_timeout_seconds)
        except protocol.ChannelTimeout:
            return self._timed_out()
        except (protocol.ChannelClosed, BrokenPipeError, ValueError):
            return self._died()
        arcs = _arcs(response.get("arcs"))
        all_arcs = frozenset(_arcs(response.get("all_arcs")))
        if response.get("status") == "ok":
            return Outcome("ok", arcs=arcs, all_arcs=all_arcs, returned=str(response.get("returned", "")))
        if response.get("status") == "unbuildable":
            # An argument of another package's class could not be built: no call happened.
            return Outcome("unbuildable", crash_type=str(response.get("type", "")))
        return Outcome(
            "exception",
            crash_type=str(response.get("type", "")),
            message=str(response.get("message", "")),
            trace=str(response.get("traceback", "")),
            arcs=arcs,
            expected=response.get("expected") is True,
            all_arcs=all_arcs,
        )

    @property
    def alive(self) -> bool:
        """True while the child process runs."""
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """Kill the child's whole process group and remove its directory."""
        if self.guard is not None:
            self.guard.stop()
            self.guard = None
        if self.process is not None:
            sandbox.kill_group(self.process.pid)
            self.process.wait()
            for fd in (self._requests, self._responses):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self.process = None
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None
        if self.cap is not None:
            self.cap.remove()
            self.cap = None

    def _timed_out(self) -> Outcome:
        # Ask for a Python stack before killing, so a hang has a signature.
        # The interpreter runs under bubblewrap: signal it, not bubblewrap.
        interpreter = sandbox.descendant(self.process.pid, "engines.pyfunc.child")
        try:
            os.kill(interpreter or self.process.pid, signal.SIGUSR1)
            time.sleep(0.1)
        except ProcessLookupError:
            pass
        sandbox.kill_group(self.process.pid)
        self.process.wait()
        seconds = self.limits.call_timeout_seconds
        return Outcome(
            "timeout",
            crash_type="Timeout",
            message=f"call did not return within {seconds:g} s",
            trace=_stack_dump(self._stderr_tail()),
        )

    def _died(self) -> Outcome:
        try:
            returncode = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            sandbox.kill_group(self.process.pid)
            returncode = self.process.wait()
        returncode = sandbox.exit_status(returncode)
        if returncode < 0:
            crash_type = sandbox.signal_name(returncode)
            message = f"interpreter killed by {crash_type}"
        else:
            crash_type = "ExitStatus"
            message = f"interpreter exited with status {returncode}"
        if self.guard is not None and self.guard.tripped:
            self.guard.stop()  # until it has emptied the scratch directory
            crash_type, message = "ScratchFull", self.guard.note
        return Outcome("crashed", crash_type=crash_type, message=message, trace=_stack_dump(self._stderr_tail()))

    def _stderr_tail(self) -> str:
        path = os.path.join(self.workdir or "", "stderr")
        try:
            with open(path, "rb") as handle:
                handle.seek(max(0, os.path.getsize(path) - STDERR_TAIL_BYTES))
                return handle.read().decode("utf-8", "replace")
        except OSError:
            return ""
