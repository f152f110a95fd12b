#!/usr/bin/env python3
"""fuzzweb command-line client: submit findings from any fuzzing machine.

Standard library only: copy this one file to a fuzzing box and run it with
any Python 3.9+. The server and token come from --url/--token or from the
FUZZWEB_URL and FUZZWEB_TOKEN environment variables.

  fuzzweb_client.py submit --target png --trace-file asan.log --testcase-file crash-1a2b
  fuzzweb_client.py dir ./out --target png --run './fuzz_png {testcase}'
  fuzzweb_client.py jsonl findings.jsonl

`dir` understands libFuzzer's layout (crash-*, leak-*, timeout-*, oom-*,
slow-unit-* files) and AFL's (crashes/id:*, hangs/id:*). A testcase's trace
is the output of --run (the command is run with the testcase path in place
of {testcase}), or else a sibling file named like it plus .log, .txt,
.stderr or .out.

Exit status: 0 all stored, 1 some findings rejected, 2 usage, connection or
authentication errors.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shlex
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

BATCH = 200
LIBFUZZER_KINDS = {"crash": "crash", "leak": "crash", "timeout": "timeout", "oom": "oom", "slow-unit": "timeout"}
AFL_KINDS = {"crashes": "crash", "hangs": "timeout"}
TRACE_SUFFIXES = (".log", ".txt", ".stderr", ".out")
MAX_TRACE_BYTES = 8 * 1024 * 1024


class ClientError(Exception):
    """A problem the user must fix (server unreachable, bad token, bad file)."""


def post_json(url: str, token: str, path: str, body) -> tuple[int, dict]:
    """POST ``body`` as JSON; return the status and the decoded answer."""
    request = urllib.request.Request(  # noqa: S310 - the user names their own server
        url.rstrip("/") + path,
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 - the user's own server
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        try:
            answer = json.loads(error.read() or b"{}")
        except ValueError:
            answer = {"error": f"HTTP {error.code}"}
        if error.code == 401:
            raise ClientError(f"authentication failed: {answer.get('error', 'HTTP 401')}") from None
        return error.code, answer
    except urllib.error.URLError as error:
        raise ClientError(f"cannot reach {url}: {error.reason}") from None


def testcase_fields(data: bytes) -> dict:
    """Send text as text and anything else as base64."""
    try:
        return {"testcase": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"testcase_base64": base64.b64encode(data).decode("ascii")}


def read_text(path: Path) -> str:
    with path.open("rb") as handle:
        data = handle.read(MAX_TRACE_BYTES)
    return data.decode("utf-8", "replace")


def run_reproducer(command: str, testcase: Path, timeout: float) -> tuple[str, str]:
    """Run ``command`` on ``testcase``; return (crash output, the command line used)."""
    argv = [part.replace("{testcase}", str(testcase)) for part in shlex.split(command)]
    if "{testcase}" not in command:
        argv.append(str(testcase))
    try:
        result = subprocess.run(argv, capture_output=True, timeout=timeout)  # noqa: S603 - the user's command
        output = result.stderr + result.stdout
    except subprocess.TimeoutExpired as error:
        output = (error.stderr or b"") + (error.stdout or b"")
        output += f"\n[fuzzweb client: no exit within {timeout:g} s]\n".encode()
    except OSError as error:
        raise ClientError(f"cannot run {argv[0]}: {error}") from None
    return output[:MAX_TRACE_BYTES].decode("utf-8", "replace"), shlex.join(argv)


def kind_of(path: Path) -> str | None:
    """The finding kind a crash directory's file name implies, or None to skip it."""
    if path.parent.name in AFL_KINDS and path.name.startswith("id:"):
        return AFL_KINDS[path.parent.name]
    for prefix, kind in LIBFUZZER_KINDS.items():
        if path.name.startswith(prefix + "-"):
            return kind
    return None


def findings_in_directory(directory: Path, options) -> list[dict]:
    """Build one finding per testcase file under ``directory``."""
    findings = []
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        if path.suffix in TRACE_SUFFIXES or path.name == "README.txt":
            continue
        kind = kind_of(path)
        if kind is None:
            continue
        finding = base_finding(options, kind)
        finding.update(testcase_fields(path.read_bytes()))
        finding["metadata"] = {**finding.get("metadata", {}), "file": path.name}
        if options.run:
            finding["trace"], finding["reproducer"] = run_reproducer(options.run, path, options.timeout)
        else:
            sibling = next(
                (path.with_name(path.name + s) for s in TRACE_SUFFIXES if path.with_name(path.name + s).exists()), None
            )
            if sibling is not None:
                finding["trace"] = read_text(sibling)
        if kind == "crash" and not finding.get("trace"):
            finding["message"] = f"{path.name}: crashing input, no crash output available (use --run)"
        findings.append(finding)
    return findings


def base_finding(options, kind: str) -> dict:
    finding = {"kind": kind, "target": options.target}
    if options.engine:
        finding["engine"] = options.engine
    if options.language:
        finding["testcase_language"] = options.language
    versions = dict(item.split("=", 1) for item in options.version or [])
    if versions:
        finding["versions"] = versions
    return finding


def submit_all(options, findings: list[dict]) -> int:
    """Send ``findings`` in bulk batches; print a summary; return the exit status."""
    stored = new_buckets = duplicates = rejected = 0
    for start in range(0, len(findings), BATCH):
        batch = findings[start : start + BATCH]
        status, answer = post_json(options.url, options.token, "/api/v1/findings/bulk", {"findings": batch})
        if status not in (200, 422):
            raise ClientError(f"server answered {status}: {answer.get('error', answer)}")
        for result in answer.get("results", []):
            stored += 1
            new_buckets += result.get("new_bucket", False)
            duplicates += result.get("duplicate", False)
        for error in answer.get("errors", []):
            rejected += 1
            print(f"rejected #{start + error['index']}: {json.dumps(error.get('fields', error))}", file=sys.stderr)
    print(f"stored={stored} new_buckets={new_buckets} duplicates={duplicates} rejected={rejected}")
    return 1 if rejected else 0


def command_submit(options) -> int:
    finding = base_finding(options, options.kind)
    if options.trace_file:
        finding["trace"] = sys.stdin.read() if options.trace_file == "-" else read_text(Path(options.trace_file))
    if options.testcase_file:
        finding.update(testcase_fields(Path(options.testcase_file).read_bytes()))
    for name in ("message", "crash_type", "function", "stage", "reproducer"):
        if getattr(options, name):
            finding[name] = getattr(options, name)
    return submit_all(options, [finding])


def command_dir(options) -> int:
    directory = Path(options.directory)
    if not directory.is_dir():
        raise ClientError(f"{directory} is not a directory")
    findings = findings_in_directory(directory, options)
    if not findings:
        print(f"no crash-*, leak-*, timeout-*, oom-* or AFL crashes/hangs files under {directory}")
        return 0
    return submit_all(options, findings)


def command_jsonl(options) -> int:
    findings = []
    with open(options.file, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                findings.append(json.loads(line))
            except ValueError as error:
                raise ClientError(f"{options.file}:{number}: not JSON ({error})") from None
    return submit_all(options, findings)


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    main.add_argument("--url", default=os.environ.get("FUZZWEB_URL"), help="server, e.g. https://fuzz.example.org/")
    main.add_argument("--token", default=os.environ.get("FUZZWEB_TOKEN"), help="API token (or FUZZWEB_TOKEN)")
    commands = main.add_subparsers(dest="command", required=True)

    def common(sub, target_required=True):
        sub.add_argument("--target", required=target_required, help="what was fuzzed")
        sub.add_argument("--engine", help="afl++, libfuzzer, ...")
        sub.add_argument("--language", help="testcase language for highlighting (c, python, ...)")
        sub.add_argument("--version", action="append", metavar="NAME=VERSION", help="repeatable")

    submit = commands.add_parser("submit", help="submit one finding")
    common(submit)
    submit.add_argument("--kind", default="crash", choices=("crash", "timeout", "oom"))
    submit.add_argument("--trace-file", help="crash output; - for standard input")
    submit.add_argument("--testcase-file")
    for name in ("message", "crash-type", "function", "stage", "reproducer"):
        submit.add_argument(f"--{name}")
    submit.set_defaults(handler=command_submit)

    directory = commands.add_parser("dir", help="submit every testcase of a libFuzzer/AFL output directory")
    common(directory)
    directory.add_argument("directory")
    directory.add_argument("--run", help="command that reproduces a testcase, e.g. './fuzzer {testcase}'")
    directory.add_argument("--timeout", type=float, default=30.0, help="seconds per --run (default 30)")
    directory.set_defaults(handler=command_dir)

    jsonl = commands.add_parser("jsonl", help="submit findings from a JSON-lines file (one API object per line)")
    jsonl.add_argument("file")
    jsonl.set_defaults(handler=command_jsonl)
    return main


def main(argv=None) -> int:
    options = parser().parse_args(argv)
    if not options.url or not options.token:
        print("error: --url and --token (or FUZZWEB_URL and FUZZWEB_TOKEN) are required", file=sys.stderr)
        return 2
    try:
        return options.handler(options)
    except ClientError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
