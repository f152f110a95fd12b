"""A target whose argument is another package's class: uuid.UUID, built from its __init__ hints."""

import uuid


def variant_name(value: uuid.UUID) -> str:
    return str(value.variant)
