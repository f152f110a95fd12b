"""A lithium condition that runs a test command as C-Reduce would: interesting when it exits 0.

    python -m lithium --lines bench/lithium_command.py TEST_SCRIPT FILE

Lithium rewrites FILE in place and passes it as the last argument.
"""

from __future__ import annotations

import subprocess


def interesting(cli_args: list[str], temp_prefix: str) -> bool:
    return subprocess.run(cli_args, capture_output=True, check=False).returncode == 0
