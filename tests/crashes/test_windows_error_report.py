"""Windows Error Reporting's problem signature and the event log's Application Error
(crashes.traces.windows_error_report)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import windows_error_report
from tests.crashes.signing import sign
from tests.traces import read_report

# The same crash as the event log reports it (what notepad-plus-plus#3518's problem signature names).
EVENT_LOG = """Faulting application name: notepad++.exe, version: 7.4.1.0, time stamp: 0x591ce479
Faulting module name: notepad++.exe, version: 7.4.1.0, time stamp: 0x591ce479
Exception code: 0xc0000005
Fault offset: 0x00063b8a
Faulting process id: 0x1f2c
"""


def test_a_problem_signature_is_keyed_by_the_faulting_module_its_version_and_offset():
    # notepad-plus-plus#3518: the problem details a user copied (tab-separated, cut where the excerpt was).
    text = read_report("v21/problem_signature_notepad_plus_plus_3518")
    parsed = traces.parse(text)
    assert parsed.format == windows_error_report.FORMAT
    assert parsed.crash_type == "0xc0000005 access violation"
    assert parsed.context == ("notepad++.exe: notepad++.exe 7.4.1.0 +0x63b8a",)
    # The event log's wording of the same fault is the same key; the application's time stamp and the
    # "Additional Information" hashes are one machine's.
    assert sign(EVENT_LOG, "notepad-plus-plus").digest == sign(text, "notepad-plus-plus").digest
    # Another offset, or the same offset in another build of the module, is another place.
    assert sign(EVENT_LOG.replace("0x00063b8a", "0x00063c00")).digest != sign(EVENT_LOG).digest
    assert sign(EVENT_LOG.replace("version: 7.4.1.0, time", "version: 7.4.2.0, time")).digest != sign(EVENT_LOG).digest
    # Another application of the target faulting at the same place is another crash.
    updater = EVENT_LOG.replace("application name: notepad++.exe", "application name: gup.exe")
    assert updater != EVENT_LOG and sign(updater).digest != sign(EVENT_LOG).digest


def test_an_exception_raised_through_the_system_names_no_place():
    # A .NET exception (0xe0434352) faults in KernelBase's RaiseException whatever threw it: no key of its own.
    managed = EVENT_LOG.replace(
        "Faulting module name: notepad++.exe, version: 7.4.1.0",
        "Faulting module name: KERNELBASE.dll, version: 10.0.19041.1",
    ).replace("0xc0000005", "0xe0434352")
    parsed = traces.parse(managed)
    assert parsed.format == windows_error_report.FORMAT and parsed.context == ()
    assert parsed.crash_type == "0xe0434352"


def test_the_german_event_log_and_the_dialogs_own_layout_are_read():
    # notepad-plus-plus#12743: "Name des fehlerhaften Moduls", "Ausnahmecode", "Fehleroffset".
    german = traces.parse(read_report("v21/event_log_german_notepad_plus_plus_12743"))
    assert german.context == ("notepad++.exe: notepad++.exe 8.4.8.0 +0x203220",)
    assert german.crash_type == "0xc000041d"
    # PCSX2/pcsx2#24: a plugin faulting ("Fault Module Name: GSdx32-AVX.dll"), its offset laid out as
    # "Exception: Offset 000427fb".
    plugin = traces.parse(read_report("v21/problem_signature_pcsx2_24"))
    assert plugin.context == ("pcsx2.exe: gsdx32-avx.dll 1.0.1.9 +0x427fb",)


def test_a_stack_beside_the_problem_signature_is_read_first():
    windbg = "00 0000004f`9b4ff5a8 00007ff6`00001000 App!Parser::parse_header+0x2a\n" * 2
    assert traces.parse(EVENT_LOG + "\n" + windbg).format != windows_error_report.FORMAT
    assert not windows_error_report.recognize("Exception code: 0xc0000005\n")
