"""A tiny C program generator for the tests: `python3 gen_c.py SEED OUT`.

Each program computes a few integer expressions over constants the seed
chooses and prints each result, so compilers that agree print the same
lines. About one program in three shifts left by 3, the construct the
planted-bug compiler (buggy_cc.py) gets wrong. Every value shifted is
positive (the first operand is the larger), so no program has undefined
behaviour a reducer would refuse.
"""

import random
import sys

seed, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(seed)
lines = ["#include <stdio.h>", "int main(void) {"]
for index in range(rng.randint(3, 8)):
    a, b = rng.randint(51, 1000), rng.randint(1, 50)
    operator = rng.choice(["+", "-", "*", "^", "|", "&"])
    shift = 3 if rng.random() < 0.12 else rng.choice([1, 2, 4])
    lines.append(f"    int v{index} = (({a} {operator} {b}) << {shift});")
    lines.append(f'    printf("%d\\n", v{index});')
lines += ["    return 0;", "}"]
with open(out, "w") as handle:
    handle.write("\n".join(lines) + "\n")
