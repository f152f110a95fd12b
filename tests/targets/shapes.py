"""Functions taking the target's own types: enums, dataclasses, NamedTuples, TypedDicts, classes."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypedDict


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


@dataclass
class Point:
    x: int
    y: int


class Size(NamedTuple):
    width: float
    height: float


class Style(TypedDict, total=False):
    color: Color
    border: int


class Canvas:
    def __init__(self, size: Size, title: str | None = None):
        self.size = size
        self.title = title


@dataclass
class Node:
    value: int
    children: list[Node]


def paint(color: Color, at: Point, style: Style) -> str:
    """Bug: a GREEN point on the diagonal has no brush."""
    brushes = {Color.RED: "r", Color.BLUE: "b"}
    if at.x == at.y:
        return brushes[color]
    return color.value


def area(canvas: Canvas) -> float:
    """Bug: a canvas with no title divides by its length."""
    return canvas.size.width * canvas.size.height / len(canvas.title or "")


def depth(node: Node, mode: Literal["max", "min"], extra: int | str | None, items: tuple[int, ...]) -> int:
    return node.value + len(node.children)


def find_index(items: list[int], wanted: int) -> int:
    """Bug: returns None, not -1, when ``wanted`` is missing."""
    for index, item in enumerate(items):
        if item == wanted:
            return index


def scale(width: int) -> int:
    """Refuses negative widths on purpose: expected, not a bug."""
    if width < 0:
        raise ValueError("width must not be negative")
    return width * 2
