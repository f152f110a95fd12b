"""ClusterFuzz's crash summary (OSS-Fuzz's issues) is read as the sanitizer report it stands for (signature v19):
its crash state is the report's top frames, its crash type the sanitizer's, so the summary an issue quotes
and the report pasted below it are one bucket.

assimp/assimp#4230 (tests/data/dedup) is such an issue; before v19 every one was keyed by its "Crash Type:"
line alone, which every heap overflow of a project shares.
"""

from __future__ import annotations

import pytest

from crashes.traces import clusterfuzz
from tests.crashes.signing import sign, sign_record

_SUMMARY = (
    "Fuzz Target: libyaml_emitter_fuzzer\nJob Type: libfuzzer_asan_libyaml\n\n"
    "Crash Type: Heap-buffer-overflow READ 4\nCrash Address: 0x602000000f94\nCrash State:\n"
    "  yaml_emitter_emit_flow_mapping_key\n  yaml_emitter_emit\n  yaml_emitter_dump_node\n  \n"
    "Sanitizer: address (ASAN)\n"
)
_REPORT = (
    "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000f94 at pc 0x1 bp 0x2 sp 0x3\n"
    "READ of size 4 at 0x602000000f94 thread T0\n"
    "    #0 0x576847 in yaml_emitter_emit_flow_mapping_key /src/libyaml/src/emitter.c:810:27\n"
    "    #1 0x56b0a8 in yaml_emitter_emit /src/libyaml/src/emitter.c:300:15\n"
    "    #2 0x56b0a9 in yaml_emitter_dump_node /src/libyaml/src/dumper.c:300:15\n"
    "    #3 0x56b0aa in LLVMFuzzerTestOneInput /src/libyaml_emitter_fuzzer.c:30:15\n"
)


def test_the_summary_and_the_report_are_one_bucket():
    summary, report = sign(_SUMMARY, "libyaml"), sign(_REPORT, "libyaml")
    assert summary.frames == ("yaml_emitter_emit_flow_mapping_key", "yaml_emitter_emit", "yaml_emitter_dump_node")
    assert summary.digest == report.digest


def test_a_real_issues_summary_is_keyed_by_its_state():
    signed = sign_record("assimp/assimp#4230")
    assert signed.crash_type == "heap-buffer-overflow READ"
    assert signed.frames[0] == "Assimp::BaseImporter::ConvertToUTF8"


@pytest.mark.parametrize(
    ("summary", "kind"),
    [
        ("Heap-buffer-overflow READ 4", "heap-buffer-overflow READ"),
        ("Stack-buffer-overflow WRITE {*}", "stack-buffer-overflow WRITE"),
        ("Null-dereference READ", "SEGV"),
        ("Segv on unknown address", "SEGV"),
        ("Stack-overflow", "stack-overflow"),
    ],
)
def test_clusterfuzzs_crash_types_are_the_sanitizers(summary, kind):
    assert clusterfuzz.crash_type(summary) == kind
