"""A target whose functions have a few clear paths each, for the examples tests."""

from __future__ import annotations


def classify(n: int, word: str) -> str:
    if n < 0:
        size = "negative"
    elif n == 0:
        size = "zero"
    elif n > 1000:
        size = "big"
    else:
        size = "small"
    if word and word[0] == "!":
        return size.upper()
    return size


def first_word(text: str) -> str:
    # Raises IndexError on text without words: one example should show it.
    return text.split()[0]
