"""Bytes: file names, a record format, fixed-point packing."""

import math
import struct

PLANTED = {
    "display_name": "UnicodeEncodeError",
    "parse_tlv": "IndexError",
    "pack_temperature": "error",  # struct.error
}

MAX_NAME_BYTES = 255


def display_name(path: bytes) -> str:
    """The last component of a file-system path, as text for a UTF-8 page, cut to 255 bytes.

    Bug (UnicodeEncodeError): undecodable bytes are kept as lone surrogates
    (surrogateescape, as os.fsdecode does) and the length is then measured
    by encoding to UTF-8 strictly, which cannot encode a surrogate.
    """
    name = path.decode("utf-8", "surrogateescape").rsplit("/", 1)[-1]
    while len(name.encode("utf-8")) > MAX_NAME_BYTES:
        name = name[:-1]
    return name


def parse_tlv(data: bytes) -> dict[int, bytes]:
    """Records of one tag byte, one length byte and a value; tag 0 is a one-byte pad.

    A value cut short by the end of the data is kept as far as it goes.

    Bug (IndexError): a record cut right after its tag byte has no length
    byte, and data[index + 1] reads past the end.
    """
    records = {}
    index = 0
    while index < len(data):
        tag = data[index]
        if tag == 0:
            index += 1
            continue
        length = data[index + 1]
        records[tag] = data[index + 2 : index + 2 + length]
        index += 2 + length
    return records


def pack_temperature(celsius: float) -> bytes:
    """A reading as a big-endian signed 16-bit count of hundredths of a degree.

    Readings that are not finite or beyond +-1000 degrees are sensor faults,
    sent as 0x8000.

    Bug (struct.error): readings within the fault limits but beyond what 16
    bits hold (+-327.67 degrees) are not clamped and do not fit ">h".
    """
    if not math.isfinite(celsius) or abs(celsius) > 1000:
        return b"\x80\x00"
    return struct.pack(">h", round(celsius * 100))
