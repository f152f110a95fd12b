"""A C compiler with a planted miscompilation, for the tests: gcc, except that
a left shift by 3 is compiled as a shift by 2. Same command line as gcc.

    python3 buggy_cc.py -O1 -o BINARY SOURCE.c
"""

import os
import re
import subprocess
import sys
import tempfile

arguments = sys.argv[1:]
for index, argument in enumerate(arguments):
    if argument.endswith(".c") and os.path.exists(argument):
        with open(argument) as handle:
            text = handle.read()
        planted = re.sub(r"<<\s*3\b", "<< 2", text)
        if planted != text:
            handle, copy = tempfile.mkstemp(suffix=".c", dir=os.path.dirname(os.path.abspath(argument)))
            with os.fdopen(handle, "w") as out:
                out.write(planted)
            arguments[index] = copy
sys.exit(subprocess.call(["gcc", *arguments]))
