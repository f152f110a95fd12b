"""MSVC's internal compiler errors (C1001) are read (signature v19): the compiler's file and line where it
gave up and the user's file it was compiling, keyed within the target (a few of the compiler's places are
its catch-all, reported by many bugs).

The fixtures (tests/traces/msvc_ice) are real reports from vcpkg's tracker: the back end's p2\\main.c and
Visual Studio 2017's front end at msc1.cpp, line 1518.
"""

from __future__ import annotations

import pytest

from tests.crashes.signing import sign
from tests.traces import fixtures, read_as_recorded

FIXTURES = fixtures("msvc_ice")


@pytest.mark.parametrize("trace", FIXTURES, ids=lambda path: path.stem)
def test_the_compilers_place_and_the_users_file_are_the_key(trace):
    meta, text, _ = read_as_recorded(trace)
    assert sign(text, "vcpkg").frames == tuple(meta["key"].split("|"))


def test_the_same_ice_from_another_build_and_log_is_one_bucket():
    # vcpkg#23011's CI log of the same ICE (vcpkg#19561): other paths, a log's line head, another line.
    text = next(path for path in FIXTURES if path.stem == "opennurbs_p2_main").read_text()
    ci = (
        "2022-02-12T10:11:12.000Z  D:\\a\\1\\b\\pcl\\src\\3rdparty\\opennurbs\\opennurbs_lookup.cpp(671): "
        "fatal error C1001: Internal compiler error.\n"
        "2022-02-12T10:11:12.000Z  (compiler file 'D:\\a\\_work\\1\\s\\src\\vctools\\Compiler\\Utc\\src\\p2\\main.c', "
        "line 217)\n"
    )
    assert sign(ci, "vcpkg").digest == sign(text, "vcpkg").digest
    assert sign(ci, "another-project").digest != sign(text, "vcpkg").digest
