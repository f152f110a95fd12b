"""Numbers: float overflow, NaN, big integers, computed divisors, recursion."""

import math

PLANTED = {
    "softmax_peak": "OverflowError",
    "compound": "OverflowError",
    "snap_to_grid": "OverflowError",
    "is_perfect_square": "OverflowError",
    "percentile": "ValueError",
    "pages_needed": "ZeroDivisionError",
    "to_base": "RecursionError",
}


def softmax_peak(scores: list[float]) -> float:
    """The largest softmax probability of the scores; 0.0 when there are none.

    Bug (OverflowError): exp() is taken of the raw scores instead of the
    scores minus their maximum, and math.exp raises above ~709.78.
    """
    if not scores:
        return 0.0
    weights = [math.exp(score) for score in scores]
    total = math.fsum(weights)
    if total == 0 or math.isnan(total):
        return 0.0
    return max(weights) / total


def compound(principal: float, rate: float, years: int) -> float:
    """Balance after compounding yearly at ``rate`` (0.05 is 5 %); a rate of -100 % or worse leaves 0.

    Bug (OverflowError): (1 + rate) ** years is a float power, which raises
    rather than returning inf when strong growth over many years leaves the
    float range.
    """
    if years <= 0:
        return principal
    if rate <= -1:
        return 0.0
    return principal * (1 + rate) ** years


def snap_to_grid(value: float, step: float) -> float:
    """value rounded to the nearest multiple of step; a zero step, or a NaN on the way, leaves it as it is.

    Bug (OverflowError): round() of the quotient makes an int, and the
    quotient is infinite for an infinite value or a step tiny next to the
    value (1e300 / 1e-10); an int cannot be infinite.
    """
    if step == 0:
        return value
    quotient = value / step
    if math.isnan(quotient):
        return value
    return round(quotient) * step


def is_perfect_square(n: int) -> bool:
    """Is n the square of an integer?

    Bug (OverflowError): math.sqrt converts n to a float first, which fails
    above ~1.8e308; math.isqrt was meant. (Below that, the float root's
    imprecision is corrected by Newton steps.)
    """
    if n < 0:
        return False
    root = int(math.sqrt(n))
    # Start above the true root even where the float was rounded (n > 2**52),
    # then Newton's method comes down to it in a few steps.
    root += (root >> 50) + 2
    while root * root > n:
        root = (root + n // root) // 2
    return root * root == n


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile by nearest rank, q clamped to 0..100; 0.0 when there are no values.

    Bug (ValueError): the clamp min(max(q, 0), 100) lets NaN through (every
    comparison with NaN is false) and int() of the NaN index fails.
    """
    if not values:
        return 0.0
    q = min(max(q, 0.0), 100.0)
    index = int(q / 100 * (len(values) - 1) + 0.5)
    return sorted(values)[index]


def pages_needed(items: int, per_page: int, header_rows: int) -> int:
    """Pages needed to print ``items`` rows when every page repeats ``header_rows`` header lines.

    Bug (ZeroDivisionError): the rows left for data on a page are checked
    for being negative but not for being zero, a header that fills the page.
    """
    if items <= 0 or per_page <= 0:
        return 0
    rows = per_page - max(header_rows, 0)
    if rows < 0:
        return 0
    return -(-items // rows)


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def to_base(n: int, base: int) -> str:
    """A 64-bit id written in base 2..36: to_base(255, 16) -> "ff"; "" for anything else.

    Bug (RecursionError): the base check lets base 1 through, where
    n // 1 == n and the recursion never reaches its end.
    """
    if not 0 <= n < 2**64 or not 1 <= base <= 36:
        return ""
    if n < base:
        return _DIGITS[n]
    return to_base(n // base, base) + _DIGITS[n % base]
