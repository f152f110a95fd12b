"""PyTorch's C++ errors (``c10::Error``) as PyTorch and every library built on it print them.

``RuntimeError: Expected all tensors to be on the same device …`` (raised into Python), or
``terminate called after throwing an instance of 'c10::Error'`` with ``  what():  …``, then
``Exception raised from current_device at …/basedeviceimpl.hpp:24 (most recent call first):``
``frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x58 (0x7fbe… in …/libc10.so)``
``frame #2: dipu::devapis::current_device() + 0x6d (0x7fbe… in …/libtorch_dipu.so)``

The check that threw names its function ("Exception raised from f at F:N"):
that is the crash's site, as an assertion's function is, keyed with the
first frame below the error's own machinery (c10::Error's constructor,
torchCheckFail, the CUDA check helper) that is not that function. A CUDA error is reported by
whichever later call looked ("CUDA kernel errors might be asynchronously
reported at some other API call, so the stacktrace below might be
incorrect"): its check and frames are then any kernel's, and only its
message is left, a stock one (crashes.signatures.unparsed).
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines, lines_of, mask_message

FORMAT = "c10-error"
_RAISED = re.compile(
    r"^\s{0,8}Exception raised from (?P<function>\S.{0,300}?) at (?P<file>\S{1,500}):(?P<line>\d{1,9}) "
    r"\(most recent call first\):"
)
# "frame #2: dipu::devapis::current_device() + 0x6d (0x7fbe1bb42dec in /…/libtorch_dipu.so)", or since 2.6
# "frame #3: c10::cuda::memcpy_and_sync(…) from ../c10/cuda/CUDAFunctions.h:106".
_FRAME = re.compile(r"^\s{0,8}frame #(?P<index>\d{1,4}): (?P<rest>.{1,2000})$")
_OFFSET_AND_MODULE = re.compile(r" \+ 0x[0-9a-fA-F]{1,16} \(0x[0-9a-fA-F]{1,16} in (?P<module>[^()]{1,500})\)$")
_FROM_SOURCE = re.compile(r" from (?P<file>\S{1,500}):(?P<line>\d{1,9})$")
# The message: what() of the uncaught error, or the line above the "Exception raised from" line.
_WHAT = re.compile(r"^\s{0,8}what\(\):\s+(?P<message>\S.{0,600})$")
# The error's own machinery, above the frame that called the check.
_MACHINERY = re.compile(
    r"^(?:c10::(?:Error|AcceleratorError|\w+Error)::\w+Error|c10::detail::torch\w+|c10::cuda::c10_cuda_check_implementation|"
    r"c10::\w+::\w+_check_implementation|operator\(\)|std::function<)"
)
_MACHINERY_DEPTH = 6
_ASYNCHRONOUS = "might be asynchronously reported"


def recognize(text: str) -> bool:
    """True for a text holding c10::Error's "Exception raised from f at F:N (most recent call first):" line."""
    return "Exception raised from" in text and bool(find_lines(text, _RAISED, 1, "Exception raised from"))


def _message(text: str, raised_at: int) -> str:
    lines = list(lines_of(text[:raised_at]))
    said = next((m["message"] for line in lines if "what():" in line and (m := _WHAT.match(line))), "")
    if said:
        return said.strip()
    above = next((line.strip() for line in reversed(lines) if line.strip()), "")
    return above


def parse(text: str) -> ParsedTrace:
    """The check's function as the site, the message above it as the crash, the frames below the machinery."""
    raised = find_lines(text, _RAISED, 1, "Exception raised from")[0]
    raised_at = text.find(raised.group(0))
    if _ASYNCHRONOUS in text:
        # The CUDA error's own line, not the advice below it.
        cuda = next((line.strip() for line in text[:raised_at].split("\n") if "CUDA error" in line), "")
        message = cuda or _message(text, raised_at)
        message = message[message.index("CUDA error") :] if "CUDA error" in message else message
        return ParsedTrace(format=FORMAT, crash_type=mask_message(message, 160), message=message, language="native")
    message = _message(text, raised_at)
    frames = []
    for match in find_lines(text[raised_at:], _FRAME, MAX_FRAMES, "frame #"):
        rest = match["rest"][:MAX_LINE].rstrip()
        placed, sourced = _OFFSET_AND_MODULE.search(rest), _FROM_SOURCE.search(rest)
        if placed:
            frames.append(Frame(function=rest[: placed.start()], module=placed["module"]))
        elif sourced:
            frames.append(Frame(function=rest[: sourced.start()], file=sourced["file"], line=int(sourced["line"])))
        else:
            frames.append(Frame(function=rest))
    last = max((i for i, f in enumerate(frames[:_MACHINERY_DEPTH]) if _MACHINERY.match(f.function)), default=-1)
    function = raised["function"]
    return ParsedTrace(
        format=FORMAT,
        crash_type=mask_message(message, 160),
        message=message,
        frames=tuple(frames[last + 1 :]),
        language="native",
        site=function,
        site_line=int(raised["line"]),
    )
