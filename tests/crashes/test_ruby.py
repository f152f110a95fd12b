"""Ruby's exceptions (crashes.traces.ruby), on CocoaPods' crash reports (tests/traces/ruby)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crashes import traces
from crashes.traces import ruby
from tests.crashes.signing import sign
from tests.traces import ROOT, fixtures, read_as_recorded

FIXTURES = fixtures("ruby")


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_the_exception_and_the_first_frame_by_file_and_method(path: Path):
    meta, text, _ = read_as_recorded(path)
    assert sign(text).frames[0] == meta["innermost"]


def test_a_blocks_nesting_and_rubys_iterators_are_no_part_of_the_frames():
    # CocoaPods#2614: "in `block in repo_information'", then "in `map'" (Array#map running the block).
    text = (ROOT / "ruby" / "cocoapods_repo_information.txt").read_text()
    assert sign(text).frames == (
        "error_report.rb:repo_information",
        "error_report.rb:report",
        "command.rb:report_error",
    )


def test_one_crash_on_another_ruby_and_ruby_34s_quotes_is_one_bucket():
    text = (ROOT / "ruby" / "cocoapods_add_dependency_report.txt").read_text()
    moved = text.replace("/Library/Ruby/Gems/1.8/gems/cocoapods-0.22.0/", "/opt/ruby/3.4/gems/cocoapods-0.22.1/")
    quoted = moved.replace("`add_dependency'", "'Pod::Installer#add_dependency'")
    assert sign(moved).digest == sign(text).digest
    assert sign(quoted).digest == sign(text).digest
    # Homebrew's form: a message alone, then bare frames.
    brew = "Error: undefined method `name' for nil:NilClass\n" + "\n".join(text.split("\n")[4:7])
    assert traces.parse(brew).format == ruby.FORMAT and traces.parse(brew).crash_type == ""
    assert not ruby.recognize("see lib/x.rb:12:in `foo' for details\n")


def test_windows_paths_ruby_27s_numbered_stack_and_3_1s_excerpt():
    windows = "C:/app/x.rb:2:in `inner': boom (RuntimeError)\n\tfrom C:/app/x.rb:5:in `outer'\n"
    assert [frame.function for frame in traces.parse(windows).frames] == ["x.rb:inner", "x.rb:outer"]
    # Ruby 2.5-2.7: Python's header, the frames outermost first, numbered down to the raising line.
    numbered = (
        "Traceback (most recent call last):\n\t2: from x.rb:9:in `<main>'\n\t1: from x.rb:5:in `outer'\n"
        "x.rb:2:in `inner': boom (RuntimeError)\n"
    )
    parsed = traces.parse(numbered)
    assert (parsed.format, parsed.crash_type) == (ruby.FORMAT, "RuntimeError")
    assert [frame.function for frame in parsed.frames] == ["x.rb:inner", "x.rb:outer", "x.rb:<main>"]
    # Ruby 3.1 shows the failing expression between the first frame and the rest.
    excerpt = (
        "x.rb:2:in `inner': undefined method `foo' for nil (NoMethodError)\n\n  a.foo\n   ^^^^\n"
        "\tfrom x.rb:5:in `outer'\n\tfrom x.rb:9:in `<main>'\n"
    )
    assert sign(excerpt).frames == sign(numbered.replace("boom (RuntimeError)", "x (NoMethodError)")).frames


def test_rubys_own_crash_report_is_read_by_its_c_backtrace():
    # ohler55/oj#142: "[BUG] Segmentation fault", Ruby's frames, then its C backtrace: the crash is native.
    from tests.crashes.signing import sign_record

    assert sign_record("ohler55/oj#142").trace_format == "glibc-backtrace"
