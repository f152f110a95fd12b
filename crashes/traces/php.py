"""PHP's uncaught exceptions and errors with their ``Stack trace:`` (Nextcloud's, WordPress's, Laravel's logs).

``PHP Fatal error:  Uncaught TypeError: OC\\Files\\Utils\\Scanner::__construct(): Argument #4 … in /x/Scanner.php:95``
``Stack trace:``
``#0 /var/www/html/apps/dup/lib/Utils/ScannerUtil.php(78): OC\\Files\\Utils\\Scanner->__construct(…)``
``#1 [internal function]: OCA\\Dup\\Command\\FindAll->execute(…)``
``#2 {main}``

The exception's class (by its own name: a namespace is where it lives) is the
crash's type; the frames are the functions the trace names, a method
``Class->m`` or ``Class::m`` by its class and name, without arguments, the
files' paths and lines moving with every install and release.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, lines_of

FORMAT = "php"
_STACK = "Stack trace:"
_FRAME = re.compile(
    r"^\s{0,8}#(?P<index>\d{1,4}) (?:(?P<file>\S[^\n]{0,500}?)\((?P<line>\d{1,9})\)|\[internal function\]): "
    r"(?P<function>[A-Za-z_\\][\w\\]{0,300}(?:(?:->|::)[\w]{1,200})?)\("
)
# "PHP Fatal error:  Uncaught TypeError: msg in /x.php:95", "Next Exception: …", Laravel's "local.ERROR: msg".
_EXCEPTION = re.compile(
    r"(?:^|\s|:)(?:Uncaught |Next )?(?P<type>(?:[A-Z]\w{0,100}\\){0,10}[A-Z]\w{0,100}(?:Exception|Error))"
    r"(?::\s*(?P<message>.{0,1000}?))?(?: in (?:\S{1,500}):\d{1,9})?\s*$"
)
_ABOVE = 6


def recognize(text: str) -> bool:
    if _STACK not in text or "#0 " not in text:
        return False
    lines = list(lines_of(text))
    at = next((i for i, line in enumerate(lines) if line.strip().endswith(_STACK)), None)
    return at is not None and any(_FRAME.match(line[:MAX_LINE]) for line in lines[at + 1 : at + 3])


def parse(text: str) -> ParsedTrace:
    lines = list(lines_of(text))
    at = next(i for i, line in enumerate(lines) if line.strip().endswith(_STACK))
    crash_type = message = ""
    for line in reversed(lines[max(0, at - _ABOVE) : at + 1]):
        found = _EXCEPTION.search(line[:MAX_LINE].replace(_STACK, "").rstrip())
        if found:
            crash_type = found["type"].rsplit("\\", 1)[-1]
            message = (found["message"] or "").strip()
            break
    frames = []
    for line in lines[at + 1 :]:
        found = _FRAME.match(line[:MAX_LINE])
        if found is None:
            break
        function = found["function"].replace("->", "::")
        frames.append(Frame(function=function, file=found["file"] or "", line=int(found["line"] or 0) or None))
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=tuple(frames), language="php")
