"""The fuzzy stage: how alike a new crash is to a bucket that exists, and why.

Exact signatures split one bug when two reports differ in what is hashed:
one stack goes a frame deeper, a caller was inlined, a message names
another type. For a signature seen for the first time, the candidates are
the buckets of the same target and kind that share its crash site or one
of its top frames (an index lookup, never a scan); each is scored here.

The score weighs frames by position, in the spirit of TraceSim (Vasiliev
et al., 2020): frames near the crash count most, a frame matched at the
same depth more than one matched further away. ClusterFuzz's rule (two top
frames in order, or string similarity above 0.8) was measured against it
on the development split (``bench/dedup_quality.py --thresholds``) and
merged more different bugs for the same recall. A different crash type
caps the score below any threshold: the same frames failing in two ways
are two bugs as often as one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# Chosen on the development split of tests/data/dedup_split.json
# (bench/dedup_quality.py --thresholds prints F1 per threshold).
THRESHOLD = 0.72
# Below any threshold a target can learn (triage.decisions): a different crash type never joins.
NEVER_JOINS = 0.49
# Candidates scored per new bucket at most, the most recently hit first (triage.fuzzy; the dedup bench
# models the same order): an index lookup with a bound, never every look-alike of a busy target.
CANDIDATES = 50
# How fast a frame's weight falls with its depth.
_DECAY = 0.35
# Frames compared at most, and how far apart two matching frames may sit.
_DEPTH = 8
_SHIFT = 2


@dataclass(frozen=True)
class Shape:
    """What the fuzzy stage knows of a crash or a bucket."""

    kind: str
    trace_format: str
    crash_type: str
    frames: tuple[str, ...]
    site: str = ""
    # The crash message, masked, when it names something (not "Object
    # reference not set…"): how a report without frames finds its bucket.
    message: str = ""

    def lookup_keys(self) -> tuple[str, ...]:
        """What candidates are found by: the site, the top three frames, and the crash type with its message."""
        keys = [f"site {self.site}"] if self.site else []
        bare = _without_crate(self.site)
        if self.trace_format == "rust" and bare != self.site:
            keys.append(f"site {bare}")  # found by the same file named without its crate (_same_site)
        if self.message:
            keys.append(message_key(self.message))
            head = message_head(self.message)
            if head:
                keys.append(f"message-head {head}")
        return tuple(keys + list(self.frames[:3]))


def message_key(message: str) -> str:
    """The lookup key of a (masked) crash message; crash types are compared after the lookup."""
    return f"message {message}"[:300]


# A message pasted cut short ("Cyclic reference found", of "Cyclic reference found while evaluating the
# Style property…") is the start of the whole one. It is found by its first words and must keep enough
# of them to say something: a few words and characters at least.
_HEAD_WORDS = 3
_MIN_PREFIX_CHARACTERS = 16
_MIN_PREFIX_WITHOUT_WORDS = 32


def message_head(message: str) -> str:
    """The first words of a message, by which a message cut short finds the whole one ("" when too short)."""
    words = message.split(None, _HEAD_WORDS)
    return " ".join(words[:_HEAD_WORDS]) if len(words) >= _HEAD_WORDS else ""


def _cut_short(one: str, other: str, anywhere: bool = False) -> bool:
    """True when the shorter message is the longer one cut at a word boundary, and says enough alone.

    ``anywhere``: cut at any character, as a terminal's width cuts a line whose rest was not read back.
    """
    short, long = sorted((one, other), key=len)
    return (
        len(short) >= _MIN_PREFIX_CHARACTERS
        # Enough words, or enough characters: an assertion's expression is one long "word".
        and (bool(message_head(short)) or len(short) >= _MIN_PREFIX_WITHOUT_WORDS)
        and long.startswith(short)
        and (anywhere or len(long) == len(short) or not long[len(short)].isalnum())
    )


@dataclass(frozen=True)
class Match:
    """A score from 0 to 1 and the frames that made it."""

    score: float
    matched: tuple[str, ...] = ()


def _weight(depth: int) -> float:
    return math.exp(-_DECAY * depth)


def frame_similarity(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[float, tuple[str, ...]]:
    """Position-weighted overlap of two frame lists (1.0: the same top frames in the same order)."""
    a, b = a[:_DEPTH], b[:_DEPTH]
    if not a or not b:
        return 0.0, ()
    total = sum(_weight(i) for i in range(len(a))) + sum(_weight(j) for j in range(len(b)))
    gained, matched, used = 0.0, [], set()
    last = -1
    for i, frame in enumerate(a):
        # In order: a frame matches one after the previous match, close to the same depth.
        for j in range(max(last + 1, i - _SHIFT), min(len(b), i + _SHIFT + 1)):
            if j not in used and b[j] == frame:
                gained += (_weight(i) + _weight(j)) * (1.0 - 0.15 * abs(i - j))
                used.add(j)
                matched.append(frame)
                last = j
                break
    return gained / total, tuple(matched)


# A report with no frames whose crash type and message are a bucket's: as
# sure as a match of the top frames (the message is specific, or it would
# not have been kept).
MESSAGE_MATCH = 0.8
# One message the other cut short: a little less sure, still above the threshold.
PREFIX_MATCH = 0.75


def similarity(new: Shape, bucket: Shape) -> Match:
    """How alike ``new`` is to ``bucket``: 0 for another kind or format, up to 1.

    A report without frames or format (only its message was read) is
    compared by crash type and message with buckets of any format.
    """
    if new.kind != bucket.kind:
        return Match(0.0)
    frameless = not new.frames or not bucket.frames
    # A pasted message without its type ("Cyclic reference found while…") matches any type.
    same_type = _same_crash_type(new.crash_type, bucket.crash_type)
    # Both name where they crashed, and not the same place: one stock message ("index out of bounds")
    # raised at two sites is two bugs.
    other_site = bool(new.site and bucket.site) and not _same_site(new.site, bucket.site)
    frameless = frameless and not other_site
    if frameless and new.message and new.message == bucket.message and same_type:
        return Match(MESSAGE_MATCH, (message_key(new.message),))
    # A type that holds the message (a Go ICE's, a Rust panic's) is cut where the message was.
    cut_type = same_type or _cut_short(new.crash_type, bucket.crash_type)
    if frameless and new.message and bucket.message and cut_type and _cut_short(new.message, bucket.message):
        return Match(PREFIX_MATCH, (message_key(min(new.message, bucket.message, key=len)),))
    # Or cut anywhere, by a terminal's width, its rest not read back: where a site or frames match too.
    cut_type = cut_type or _cut_short(new.crash_type, bucket.crash_type, anywhere=True)
    same_site = bool(new.site and bucket.site) and _same_site(new.site, bucket.site)
    if frameless and same_site and cut_type:
        # The same site and message, one report printed without its backtrace (RUST_BACKTRACE unset),
        # or one assertion read from two tools' output (the program's own message, gdb's backtrace).
        return Match(MESSAGE_MATCH, (f"site {new.site}",))
    if new.trace_format != bucket.trace_format:
        return Match(0.0)
    frames, matched = frame_similarity(new.frames, bucket.frames)
    if same_site:
        matched = (f"site {new.site}", *matched)
    score = 0.3 * same_site + (0.7 if same_site else 1.0) * frames
    if not cut_type:
        score = min(score * 0.5, NEVER_JOINS)
    return Match(round(min(score, 1.0), 3), matched)


def _without_crate(site: str) -> str:
    """``exa/src/fs/file.rs:331`` (a copy installed from Cargo's registry) -> ``src/fs/file.rs:331`` (as the
    checkout it was built in names it); any other site as it is."""
    crate, _, within = site.partition("/")
    return within if within.startswith("src/") and crate != "src" else site


def _same_site(one: str, other: str) -> bool:
    """One site, or one crate's file named with its crate and without it."""
    return one == other or _without_crate(one) == other or _without_crate(other) == one


_BLANKS = re.compile(r"\s+")


# What a parser names a crash it found no signal or exception for: gdb's and a tombstone's "unknown" (Google
# Play's trimmed tombstones print no signal line; a user's copy of the same crash has it).
_UNKNOWN = frozenset({"", "unknown"})


def _same_crash_type(one: str, other: str) -> bool:
    """Whether two crash types may be one: equal, one of them unknown (a Go compiler stack pasted
    without its ICE line), or one exception class named with and without its namespace
    (``System.ArgumentOutOfRangeException`` and a debugger's ``ArgumentOutOfRangeException``)."""
    if one == other or one in _UNKNOWN or other in _UNKNOWN:
        return True
    if _BLANKS.sub("", one) == _BLANKS.sub("", other):
        # A line cut at a terminal's width keeps or loses the blank it was cut at: "the len is N but theindex is N".
        return True
    if " " in one or " " in other:
        return False
    return one.rsplit(".", 1)[-1] == other.rsplit(".", 1)[-1]


def best_match(
    new: Shape, candidates: list[tuple[object, Shape]], threshold: float = THRESHOLD
) -> tuple[object, Match] | None:
    """The candidate most like ``new`` at or above ``threshold`` (ties: the first given), or None."""
    best = None
    for key, shape in candidates:
        match = similarity(new, shape)
        if match.score >= threshold and (best is None or match.score > best[1].score):
            best = (key, match)
    return best


def shape_of(signature) -> Shape:
    """The fuzzy stage's view of a :class:`crashes.model.Signature` (v2 on)."""
    site = next((frame[5:] for frame in signature.frames if frame.startswith("site ")), "")
    return Shape(
        kind=signature.kind,
        trace_format=signature.trace_format,
        crash_type=signature.fuzzy_crash_type,
        frames=tuple(signature.similarity_frames),
        site=site,
        # "…not equivalent to the source." and "…to the source": a sentence's full stop says nothing.
        message=signature.fuzzy_message.rstrip(" .!"),
    )
