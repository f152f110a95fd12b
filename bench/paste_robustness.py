"""Does a report keep its signature when it is pasted another way? Real reports, pasted again.

Two people reporting one crash paste it differently: one quotes it in a
mail reply, one pastes it into a list item, one's terminal pads every line
with blanks or cuts it at 80 columns. Each form below is applied to every
report of the dedup corpus (tests/data/dedup) that is signed by its stack
(a report already keyed on a line of text, or alone, has less to lose), and
the bench counts the reports whose digest moved and, of those, the ones
the fuzzy stage would still put in the original's bucket (as ingest does:
crashes.similarity against the bucket's shape, at its threshold). A report
neither keeps is a duplicate bucket that a user would have to merge by hand.

The forms are how text is pasted, not how crashes differ: no form changes
a character of the trace's own content. Rules are tuned on the dev split's
figures only (tests/data/dedup_split.json); the test split's are printed
for the record.

    .venv/bin/python bench/paste_robustness.py [--quick] [--show FORM]

--quick runs the dev split alone. Last line:
paste_stable dev=<x> test=<y> worst=<form>
(the share of stack-signed reports that every form leaves in their bucket,
by digest or by the fuzzy stage, and the form that loses the most).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from dedup_quality import SPLIT, load_corpus, split_of  # noqa: E402

from crashes import signatures, similarity  # noqa: E402


def _lines(text: str, change) -> str:
    return "\n".join(change(line) for line in text.split("\n"))


def _hard_wrap(text: str, width: int) -> str:
    return "\n".join(line[i : i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width))


def _list_item(text: str) -> str:
    first, _, rest = text.partition("\n")
    return "- " + first + ("\n" + _lines(rest, lambda line: "  " + line) if rest else "")


FORMS = {
    "quoted": lambda text: _lines(text, lambda line: "> " + line),
    "quoted twice": lambda text: _lines(text, lambda line: "> > " + line),
    "code block": lambda text: _lines(text, lambda line: "    " + line),
    "tab indented": lambda text: _lines(text, lambda line: "\t" + line),
    "list item": _list_item,
    "fenced in prose": lambda text: "It crashed:\n\n```\n" + text + "\n```\n\nThanks!",
    "after a prompt": lambda text: "$ ./build.sh --release\n" + text,
    "CRLF": lambda text: text.replace("\n", "\r\n"),
    "padded lines": lambda text: _lines(text, lambda line: line + "   "),
    # A browser's or terminal's copy leaving one blank at each line's end.
    "a blank after each line": lambda text: _lines(text, lambda line: line + " "),
    # A console padding every line to its width (Windows, tmux's copy mode).
    "padded to 80": lambda text: _lines(text, lambda line: line.ljust(80)),
    # A log's line heads: Docker Compose's service column, a logger's timestamp and level.
    "compose log": lambda text: _lines(text, lambda line: "web_1  | " + line),
    "timestamped log": lambda text: _lines(text, lambda line: "2024-03-07 14:02:11,532 ERROR " + line),
    # A structured logger's line (zap's "stacktrace", a JSON handler's "exc_info"): the trace an escaped string.
    "in a JSON log": lambda text: json.dumps({"level": "error", "msg": "request failed", "stacktrace": text}),
    # Another tracker's or a forum's markup glued to the first and last lines (a migrated issue's HTML).
    "in <pre> tags": lambda text: "<pre>" + text + "</pre>",
    # A copy from a rendered page (a chat, a mail) turns runs of blanks into non-breaking spaces.
    "non-breaking blanks": lambda text: text.replace("  ", "\u00a0\u00a0"),
    # A terminal's colours, and the same copied from a CI log that dropped their escape characters.
    "coloured": lambda text: _lines(text, lambda line: "\x1b[0m\x1b[1m" + line + "\x1b[0m" if line else line),
    "coloured, escapes lost": lambda text: _lines(text, lambda line: "[0m[1m" + line + "[0m" if line else line),
    "wrapped at 80": lambda text: _hard_wrap(text, 80),
    "wrapped at 120": lambda text: _hard_wrap(text, 120),
}


def moved_by_form(records: list[dict]) -> tuple[int, dict[str, list[dict]], int]:
    """Stack-signed reports, those each form moved, and how many every form left in their bucket."""
    moved: dict[str, list[dict]] = {form: [] for form in FORMS}
    signed = stable = 0
    for record in records:
        base = signatures.compute(kind="crash", trace_text=record["trace"], target=record["project"])
        if base.method != "stack":
            continue
        signed += 1
        survived = True
        for form, paste in FORMS.items():
            again = signatures.compute(kind="crash", trace_text=paste(record["trace"]), target=record["project"])
            if again.digest == base.digest:
                continue
            score = similarity.similarity(similarity.shape_of(again), similarity.shape_of(base)).score
            joined = score >= similarity.THRESHOLD
            moved[form].append({"id": record["id"], "format": base.trace_format, "was": base.title, "joined": joined})
            survived = survived and joined
        stable += survived
    return signed, moved, stable


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="the dev split only")
    parser.add_argument("--show", metavar="FORM", help="list the dev reports FORM moved")
    args = parser.parse_args()
    split = json.loads(SPLIT.read_text())
    parts = {"dev": [], "test": []}
    for record in load_corpus():
        parts[split_of(record["project"], split)].append(record)
    shares, worst = {}, Counter()
    for name in ("dev",) if args.quick else ("dev", "test"):
        signed, moved, stable = moved_by_form(parts[name])
        shares[name] = stable / signed if signed else float("nan")
        print(f"\n== {name}: {signed} stack-signed reports, {stable} stay in their bucket in every form")
        print(f"  {'form':16} {'moved':>5} {'lost':>5}  lost by format")
        for form, reports in moved.items():
            lost = [report for report in reports if not report["joined"]]
            formats = Counter(report["format"] for report in lost)
            print(
                f"  {form:16} {len(reports):5d} {len(lost):5d}  "
                + " ".join(f"{f}={n}" for f, n in formats.most_common())
            )
            if name == "dev":
                worst[form] = len(lost)
        if args.show and name == "dev":
            for report in moved.get(args.show, []):
                joined = "joined" if report["joined"] else "lost"
                print(f"    {report['id']:48} {report['format']:10} {joined:6} {report['was'][:60]}")
    form = worst.most_common(1)[0][0] if worst else "-"
    print(
        f"paste_stable dev={shares['dev']:.3f} test={shares.get('test', float('nan')):.3f} "
        f"worst={form.replace(' ', '_')}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
