"""The stdlib-only client against a running server (live_server, real HTTP)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fuzzweb.tokens import api_token_create
from tests.conftest import user_in_group
from triage.models import Bucket, Finding

pytestmark = pytest.mark.django_db(transaction=True)

CLIENT = Path(__file__).resolve().parents[2] / "triage" / "client" / "fuzzweb_client.py"
TRACES = Path(__file__).resolve().parents[1] / "traces"


def run_client(live_server, token, *args, cwd=None):
    # Run from an empty directory with `python -I`: the client must work as a
    # lone file copied to a fuzzing machine, importing nothing of fuzzweb.
    return subprocess.run(
        [sys.executable, "-I", str(CLIENT), "--url", live_server.url, "--token", token, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


@pytest.fixture
def token(django_user_model):
    user = user_in_group(django_user_model, "fuzzbox", "triager")
    return api_token_create(user=user, name="fuzz box")[1]


def test_libfuzzer_crash_directory_is_submitted_and_bucketed(live_server, token, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    # Two crashes of one bug (same report, other addresses), one of another
    # bug, a leak, and a file that is not a finding.
    asan = (TRACES / "sanitizer/asan_heap_use_after_free_mxml_get_first_child.txt").read_text()
    other = (TRACES / "sanitizer/asan_global_buffer_overflow_pbc_wmessage_string.txt").read_text()
    leak = (TRACES / "sanitizer/lsan_detected_memory_leaks_hackem_kick.txt").read_text()
    files = {
        "crash-1a2b": (b"\x00\xff first input", asan),
        "crash-3c4d": (b"\x01\xfe second input", asan.replace("0x60200000", "0x61900000")),
        "crash-5e6f": (b"<xml>", other),
        "leak-7a8b": (b"leaky", leak),
    }
    for name, (data, trace) in files.items():
        (out / name).write_bytes(data)
        (out / f"{name}.log").write_text(trace)
    (out / "fuzz-0.log").write_text("INFO: Seed: 1\n")

    result = run_client(
        live_server,
        token,
        "dir",
        str(out),
        "--target",
        "mxml",
        "--engine",
        "libfuzzer",
        "--language",
        "xml",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "stored=4 new_buckets=3 duplicates=0 rejected=0" in result.stdout
    assert Finding.objects.count() == 4
    assert Bucket.objects.count() == 3
    bucket = Bucket.objects.get(hit_count=2)
    assert bucket.crash_type == "heap-use-after-free READ"
    first = Finding.objects.get(metadata__file="crash-1a2b")
    assert bytes(first.testcase_bytes) == b"\x00\xff first input"
    assert (first.engine, first.testcase_language) == ("libfuzzer", "xml")

    again = run_client(live_server, token, "dir", str(out), "--target", "mxml", cwd=tmp_path)
    assert "stored=4 new_buckets=0 duplicates=4" in again.stdout
    assert Finding.objects.get(metadata__file="crash-1a2b").hit_count == 2


def test_run_option_reproduces_each_testcase_for_its_trace(live_server, token, tmp_path):
    target = tmp_path / "target.py"
    target.write_text(
        "import sys\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "def parse(data):\n"
        "    if data.startswith(b'A'):\n"
        "        return {}['missing']\n"
        "    return 1 // 0\n"
        "parse(data)\n"
    )
    crashes = tmp_path / "crashes"
    crashes.mkdir()
    for name, data in {"crash-a1": b"AAA", "crash-a2": b"AB", "crash-b1": b"zzz"}.items():
        (crashes / name).write_bytes(data)
    result = run_client(
        live_server,
        token,
        "dir",
        str(crashes),
        "--target",
        "pyparse",
        "--run",
        f"{sys.executable} {target} {{testcase}}",
    )
    assert result.returncode == 0, result.stderr
    assert sorted(Bucket.objects.values_list("title", "hit_count")) == [
        ("KeyError in parse", 2),
        ("ZeroDivisionError in parse", 1),
    ]
    assert Finding.objects.filter(reproducer__contains=str(target)).count() == 3


def test_jsonl_and_single_submit(live_server, token, tmp_path):
    lines = tmp_path / "findings.jsonl"
    records = [
        {"kind": "crash", "target": "kt", "trace": (TRACES / "jvm/noclassdeffound_caused_by.txt").read_text()},
        {"kind": "timeout", "target": "kt", "stage": "compile", "testcase": "fun main() = loop()"},
        {"kind": "bogus", "target": "kt"},
    ]
    lines.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    result = run_client(live_server, token, "jsonl", str(lines))
    assert result.returncode == 1  # one rejected
    assert "stored=2" in result.stdout and "rejected=1" in result.stdout
    assert "kind" in result.stderr

    trace = tmp_path / "gdb.txt"
    trace.write_text((TRACES / "gdb/segv_single_frame_main.txt").read_text())
    result = run_client(live_server, token, "submit", "--target", "c-jwt", "--trace-file", str(trace))
    assert result.returncode == 0, result.stderr
    assert Bucket.objects.filter(crash_type="SIGSEGV").exists()


def test_bad_token_and_unreachable_server_are_clear_errors(live_server, tmp_path):
    result = run_client(live_server, "fzw_wrong", "submit", "--target", "x", "--message", "boom")
    assert result.returncode == 2
    assert "authentication failed" in result.stderr
    unreachable = subprocess.run(
        [
            sys.executable,
            "-I",
            str(CLIENT),
            "--url",
            "http://127.0.0.1:9/",
            "--token",
            "t",
            "submit",
            "--target",
            "x",
            "--message",
            "boom",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert unreachable.returncode == 2
    assert "cannot reach" in unreachable.stderr
