"""Programs for the multi-bug compiler (multi_gcc): `python3 gen_multi.py SEED OUT`.

Each program computes a few integer expressions from values the seed chooses
(read through volatile variables, so nothing is folded before the optimisers
see it) and prints them. The seed picks at most one of the constructs the
multi-bug compiler gets wrong, so each program shows at most one planted bug;
the first line says which ("/* planted: … */"), for the bench to score against.
"""

import random
import sys

TRIGGERS = ["<< 3", "% 7", "* 9", "- 11", "/ 13", "| 17"]
HARMLESS = ["<< 1", "% 3", "* 5", "- 2", "/ 4", "| 6", "+ 8", "^ 12"]

seed, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(seed)
trigger = rng.choice([*TRIGGERS, None])
operations = [rng.choice(HARMLESS) for _ in range(rng.randint(2, 6))]
if trigger:
    operations.insert(rng.randrange(len(operations) + 1), trigger)
lines = [f"/* planted: {trigger or 'none'} */", "#include <stdio.h>", "int main(void) {"]
for index, operation in enumerate(operations):
    lines.append(f"    volatile int a{index} = {rng.randint(20, 900)};")
    lines.append(f'    printf("%d\\n", a{index} {operation});')
lines += ["    return 0;", "}"]
with open(out, "w") as handle:
    handle.write("\n".join(lines) + "\n")
