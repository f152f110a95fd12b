"""Python 3.11's exception groups: each sub-exception's traceback drawn in a box (crashes.traces.python).

Before their boxes were undone, every such crash was keyed on the line "+ Exception Group Traceback
(most recent call last):" alone: all of a project's exception-group crashes shared one bucket.
"""

from __future__ import annotations

from crashes import traces
from tests.crashes.signing import sign
from tests.traces import ROOT

# geldata/gel#6919 (https://github.com/geldata/gel/pull/6919), the server's traceback as posted: a
# TaskGroup's two sub-exceptions, then the exception they caused (cut by the page).
GEL = (ROOT / "exception_groups" / "gel_taskgroup_server.txt").read_text()

TASK_GROUP = """  + Exception Group Traceback (most recent call last):
  |   File "/app/main.py", line 30, in <module>
  |     asyncio.run(main())
  |   File "/usr/lib/python3.11/asyncio/runners.py", line 190, in run
  |     return runner.run(main)
  |   File "/app/main.py", line 25, in main
  |     async with asyncio.TaskGroup() as tg:
  |   File "/usr/lib/python3.11/asyncio/taskgroups.py", line 135, in __aexit__
  |     raise me from None
  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)
  +-+---------------- 1 ----------------
    | Traceback (most recent call last):
    |   File "/app/worker.py", line 12, in fetch
    |     data = parse(resp)
    |   File "/app/worker.py", line 40, in parse
    |     return payload["items"]
    | KeyError: 'items'
    +------------------------------------
"""


def test_the_sub_exception_is_the_crash():
    parsed = traces.parse(TASK_GROUP)
    assert (parsed.format, parsed.crash_type) == ("python", "KeyError")
    assert [frame.function for frame in parsed.frames] == ["parse", "fetch"]
    assert "exception group's boxes undone" in parsed.repairs
    gel = traces.parse(GEL)
    assert gel.crash_type == "ZeroDivisionError" and gel.frames[0].function == "err"


def test_two_exception_group_crashes_are_two_buckets():
    other = TASK_GROUP.replace('return payload["items"]', "return payload.items[0]").replace(
        "KeyError: 'items'", "IndexError: list index out of range"
    )
    assert sign(TASK_GROUP, "app").digest != sign(other, "app").digest
    # The same crash under another Python (other paths to the standard library) is one.
    moved = TASK_GROUP.replace("/usr/lib/python3.11/", "/opt/python3.12/lib/python3.12/")
    assert sign(moved, "app").digest == sign(TASK_GROUP, "app").digest


def test_the_sub_exceptions_order_says_nothing():
    # Two tasks failing in either order: one crash.
    def group(first: str, second: str) -> str:
        return (
            "  + Exception Group Traceback (most recent call last):\n"
            '  |   File "/app/main.py", line 25, in main\n'
            "  |     async with asyncio.TaskGroup() as tg:\n"
            "  | ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)\n"
            "  +-+---------------- 1 ----------------\n"
            + first
            + "    +---------------- 2 ----------------\n"
            + second
            + "    +------------------------------------\n"
        )

    key_error = (
        '    | Traceback (most recent call last):\n    |   File "/app/a.py", line 3, in fetch\n'
        "    |     return d['x']\n    | KeyError: 'x'\n"
    )
    value_error = (
        '    | Traceback (most recent call last):\n    |   File "/app/b.py", line 7, in parse\n'
        "    |     int(s)\n    | ValueError: invalid literal\n"
    )
    assert sign(group(key_error, value_error), "app").digest == sign(group(value_error, key_error), "app").digest
