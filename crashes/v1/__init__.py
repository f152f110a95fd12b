"""Signature algorithm v1, frozen.

Its parsers (``traces/``) and frame rules (``frames.py``) are the ones v1
shipped with, kept here unchanged so that a v1 digest computed today equals
the one stored years ago (``tests/unit/test_v1_frozen.py`` checks the digests
of every test trace). Never edit this package: improve ``crashes.traces`` and
``crashes.frames`` and release a new version instead.
"""
