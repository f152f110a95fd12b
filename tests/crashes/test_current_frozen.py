"""The current signature version is frozen too: a rule change that moves a digest must bump the version."""

import json

from crashes import signatures
from tests.data import record_digests


def test_current_version_digests_unchanged():
    recorded = json.loads(record_digests.OUTPUT.read_text())
    assert recorded["version"] == signatures.CURRENT.VERSION, (
        "the signature version changed: re-record with `python -m tests.data.record_digests`"
    )
    now = record_digests.digests()
    moved = sorted(key for key, digest in recorded["digests"].items() if now.get(key) != digest)
    assert len(recorded["digests"]) > 1800
    assert moved == [], (
        f"{len(moved)} digests of v{signatures.CURRENT.VERSION} moved (first: {moved[:5]}): a rule change "
        "that regroups reports needs a new version (crashes.signatures), then a re-record"
    )
