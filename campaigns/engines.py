"""The engines a campaign can run, by the name a Target carries."""

from __future__ import annotations

PYFUNC = "pyfunc"
# Differential engines, and the language each tests: one engine (and one RQ
# queue) per language, so a worker serves only the toolchains it has.
DIFFERENTIAL_LANGUAGES = {"diff-c": "c", "diff-python": "python", "diff-kotlin": "kotlin"}
