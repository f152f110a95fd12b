"""The crash-analysis core imports nothing from Django, so the client and the benches can use it."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES = [
    "crashes.signatures",
    "crashes.similarity",
    "crashes.traces",
    "crashes.v1.signature",
    "crashes.signatures.unparsed",
]


def test_crashes_imports_no_django():
    code = (
        "import sys, importlib\n"
        f"for name in {MODULES!r}: importlib.import_module(name)\n"
        "leaked = sorted(m for m in sys.modules if m == 'django' or m.startswith(('django.', 'triage', 'campaigns')))\n"
        "print(','.join(leaked))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""
