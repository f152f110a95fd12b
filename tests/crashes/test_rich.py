"""Python tracebacks as Rich draws them (Typer's, Streamlit's, loggers'), on reports from public
trackers (tests/traces/rich/*.meta).

Before signature v8 no parser read them: the box's lines were one unparsed text, keyed by
whichever line first looked like a failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crashes import traces
from crashes.traces import rich
from crashes.traces.extract import clean
from tests.crashes.signing import sign as _sign
from tests.traces import ROOT, read_meta

FIXTURES = sorted((ROOT / "rich").glob("*.txt"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_a_rich_box_is_read_as_pythons_traceback(path: Path):
    meta, text = read_meta(path), path.read_text()
    assert meta["source"].startswith("https://")
    parsed = traces.parse(text)
    assert parsed.format == "python"
    assert parsed.crash_type == meta["exception"]
    assert parsed.frames[0].function == meta["innermost"]
    assert any(repair.endswith("Rich traceback read as Python's") for repair in clean(text).repairs)


def test_the_failing_source_line_and_only_it_follows_its_frame():
    # ignis-sh/ignis#279: seven source lines shown, "❱ 48" the one that ran; indent guides dropped.
    text = clean((ROOT / "rich" / "logged_box_cut.txt").read_text()).text
    assert '  File "/sda3/ignis/ignis/utils/thread.py", line 48, in <lambda>\n' in text
    assert '\n    self.connect("finished", lambda x, result: callback(result))\n' in text
    assert "self._callback = callback" not in text and "│" not in text


def _boxed(lines: list[str], width: int) -> str:
    inner = width - 4
    top = "╭" + " Traceback (most recent call last) ".center(width - 2, "─") + "╮"
    return "\n".join([top, *(f"│ {line:<{inner}} │" for line in lines), "╰" + "─" * (width - 2) + "╯"])


def test_a_path_folded_by_a_narrow_box_is_read_whole():
    # As a box 60 columns wide folds ignis#279's first frame; its locals box is no frame.
    path = "/home/user/.local/share/venvs/ignis/lib/python3.13/site-packages/ignis/utils/thread.py:48 in <lambda>"
    folded = [path[i : i + 56] for i in range(0, len(path), 56)]
    locals_box = ["╭──── locals ────╮", "│ x = 'a.py:3 in f' │", "╰────────────────╯"]
    text = _boxed([*folded, "", "❱ 48 │   self.connect()", "", *locals_box], 60) + "\nTypeError: boom\n"
    parsed = traces.parse(text)
    assert parsed.crash_type == "TypeError"
    assert [(f.file, f.line, f.function) for f in parsed.frames] == [
        ("/home/user/.local/share/venvs/ignis/lib/python3.13/site-packages/ignis/utils/thread.py", 48, "<lambda>")
    ]


def test_streamlits_box_without_sides_is_read_too():
    # Streamlit draws a rule above and below and a margin of two blanks (its Cloud log puts a
    # blank after every line, which may fall inside a folded path).
    text = (
        "────────────── Traceback (most recent call last) ──────────────\n\n"
        "  /home/adminuser/venv/lib/python3.13/site-packages/streamlit/runtime/scriptru  \n\n"
        "  nner/exec_code.py:129 in exec_func_with_error_handling  \n\n"
        "  /mount/src/app/streamlit_app.py:71 in <module>  \n\n"
        "  ❱ 71 │   model.predict(x)  \n\n"
        "────────────────────────────────────────────────────────────────\n"
        "ValueError: bad shape\n"
    )
    parsed = traces.parse(text)
    assert parsed.crash_type == "ValueError"
    assert [f.function for f in parsed.frames] == ["<module>", "exec_func_with_error_handling"]
    assert parsed.frames[1].file.endswith("streamlit/runtime/scriptrunner/exec_code.py")


def test_text_without_a_rich_box_is_left_alone():
    for text in (
        "│ a table │ of │ cells │\n│ x.py:1 in f │\n",
        "Traceback (most recent call last) ─ a rule in prose\n",
    ):
        assert rich.render(text) == (text, "")


def test_one_bug_drawn_by_rich_and_printed_by_cpython_is_one_bucket():
    # The same frames and exception as CPython prints them, and as Rich draws them.
    plain = (
        "Traceback (most recent call last):\n"
        '  File "/app/cli.py", line 9, in main\n    run()\n'
        '  File "/app/jobs.py", line 31, in run\n    total += item\n'
        "TypeError: unsupported operand type(s) for +=: 'int' and 'str'\n"
    )
    drawn = (
        _boxed(
            ["/app/cli.py:9 in main", "", "❱ 9 │   run()", "", "/app/jobs.py:31 in run", "", "❱ 31 │   total += item"],
            70,
        )
        + "\nTypeError: unsupported operand type(s) for +=: 'int' and 'str'\n"
    )
    assert _sign(plain).digest == _sign(drawn).digest


@pytest.mark.parametrize(
    "folded",
    [
        ["/srv/app/lib/long_package_name/handlers/module.py:1234 in", "inner"],  # at the blank before the name
        ["/srv/app/lib/long_package_name/handlers/module.py:12", "34 in inner"],  # inside the number
        ["/srv/app/lib/long_package_name/handlers/module.py:1234", "in inner"],  # at the blank before "in"
    ],
)
def test_a_location_folded_at_any_point_keeps_its_frame(folded):
    text = (
        _boxed(["/srv/app/main.py:6 in main", "", "❱ 6 │   run()", "", *folded, "", "❱ 1234 │   return d[k]"], 62)
        + "\nKeyError: 'k'\n"
    )
    frames = traces.parse(text).frames
    assert [(f.file, f.line, f.function) for f in frames] == [
        ("/srv/app/lib/long_package_name/handlers/module.py", 1234, "inner"),
        ("/srv/app/main.py", 6, "main"),
    ]
