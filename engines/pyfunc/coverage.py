"""Branch coverage of the target's own code, measured in the child.

Coverage is arcs: pairs (line executed, line executed next) within one
frame, plus (last line, -first line) for a return, as coverage.py measures
branches. Only files under the target's source root are traced: the
engine, the standard library and other packages cost one call event each
and no more.

Arcs are plain tuples (file, from, to) rather than hashes: string hashes
differ between interpreter processes, and the child is restarted now and
then.
"""

from __future__ import annotations

import os
import sys


def source_roots(module) -> tuple[str, ...]:
    """Where ``module``'s own code lives: its package directory, or its file."""
    paths = getattr(module, "__path__", None)
    if paths:
        return tuple(os.path.join(os.path.realpath(p), "") for p in paths)
    filename = getattr(module, "__file__", None)
    return (os.path.realpath(filename),) if filename else ()


class ArcTracer:
    """Records the arcs one call executes in the target's files."""

    def __init__(self, roots: tuple[str, ...]):
        self.roots = roots
        self.arcs: set[tuple[str, int, int]] = set()
        self._traced: dict[str, bool] = {}

    def _wants(self, filename: str) -> bool:
        wanted = self._traced.get(filename)
        if wanted is None:
            wanted = self._traced[filename] = os.path.realpath(filename).startswith(self.roots)
        return wanted

    def _call(self, frame, event, arg):
        if event != "call" or not self._wants(frame.f_code.co_filename):
            return None
        filename = frame.f_code.co_filename
        arcs = self.arcs
        last = -frame.f_code.co_firstlineno

        def local(frame, event, arg):
            nonlocal last
            if event == "line":
                line = frame.f_lineno
                arcs.add((filename, last, line))
                last = line
            elif event == "return":
                arcs.add((filename, last, -frame.f_code.co_firstlineno))
            return local

        return local

    def run(self, function, args, kwargs):
        """Call ``function`` with tracing on; the arcs it ran are in ``self.arcs``."""
        self.arcs = set()
        sys.settrace(self._call)
        try:
            return function(*args, **kwargs)
        finally:
            sys.settrace(None)
