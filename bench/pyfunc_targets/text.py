"""Text handling: splitting, case folding, Unicode digits and marks, parsing."""

import re
import unicodedata

PLANTED = {
    "initials": "IndexError",
    "highlight": "IndexError",
    "parse_quantity": "ValueError",
    "slugify": "UnicodeEncodeError",
    "escape_non_ascii": "ValueError",
    "clusters": "IndexError",
    "parse_cookies": "ValueError",
    "max_nesting": "RecursionError",
}


def initials(name: str) -> str:
    """First letter of each word, upper-cased: "ada lovelace" -> "AL".

    Bug (IndexError): split(" ") yields empty words for doubled, leading or
    trailing spaces (and for ""), and word[0] of an empty word fails;
    split() without an argument was meant.
    """
    return "".join(word[0].upper() for word in name.split(" "))


def highlight(text: str, query: str) -> str:
    """Bracket the first case-insensitive match of query unless it runs into a longer word.

    highlight("a Cat", "cat") -> "a [Cat]"; highlight("Cats", "cat") -> "Cats".

    Bug (IndexError): positions found in text.casefold() are used on text,
    but case folding can lengthen a string ("ß" -> "ss", "ﬁ" -> "fi"), and
    the word-boundary check then reads past the end of the original.
    """
    needle = query.casefold()
    folded = text.casefold()
    start = folded.find(needle)
    if not needle or start < 0:
        return text
    end = start + len(needle)
    if end < len(folded) and text[end].isalnum():
        return text
    return f"{text[:start]}[{text[start:end]}]{text[end:]}"


def parse_quantity(text: str) -> int:
    """A count typed by a user, surrounding blanks allowed; 0 when it is not one: " 12 " -> 12.

    Bug (ValueError): str.isdigit() is also true for digits int() refuses,
    superscripts and circled digits ("²", "①"); isdecimal() was meant.
    """
    text = text.strip()
    if not text or len(text) > 9 or not text.isdigit():
        return 0
    return int(text)


def slugify(title: str) -> str:
    """A URL slug of the title's words: "Crème Brûlée!" -> "creme-brulee".

    Bug (UnicodeEncodeError): accents are removed by NFKD decomposition and
    the result encoded to ASCII strictly, as if every letter were an
    accented Latin one; other scripts ("日本", "ж") and letters without a
    decomposition ("ß", "ø") fail instead of being dropped or transliterated.
    """
    words = re.findall(r"\w+", title.lower())
    decomposed = unicodedata.normalize("NFKD", "-".join(words))
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return bare.encode("ascii").decode("ascii")


def escape_non_ascii(text: str) -> str:
    """Spell out non-ASCII characters by name, for a log: "é" -> "\\N{LATIN SMALL LETTER E WITH ACUTE}".

    Bug (ValueError): unicodedata.name() raises for characters without a
    name -- C1 controls (U+0080..U+009F), private use, unassigned code
    points -- because no default was passed.
    """
    return "".join(char if char.isascii() else f"\\N{{{unicodedata.name(char)}}}" for char in text)


def clusters(text: str) -> list[str]:
    """Split text into base characters with their combining marks: "e\\u0301x" -> ["e\\u0301", "x"].

    Bug (IndexError): a combining mark at the very start has no base
    character to attach to, and result[-1] of the empty list fails.
    """
    result: list[str] = []
    for char in unicodedata.normalize("NFC", text):
        if unicodedata.combining(char):
            result[-1] += char
        else:
            result.append(char)
    return result


def parse_cookies(header: str) -> dict[str, str]:
    """A Cookie header as a dict: "a=1; b=2" -> {"a": "1", "b": "2"}; a header without "=" -> {}.

    Bug (ValueError): every part is unpacked as exactly name=value, so a
    bare flag ("a=1; secure") or an "=" inside a value ("t=a=b") fails to
    unpack; part.partition("=") was meant.
    """
    if "=" not in header:
        return {}
    cookies = {}
    for part in header.split(";"):
        part = part.strip()
        if not part:
            continue
        name, value = part.split("=")
        cookies[name.strip()] = value.strip()
    return cookies


def _group(expr: str, index: int) -> tuple[int | None, int]:
    """Depth of the group opened just before ``index``, and the index after its ")"; None if never closed."""
    deepest = 1
    while index < len(expr):
        char = expr[index]
        if char == ")":
            return deepest, index + 1
        if char == "(":
            inner, index = _group(expr, index + 1)
            if inner is None:
                return None, index
            deepest = max(deepest, inner + 1)
        else:
            index += 1
    return None, index


def max_nesting(expr: str) -> int:
    """Deepest parenthesis nesting of an expression: "f(a, (b))" -> 2; -1 if unbalanced.

    Bug (RecursionError): the parser recurses once per "(", so around a
    thousand nested parentheses exhaust the interpreter's stack instead of
    being counted (a depth counter was all it needed).
    """
    deepest, index = 0, 0
    while index < len(expr):
        char = expr[index]
        if char == ")":
            return -1
        if char == "(":
            inner, index = _group(expr, index + 1)
            if inner is None:
                return -1
            deepest = max(deepest, inner)
        else:
            index += 1
    return deepest
