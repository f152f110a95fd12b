def to_meters(value: float, unit: str) -> float:
    """Bug: unknown units are a KeyError."""
    return value * {"m": 1.0, "km": 1000.0, "cm": 0.01}[unit]


def _private(n: int) -> int:
    return n
