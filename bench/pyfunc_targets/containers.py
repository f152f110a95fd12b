"""Lists, dicts and tuples: slicing, empty input, key assumptions, ragged rows."""

PLANTED = {
    "trimmed_spread": "ValueError",
    "normalize": "ZeroDivisionError",
    "reserve": "KeyError",
    "merge_limits": "KeyError",
    "parse_version": "IndexError",
    "rotate": "ZeroDivisionError",
    "transpose": "IndexError",
}


def trimmed_spread(values: list[int], trim: int) -> int:
    """max - min after dropping the ``trim`` smallest and ``trim`` largest values; 0 if none would remain.

    Bug (ValueError): sorted(values)[trim:-trim] is empty for trim 0 (-0 is
    0, the slice is [0:0]), and max() of an empty list fails.
    """
    trim = max(trim, 0)
    if len(values) <= 2 * trim:
        return 0
    kept = sorted(values)[trim:-trim]
    return max(kept) - min(kept)


def normalize(scores: dict[str, int]) -> dict[str, float]:
    """Scores scaled to 0..1 between the lowest and the highest.

    Bug (ZeroDivisionError): when all scores are equal -- a single score,
    say -- the range they are divided by is zero.
    """
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    return {name: (score - low) / (high - low) for name, score in scores.items()}


def reserve(stock: dict[str, int], order: dict[str, int]) -> dict[str, int]:
    """Take an order out of stock (in place); return the shortfall of the items that could not be taken.

    Bug (KeyError): the shortfall of an item the shop has never stocked is
    computed from stock[item] although the check above used stock.get().
    """
    missing = {}
    for item, wanted in order.items():
        if wanted <= 0:
            continue
        have = stock.get(item, 0)
        if have >= wanted:
            stock[item] = have - wanted
        else:
            missing[item] = wanted - stock[item]
    return missing


def merge_limits(defaults: dict[str, int], overrides: dict[str, int]) -> dict[str, int]:
    """defaults updated by overrides, where an override "max_X" is raised to at least the limit "min_X".

    Bug (KeyError): assumes every "max_X" has its "min_X"; an override of a
    maximum that has no minimum fails.
    """
    merged = dict(defaults)
    for key, value in overrides.items():
        if key.startswith("max_"):
            value = max(value, merged["min_" + key[4:]])
        merged[key] = value
    return merged


def parse_version(text: str) -> tuple[int, int, int]:
    """ "1.2.3" -> (1, 2, 3), missing parts 0 ("4" -> (4, 0, 0)); (0, 0, 0) for anything else.

    Bug (IndexError): the patch number is read when there are at least two
    parts instead of at least three, so "1.2" fails.
    """
    parts = text.strip().split(".")
    if len(text) > 64 or len(parts) > 3 or not all(part.isdecimal() for part in parts):
        return (0, 0, 0)
    major = int(parts[0])
    minor = int(parts[1]) if len(parts) > 1 else 0
    patch = int(parts[2]) if len(parts) >= 2 else 0
    return (major, minor, patch)


def rotate(items: tuple[int, ...], steps: int) -> tuple[int, ...]:
    """items rotated left by ``steps`` (right when negative).

    Bug (ZeroDivisionError): steps % len(items) for an empty tuple; only
    steps == 0 is short-circuited.
    """
    if steps == 0:
        return items
    steps %= len(items)
    return items[steps:] + items[:steps]


def transpose(rows: list[list[int]]) -> list[list[int]]:
    """The columns of a table given as rows; the first row sets the width.

    Bug (IndexError): every row is assumed to be as long as the first; a
    shorter later row fails (longer ones are silently cut).
    """
    if not rows:
        return []
    return [[row[column] for row in rows] for column in range(len(rows[0]))]
