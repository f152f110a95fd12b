"""Why two buckets look alike: a pure score over kind, crash type and frames."""

from triage.lookalike import THRESHOLD, Shape, likeness


def test_the_same_crash_site_reached_two_ways_looks_alike_and_says_why():
    a = Shape("crash", "KeyError", ("units.py:lookup", "units.py:convert", "cli.py:main"))
    b = Shape("crash", "KeyError", ("units.py:lookup", "api.py:handle"))
    like = likeness(a, b)
    assert like.score >= 0.7
    assert like.reasons[0] == "same crash site units.py:lookup"
    assert "shares 1 of 4 frames (units.py:lookup)" in like.reasons
    assert "same crash type KeyError" in like.reasons


def test_only_the_crash_type_in_common_is_not_enough():
    a = Shape("crash", "KeyError", ("units.py:lookup",))
    b = Shape("crash", "KeyError", ("parser.py:token",))
    assert likeness(a, b).score < THRESHOLD


def test_different_kinds_never_look_alike():
    frames = ("units.py:lookup",)
    assert likeness(Shape("crash", "X", frames), Shape("timeout", "X", frames)).score == 0.0


def test_a_shared_frame_deeper_down_counts_less_than_the_crash_site():
    site = likeness(Shape("crash", "", ("a", "b")), Shape("crash", "", ("a", "c")))
    deeper = likeness(Shape("crash", "", ("x", "b")), Shape("crash", "", ("y", "b")))
    assert site.score > deeper.score > 0
