"""Small Python programs for the planted CPython (multi_python): `python3 gen_multi_py.py SEED OUT`.

Each program prints a few values computed from numbers the seed chooses, with at most one of the
constructs multi_python gets wrong among harmless ones, so each program shows at most one planted bug
and reduces in seconds (the bench feeds the engine's own generator instead). The first line says which.
"""

import random
import sys

TRIGGERS = {
    "floordiv": "print({a} // -{b})",
    "mod": "print(-{a} % {b})",
    "sorted": "print(sorted([{a}, {b}, 3, 1, 2]))",
    "join": "print('-'.join(['x', str({a}), str({b})]))",
    "closure": "def outer(c):\n    def inner():\n        return c + 1\n    return inner\nprint(outer(-{a})())",
}
HARMLESS = ["print({a} + {b})", "print({a} * {b})", "print(max({a}, {b}))", "print(str({a}) + 'x')"]

seed, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(seed)
trigger = rng.choice([*TRIGGERS, None])
lines = [rng.choice(HARMLESS) for _ in range(rng.randint(2, 4))]
if trigger:
    lines.insert(rng.randrange(len(lines) + 1), TRIGGERS[trigger])
body = "\n".join(line.format(a=rng.randint(5, 99), b=rng.randint(2, 9)) for line in lines)
with open(out, "w") as handle:
    handle.write(f"# planted: {trigger or 'none'}\n{body}\n")
