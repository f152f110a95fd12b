"""ClusterFuzz's own crash grouping, as a reference method for bench/dedup_quality.py.

What it mirrors (clusterfuzz==2.6.0, the libClusterFuzz package on PyPI):

- crash type, crash state and security flag per trace, as ClusterFuzz's fuzz
  task computes them: ``stack_analyzer.get_crash_data(trace)`` and
  ``crash_analyzer.is_security_issue(trace, crash_type, crash_address)``
  (traces are taken as already symbolized; OOMs and hangs are reported, as on
  ClusterFuzz's libFuzzer/AFL jobs);
- the grouping of ClusterFuzz's grouper cron (src/appengine/handlers/cron/
  grouper.py at tag v2.6.0, src/clusterfuzz/_internal/cron/grouper.py later;
  the cron is not in the package):
  * records with identical (crash type, crash state, security flag) are one
    crash (the cron deletes such duplicates);
  * two crashes are grouped when they are in the same project (here: the same
    "group" field), have the same security flag, and
    - if either crash type has a unique state (Timeout, Out-of-memory, ...:
      ``data_types.CRASH_TYPES_WITH_UNIQUE_STATE``): type and state are equal;
    - else ``CrashComparer(state_1, state_2).is_similar()`` and, for
      non-security crashes only, ``CrashComparer(type_1, type_2).is_similar()``
      (similar, not necessarily equal, types; ``--same-type`` requires equal
      types instead);
  * groups are merged transitively (the cron merges both testcases' groups),
    here with union-find, which gives the same partition. A cheap bound skips
    pairs that CrashComparer is sure to reject (see ``_may_be_similar``); the
    comparer alone says "similar".
  Later cron versions differ in one point: two security crashes whose state is
  "NULL" also need similar types there; v2.6.0 (mirrored here) does not.
  Not mirrored, since they need ClusterFuzz's datastore: grouping by shared
  issue, variant analysis across jobs, and the group size cap (25).

One departure, for the benchmark: a trace whose crash state is empty (the
stack analyzer recognised no crash, as for most Python and JVM traces) stays
alone, joined only by traces of identical text; ClusterFuzz would file all of
them as one crash. The placeholder state "NULL" (crash recognised, no usable
frame) is ClusterFuzz's own value and is grouped as ClusterFuzz groups it.

Run it under its own venv (made by ``make bench-deps``; clusterfuzz pins
redis<5, so it cannot share .venv):

    .venv-clusterfuzz/bin/python bench/clusterfuzz_grouping.py [--same-type] < in.jsonl > out.jsonl

Input, one JSON object a line: {"id": ..., "trace": "...", "group": ...}
("group" optional: only records with equal group may be grouped together).
Output, one line per input record, in input order:
{"id": ..., "cluster": "...", "crash_type": "...", "crash_state": "...", "security_flag": ...}
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections import Counter
from pathlib import Path

UNIQUE_STATE_TYPES: frozenset[str] = frozenset()


def _load_clusterfuzz():
    """Import ClusterFuzz's stack analyzer and crash comparer.

    Importing ``clusterfuzz`` first sets ROOT_DIR, LIB_CF and CONFIG_DIR_OVERRIDE
    (its bundled lib-config, which ``local_config.ProjectConfig`` reads) when
    ROOT_DIR is not already set.
    """
    global UNIQUE_STATE_TYPES
    try:
        import clusterfuzz
    except ImportError:
        sys.exit("clusterfuzz is not installed here: run with .venv-clusterfuzz/bin/python (make bench-deps)")
    os.environ.setdefault("CONFIG_DIR_OVERRIDE", str(Path(clusterfuzz.__file__).parent / "lib-config"))

    from clusterfuzz._internal.crash_analysis import crash_analyzer
    from clusterfuzz._internal.crash_analysis.crash_comparer import CrashComparer
    from clusterfuzz._internal.crash_analysis.stack_parsing import stack_analyzer
    from clusterfuzz._internal.datastore.data_types import CRASH_TYPES_WITH_UNIQUE_STATE

    UNIQUE_STATE_TYPES = frozenset(CRASH_TYPES_WITH_UNIQUE_STATE)
    return stack_analyzer, crash_analyzer, CrashComparer


def analyse(text: str, stack_analyzer, crash_analyzer) -> tuple[str, str, bool]:
    """(crash_type, crash_state, security_flag) of one trace, as ClusterFuzz's fuzz task gets them."""
    info = stack_analyzer.get_crash_data(
        text, symbolize_flag=False, already_symbolized=True, detect_ooms_and_hangs=True
    )
    security = bool(crash_analyzer.is_security_issue(text, info.crash_type, info.crash_address))
    return info.crash_type, info.crash_state, security


def _profile(state: str) -> tuple[list[str], Counter, list[Counter]]:
    lines = state.splitlines()
    return lines, Counter(lines), [Counter(line) for line in lines]


def _may_be_similar(a, b, same_frames: int, threshold: float) -> bool:
    """A cheap necessary condition for ``CrashComparer(a, b).is_similar()``.

    Only a speed-up: it never decides "similar" itself, it only skips pairs that
    the comparer is sure to reject. The comparer says similar when at least
    ``same_frames`` lines are in common (LCS), or when the mean similarity ratio
    of the lines at equal positions, (len1 + len2 - levenshtein) / (len1 + len2),
    is above ``threshold``; the Levenshtein distance is at least the bag distance
    of the two lines' characters (the longer length less the
    characters in common), which bounds that ratio from above.
    """
    (lines_a, bag_a, chars_a), (lines_b, bag_b, chars_b) = a, b
    if sum(min(n, bag_b[line]) for line, n in bag_a.items() if line in bag_b) >= same_frames:
        return True
    compared = min(len(lines_a), len(lines_b))
    if not compared:
        return True
    bound = 0.0
    for i in range(compared):
        length = len(lines_a[i]) + len(lines_b[i])
        if not length:
            bound += 1.0
            continue
        other = chars_b[i]
        common = sum(min(n, other[c]) for c, n in chars_a[i].items() if c in other)
        distance = max(len(lines_a[i]), len(lines_b[i])) - common
        bound += (length - distance) / length
    return bound / compared > threshold - 1e-9


class Grouper:
    """The grouper cron's rule for two crashes of the same project."""

    def __init__(self, comparer, same_type: bool = False):
        self.comparer = comparer
        self.same_type = same_type
        self.same_frames = comparer.SAME_FRAMES_THRESHOLD
        self.threshold = comparer.COMPARE_THRESHOLD
        self.types: dict[tuple[str, str], bool] = {}
        self.profiles: dict[str, tuple] = {}

    def similar_types(self, type_a: str, type_b: str) -> bool:
        if (type_a, type_b) not in self.types:
            self.types[type_a, type_b] = self.comparer(type_a, type_b).is_similar()
        return self.types[type_a, type_b]

    def similar_states(self, state_a: str, state_b: str) -> bool:
        if state_a != state_b:
            for state in (state_a, state_b):
                if state not in self.profiles:
                    self.profiles[state] = _profile(state)
            if not _may_be_similar(self.profiles[state_a], self.profiles[state_b], self.same_frames, self.threshold):
                return False
        return self.comparer(state_a, state_b).is_similar()

    def similar(self, a: tuple[str, str, bool], b: tuple[str, str, bool]) -> bool:
        (type_a, state_a, sec_a), (type_b, state_b, sec_b) = a, b
        if sec_a != sec_b:
            return False
        if type_a in UNIQUE_STATE_TYPES or type_b in UNIQUE_STATE_TYPES:
            return type_a == type_b and state_a == state_b
        if self.same_type and type_a != type_b:
            return False
        if not sec_a and not self.similar_types(type_a, type_b):
            return False
        return self.similar_states(state_a, state_b)


def group(records: list[dict], same_type: bool = False) -> list[dict]:
    stack_analyzer, crash_analyzer, comparer = _load_clusterfuzz()
    rule = Grouper(comparer, same_type)

    # One node per distinct crash: (group, type, state, security), or, for an
    # empty state, (group, trace text).
    nodes: dict[tuple, int] = {}
    node_crash: list[tuple[str, str, bool] | None] = []
    node_group: list[object] = []
    rows = []
    with contextlib.redirect_stdout(sys.stderr):  # keep stdout for our JSON lines only
        for record in records:
            text = record.get("trace") or ""
            crash = analyse(text, stack_analyzer, crash_analyzer)
            ns = json.dumps(record.get("group"), sort_keys=True)
            key = (ns, "crash", *crash) if crash[1] else (ns, "text", text.strip())
            if key not in nodes:
                nodes[key] = len(node_crash)
                node_crash.append(crash if crash[1] else None)
                node_group.append(ns)
            rows.append((record.get("id"), crash, nodes[key]))

    parent = list(range(len(node_crash)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_group: dict[object, list[int]] = {}
    for node, crash in enumerate(node_crash):
        if crash is not None:
            by_group.setdefault(node_group[node], []).append(node)
    for members in by_group.values():
        for i, a in enumerate(members):
            for b in members[:i]:
                ra, rb = find(a), find(b)
                if ra != rb and rule.similar(node_crash[a], node_crash[b]):
                    parent[max(ra, rb)] = min(ra, rb)

    labels: dict[int, str] = {}
    out = []
    for record_id, (crash_type, crash_state, security), node in rows:
        cluster = labels.setdefault(find(node), f"cf{len(labels)}")
        out.append(
            {
                "id": record_id,
                "cluster": cluster,
                "crash_type": crash_type,
                "crash_state": crash_state,
                "security_flag": security,
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--same-type",
        action="store_true",
        help="fuzzy-group only crashes of equal crash type (the cron asks only for similar types)",
    )
    args = parser.parse_args(argv)
    records = [json.loads(line) for line in sys.stdin if line.strip()]
    for row in group(records, same_type=args.same_type):
        sys.stdout.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
