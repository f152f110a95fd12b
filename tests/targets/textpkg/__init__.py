"""A package target: functions in the package and in its submodules."""


def top(n: int) -> int:
    return n + 1
