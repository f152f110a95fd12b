"""CPython tracebacks, including chains and SyntaxError.

Handles ``During handling of the above exception`` and ``The above exception
was the direct cause`` chains (the last exception printed is the crash),
``[Previous line repeated N more times]``, 3.11 ``^^^^`` position markers,
and SyntaxError's frame without a function name.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, NAME_REST, join_cut_lines

FORMAT = "python"
_HEADER = "Traceback (most recent call last):"
HEADER = _HEADER


def frame_line(file: str, line: str | int, function: str) -> str:
    """A frame as CPython prints it, for the readers that rewrite other tools' tracebacks into this form."""
    return f'  File "{file}", line {line}, in {function}'


# loguru marks the frame that caught the exception: "> File "…", line 48, in <lambda>".
_FRAME = re.compile(r'^\s*(?:> )?File "(?P<file>[^"]*)", line (?P<line>\d+)(?:, in (?P<function>.+))?\s*$')


def is_frame_line(line: str) -> bool:
    """Whether ``line`` is a traceback's frame line (``  File "x.py", line 3, in f``)."""
    return 'File "' in line and _FRAME.match(line[:MAX_LINE]) is not None


_REPEATED = re.compile(r"^\s*\[Previous line repeated (?P<count>\d+) more times?\]\s*$")
_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<message>.*))?$")
_CHAIN_SEPARATORS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
# A "[Previous line repeated ...]" count can be huge; folding recursion only
# needs a few copies, and expanding all of them would let a trace eat memory.
_MAX_REPEAT = 50
_MAX_MESSAGE_LINES = 50
# Indented tracebacks read at their own indentation, at most (each copy costs a pass).
_MAX_INDENTED = 8


# Sentry's copy of a Python event, and a few crash reporters': the exception line first, then the frames
# ("KeyError: 'x'" / '  File "celery/worker/consumer/consumer.py", line 557, in on_task_received').
_EXCEPTION_FIRST = re.compile(r"^[A-Za-z_][\w.]{0,200}(?:Error|Exception|Warning|Interrupt|Exit)(?::\s?.{0,1000})?$")


def render_exception_first(text: str) -> tuple[str, str]:
    """``text`` with an exception line printed above its frames moved below them, under CPython's header.

    Only where no exception line follows the frames already (a traceback is then CPython's own).
    """
    if 'File "' not in text or _HEADER in text:
        return text, ""
    lines = text.split("\n")
    for index, line in enumerate(lines[:-1]):
        following = lines[index + 1][:MAX_LINE]
        if not (following.lstrip().startswith('File "') and _FRAME.match(following)):
            continue
        if not _EXCEPTION_FIRST.match(line[:MAX_LINE].strip()):
            continue
        end = index + 1
        while end < len(lines) and (_FRAME.match(lines[end][:MAX_LINE]) or lines[end].startswith("    ")):
            end += 1
        if end < len(lines) and lines[end].strip() and _EXCEPTION.match(lines[end][:MAX_LINE].strip()):
            return text, ""  # an exception line below the frames: CPython's order after all
        moved = [*lines[:index], _HEADER, *lines[index + 1 : end], line.strip(), *lines[end:]]
        return "\n".join(moved), "exception line printed above its frames read below them"
    return text, ""


def recognize(text: str) -> bool:
    """True if ``text`` holds a Python traceback, even one whose header was cut off."""
    if _HEADER in text:
        # Ruby 2.5-2.7 printed the same header above its own numbered frames ("2: from x.rb:5:in `m'").
        return 'File "' in text or not (":in `" in text or ":in '" in text)
    if 'File "' not in text:
        return False
    # Headless: two frames, or one frame followed by an exception line.
    frames = since_frame = 0
    for line in text.split("\n"):
        # (A frame line a terminal cut after its ", in" is joined by the parse.)
        if 'File "' in line and (_FRAME.match(line[:MAX_LINE]) or _CUT_AFTER_IN.match(line[:MAX_LINE].rstrip())):
            frames += 1
            since_frame = 0
            if frames >= 2:
                return True
            continue
        # A blank line ends the frame: what follows it is not directly below.
        since_frame += 1 if line.strip() else _FRAME_TO_EXCEPTION
        if not frames:
            continue
        # The cheap tests first: a hostile text is a quarter of a million lines below one frame.
        named = "Error" in line or "Exception" in line
        if named or since_frame <= _FRAME_TO_EXCEPTION:
            exception = _EXCEPTION.match(line[:MAX_LINE].rstrip())
            # Right below a frame (its source line between), any class's name says it.
            if exception and (named or _CLASS_NAME.fullmatch(exception["type"].rsplit(".", 1)[-1])):
                return True
    return False


# An exception class's name (its module's path aside): "_DeferAnalysis", "KeyboardInterrupt", "Abort".
_CLASS_NAME = re.compile(r"_*[A-Z]\w*")


# A frame's source line and Python 3.11's two marker lines below it.
_FRAME_TO_EXCEPTION = 3


def _is_marker(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and set(stripped) <= set("^~-")


def _is_dedented_source(lines: list[str], index: int) -> bool:
    """Whether ``lines[index]``, right after a frame at column 0, is that frame's source line.

    Not when it reads as an exception line, unless another frame or an exception line follows it
    (a bare ``foo`` is a statement when the traceback goes on after it).
    """
    previous = lines[index - 1][:MAX_LINE] if index else ""
    if not previous.startswith("File ") or not _FRAME.match(previous):
        return False
    line = lines[index][:MAX_LINE].rstrip()
    following = lines[index + 1][:MAX_LINE].rstrip() if index + 1 < len(lines) else ""
    goes_on = bool(_FRAME.match(following) or (following and _EXCEPTION.match(following)))
    return not _EXCEPTION.match(line) or (goes_on and ":" not in line)


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip())


def _is_indented_exception(lines: list[str], index: int) -> bool:
    """Whether the indented ``lines[index]`` is the exception line below a frame, though indented.

    A traceback indented by tabs as a whole, pasted below a line that is not (a prompt, a sentence),
    keeps its indentation, and a form's first line may have lost its own: the exception line is
    then as indented as a frame. It is still less indented than the frame's source line above it.
    """
    above = index - 1
    while above > 0 and _is_marker(lines[above]):
        above -= 1
    if above < 1 or not lines[above].strip() or not _FRAME.match(lines[above - 1][:MAX_LINE]):
        return False
    line = lines[index][:MAX_LINE]
    exception = _EXCEPTION.match(line.strip())
    # With its message's colon or a name that says it: a frame line cut short ("  Fi") is none.
    named = exception is not None and (
        exception["message"] is not None or exception["type"].endswith(("Error", "Exception"))
    )
    return named and _indentation(line) < _indentation(lines[above])


def _last_content(lines: list[str]) -> int:
    """The index of the last line with anything on it (-1 for none)."""
    return next((index for index in range(len(lines) - 1, -1, -1) if lines[index].strip()), -1)


def _parse_block(lines: list[str], start: int, last_content: int) -> tuple[ParsedTrace | None, int]:
    """Parse one traceback starting at ``lines[start]``; return it and the next index.

    ``last_content`` is the index of the text's last non-blank line (found once for all blocks)."""
    frames: list[Frame] = []
    index = start
    if index < len(lines) and lines[index].strip() == _HEADER:
        index += 1
    while index < len(lines):
        line = lines[index]
        frame = _FRAME.match(line[:MAX_LINE])
        if frame:
            source = ""
            if (
                index + 1 < len(lines)
                and lines[index + 1].startswith("    ")
                and not _FRAME.match(lines[index + 1][:MAX_LINE])
            ):
                source = lines[index + 1].strip()
                index += 1
                while index + 1 < len(lines) and _is_marker(lines[index + 1]):
                    index += 1
            frames.append(
                Frame(
                    function=frame["function"] or "<module>",
                    file=frame["file"],
                    line=int(frame["line"]),
                    source=source,
                )
            )
            index += 1
            continue
        repeated = _REPEATED.match(line)
        if repeated and frames:
            frames.extend([frames[-1]] * min(int(repeated["count"]), _MAX_REPEAT))
            index += 1
            continue
        if line.startswith((" ", "\t")) and frames and _is_indented_exception(lines, index):
            line = line.lstrip()
        elif line.startswith((" ", "\t")) or not line.strip():
            index += 1
            continue
        if frames and _is_dedented_source(lines, index):
            # A traceback pasted with its indentation stripped: the source line sits at column 0.
            index += 1
            continue
        if frames and line.startswith("Exception Type: "):
            django = _django_exception(lines, index)
            if django is not None:
                return ParsedTrace(
                    format=FORMAT, crash_type=django[0], message=django[1], frames=tuple(reversed(frames))
                ), index + 2
        exception = _EXCEPTION.match(line[:MAX_LINE].rstrip())
        if not exception:
            # A log line in the middle of the frames, or the end of a trace
            # whose exception line was cut off.
            ahead = lines[index + 1 : index + 4]
            if frames and any(_FRAME.match(following[:MAX_LINE]) for following in ahead):
                index += 1
                continue
            if frames:
                # Other text below the frames ends the trace: printed without its exception line. A paste that
                # stops one line below its frames is read as stopped inside them (a cut excerpt's last line is
                # any line's start), as one stopping in them is.
                cut = index >= last_content
                return ParsedTrace(format=FORMAT, crash_type="", frames=tuple(reversed(frames)), cut=cut), index + 1
            return None, index + 1
        message_lines = [exception["message"] or ""]
        index += 1
        # A message can run over several lines, up to a blank line, the next
        # chain separator or the next traceback.
        while index < len(lines) and len(message_lines) < _MAX_MESSAGE_LINES:
            following = lines[index]
            if not following.strip() or following.strip() == _HEADER or following.strip() in _CHAIN_SEPARATORS:
                break
            message_lines.append(following)
            index += 1
        trace = ParsedTrace(
            format=FORMAT,
            crash_type=exception["type"],
            message="\n".join(message_lines).strip(),
            frames=tuple(reversed(frames)),
        )
        return trace, index
    if frames:
        # The text ended inside the frames: the innermost may be among what was cut.
        return ParsedTrace(format=FORMAT, crash_type="", frames=tuple(reversed(frames)), cut=True), index
    return None, index


# Django's debug page in its copy-and-paste view prints the exception below the frames as two fields:
# "Exception Type: IndexError at /api/items" and "Exception Value: list index out of range".
_DJANGO_TYPE = re.compile(r"^Exception Type: (?P<type>[A-Za-z_][\w.]{0,200})(?: at \S{0,500})?\s*$")
_DJANGO_VALUE = re.compile(r"^Exception Value: ?(?P<message>.{0,1000})$")


def _django_exception(lines: list[str], index: int) -> tuple[str, str] | None:
    """The type and message of Django's "Exception Type:" and "Exception Value:" fields at ``lines[index]``."""
    found = _DJANGO_TYPE.match(lines[index][:MAX_LINE])
    value = _DJANGO_VALUE.match(lines[index + 1][:MAX_LINE]) if found and index + 1 < len(lines) else None
    return (found["type"], value["message"].strip() if value else "") if found else None


_FRAME_START = re.compile(r'^\s*(?:> )?File "')
_CUT_AFTER_IN = re.compile(r'^\s*(?:> )?File "[^"]*", line \d+, in$')
_CUT_AFTER_LINE = re.compile(r'^\s*(?:> )?File "[^"]*", line$')


def _blank_cut_off(line: str, following: str) -> bool:
    """Whether a frame line was cut on the blank after its ", in" (a name follows) or its ", line" (a number)."""
    if following[:1].isspace():
        return False
    if line.endswith(", in"):
        return bool(_CUT_AFTER_IN.match(line[:MAX_LINE]))
    return line.endswith(", line") and following[:1].isdigit() and bool(_CUT_AFTER_LINE.match(line[:MAX_LINE]))


# The rest of a frame line cut inside its line number.
_NUMBER_REST = re.compile(r"^\d{0,9}, in \S")


def _names_function(line: str) -> bool:
    frame = _FRAME.match(line[:MAX_LINE])
    return bool(frame and frame["function"])


def _join_cut_frames(lines: list[str]) -> tuple[list[str], int]:
    """Join a frame line that a hard wrap cut, whatever the width; and how many lines were joined.

    One cut line in a short traceback is no evidence of a width (``crashes.traces.extract``
    needs several), but a frame line says itself where it was cut:
    - inside its function's name: the rest of the name alone at column 0, the source line
      indented below it (in a paste without indentation, a bare name is source);
    - before its ``", line N``: a ``File "`` line that is not a frame line, joined to the
      lines after it while that makes it one.
    """
    lines, in_names = join_cut_lines(
        lines,
        lambda line: 'File "' in line and bool(_FRAME_START.match(line)) and _names_function(line),
        lambda _, following: following[:1].isspace(),
        goes_on=lambda line: bool(NAME_REST.fullmatch(line)),
        most=1,
    )
    # Cut just after ", in " or ", line ": the blank the cut fell on was stripped with the line's trailing
    # blanks. (When the blank went to the next line instead, it is there.)
    lines = [
        line + " " if _blank_cut_off(line, following) else line
        for line, following in zip(lines, [*lines[1:], ""], strict=True)
    ]
    lines, before_numbers = join_cut_lines(
        lines,
        lambda line: 'File "' in line and bool(_FRAME_START.match(line)) and not _FRAME.match(line[:MAX_LINE]),
        lambda joined, _: bool(_FRAME.match(joined[:MAX_LINE])),
    )
    # Cut inside the line number: ", line 7" / "3, in reload_plugin" (a SyntaxError's frame, which names
    # no function, is followed by its indented source line instead).
    lines, in_numbers = join_cut_lines(
        lines,
        lambda line: 'File "' in line and line[-1:].isdigit() and bool(_FRAME.match(line[:MAX_LINE])),
        lambda joined, _: _names_function(joined),
        goes_on=lambda line: bool(_NUMBER_REST.match(line)),
        most=1,
    )
    return lines, in_names + before_numbers + in_numbers


# Python 3.11's exception groups (asyncio's TaskGroup, trio, anyio) draw each sub-exception's traceback
# in a box: "  + Exception Group Traceback (most recent call last):", "  | " before every line, and
# "+-+---------------- 1 ----------------" between sub-exceptions.
_GROUP_HEADER = "Exception Group Traceback (most recent call last):"
_GROUP_FIRST = "+-+---------------- 1 -"
_GROUP_HEAD = re.compile(r"^\s*\+ Exception Group Traceback \(most recent call last\):\s*$")
_GROUP_RULE = re.compile(r"^\s*\+(?:-\+)?-{4,}(?: (?:\d{1,6}|\.\.\.) -{4,})?\s*$")
_GROUP_MARGIN = re.compile(r"^(?:\s*\| ?)+")
# A nested group's margin is some columns wide at most: a "|" further right is the line's own text.
_MARGIN_WIDTH = 80
_GROUP_NOTE = re.compile(r"^\s*\| ?and \d+ more exceptions?\s*$")


def _unboxed(lines: list[str]) -> list[str]:
    """Exception groups' boxes undone: each sub-exception a traceback of its own, printed after the group's.

    The sub-exceptions are what failed (a TaskGroup's own frames are where it gathered them), and the last
    exception printed is the crash, as in a chain.
    """
    out = []
    for line in lines:
        if _GROUP_HEAD.match(line[:MAX_LINE]):
            out.append(_HEADER)
        elif _GROUP_RULE.match(line[:MAX_LINE]) or _GROUP_NOTE.match(line[:MAX_LINE]):
            out.append("")
        elif "|" in line[:_MARGIN_WIDTH]:
            margin = _GROUP_MARGIN.match(line[:MAX_LINE])
            out.append(line[margin.end() :] if margin else line)
        else:
            out.append(line)
    return out


# multiprocessing's and concurrent.futures' wrapper of a worker's traceback: 'RemoteTraceback: ' and
# the worker's text between triple quotes, the parent's traceback after it.
_REMOTE = re.compile(r"^\s*(?:[\w.]+\.)?_?RemoteTraceback:\s*(?:\"\"\")?\s*$")


def _is_remote(lines: list[str], start: int) -> bool:
    """Whether the traceback at ``lines[start]`` is a worker's, quoted below a RemoteTraceback line."""
    above = [line for line in lines[max(0, start - 3) : start] if line.strip()]
    return bool(above) and (
        bool(_REMOTE.match(above[-1][:MAX_LINE]))
        or (above[-1].strip() == '"""' and len(above) > 1 and bool(_REMOTE.match(above[-2][:MAX_LINE])))
    )


# What CPython prints above a traceback that is not the crash's: an exception raised where it could not propagate
# ("Exception ignored in: <function Repository.__del__ at 0x…>", a finalizer's, a callback's), and a
# sys.excepthook that failed on the crash ("Error in sys.excepthook:"; the crash follows "Original exception was:").
# (And "Exception ignored on calling ctypes callback function", "Exception ignored while finalizing …".)
_SECONDARY_HEADS = ("Exception ignored", "Error in sys.excepthook")


def _note_secondary(lines: list[str], start: int, trace: ParsedTrace, secondary: set[int]) -> None:
    """Add ``trace`` (at ``lines[start]``) to ``secondary`` when it is CPython's report of another failure."""
    above = [line.strip() for line in lines[max(0, start - 3) : start] if line.strip()]
    if above and above[-1].startswith(_SECONDARY_HEADS):
        secondary.add(id(trace))


def parse(text: str) -> ParsedTrace:
    """Parse the traceback(s) in ``text``; the last exception of a chain is the crash, or a worker's
    traceback a process pool sent back."""
    lines = text.split("\n")
    # (A group printed without its own traceback has its boxes still: "+-+---------------- 1 ---…".)
    grouped = _GROUP_HEADER in text or _GROUP_FIRST in text
    if grouped:
        lines = _unboxed(lines)
    lines, joined = _join_cut_frames(lines)
    repairs = (f"{joined} cut frame lines joined",) if joined else ()
    if grouped:
        repairs = ("exception group's boxes undone", *repairs)
    traces: list[ParsedTrace] = []
    remote: ParsedTrace | None = None
    secondary: set[int] = set()  # the traces CPython printed about another failure than the crash
    last_content = _last_content(lines)
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        if stripped == _HEADER and lines[index][:1] in (" ", "\t") and len(traces) < _MAX_INDENTED:
            # A traceback inside another tool's output (pip, tox, a CI log) is
            # indented as a whole: read it at its own indentation.
            indent = len(lines[index]) - len(lines[index].lstrip())
            block = [line[indent:] if line[:indent].isspace() else line for line in lines[index:]]
            at = index
            trace, consumed = _parse_block(block, 0, last_content - index)
            index += max(consumed, 1)
            if trace is not None:
                traces.append(trace)
                _note_secondary(lines, at, trace, secondary)
            continue
        if stripped == _HEADER or ('File "' in lines[index] and _FRAME.match(lines[index][:MAX_LINE])):
            at = index
            trace, index = _parse_block(lines, index, last_content)
            if trace is not None:
                traces.append(trace)
                if _is_remote(lines, at):
                    remote = trace
                _note_secondary(lines, at, trace, secondary)
            continue
        index += 1
    if not traces:
        return ParsedTrace(format=FORMAT, crash_type="", language="python", repairs=repairs)
    # The crash is the last exception printed; a fragment after it whose
    # exception line was cut off only counts when there is nothing else.
    # (Of the traces that are the crash's, when any is: a report of another failure is read only alone.)
    pool = [trace for trace in traces if id(trace) not in secondary] or traces
    complete = [trace for trace in pool if trace.crash_type]
    last = complete[-1] if complete else pool[-1]
    if (
        len(complete) > 1
        and not last.message.strip()
        and text.rfind(_CHAIN_SEPARATORS[1]) > text.rfind(_CHAIN_SEPARATORS[0])
    ):
        # "raise astroid.AstroidError from e": a wrapper that says nothing of its own, raised from the
        # exception that failed (pylint ends every crash with that line): the cause is the crash.
        last = complete[-2]
    if remote is not None and remote.crash_type:
        # A worker process's traceback, sent back and re-raised by the parent's pool.get() or
        # future.result(): the parent's frames are the pool's, the worker's say what failed.
        last = remote
    if grouped and complete and not last.crash_type.endswith("ExceptionGroup"):
        # The group's sub-exceptions are printed in the order their tasks failed, which is chance: of
        # them, the same one is the crash whatever that order was.
        sub = [trace for trace in complete if not trace.crash_type.endswith("ExceptionGroup")]
        last = min(sub, key=lambda trace: (trace.crash_type, trace.frames[0].function if trace.frames else ""))
    return ParsedTrace(
        language="python",
        format=FORMAT,
        crash_type=last.crash_type,
        message=last.message,
        frames=last.frames,
        causes=tuple(traces[:-1]),
        repairs=repairs,
        cut=last.cut,
    )
