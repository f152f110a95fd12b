"""A bug behind a chain of comparisons: random inputs never get there."""

# ruff: noqa: SIM102 - the nesting is the point: one branch per character


def check_tag(tag: str) -> int:
    if tag.startswith("f"):
        if tag[1:2] == "u":
            if tag[2:3] == "z":
                if tag[3:4] == "z":
                    raise RuntimeError("reached the fuzz tag handler")
    return len(tag)
