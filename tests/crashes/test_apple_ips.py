"""macOS's JSON crash reports (crashes.traces.apple_ips), read as the text reports are (crashes.traces.apple)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import apple, apple_ips
from tests.crashes.signing import sign
from tests.traces import ROOT

# The shape of an .ips report: its header line, then the report (shortened to what is read).
IPS = """{"app_name":"SameBoy","app_version":"0.15.8","bug_type":"309","os_version":"macOS 14.2 (23C64)"}
{
  "exception" : {"codes":"0x0000000000000001, 0x0000000000000000","rawCodes":[1,0],"type":"EXC_BAD_ACCESS","signal":"SIGSEGV","subtype":"KERN_INVALID_ADDRESS at 0x0000000000000000"},
  "faultingThread" : 1,
  "threads" : [{"id":31450814,"frames":[{"imageOffset":25631,"symbol":"start","symbolLocation":1903,"imageIndex":1}]},{"triggered":true,"id":31451602,"threadState":{"x":[{"value":0}]},"frames":[{"imageOffset":1234,"symbol":"GB_run","symbolLocation":44,"imageIndex":0,"sourceFile":"gb.c","sourceLine":120},{"imageOffset":2234,"symbol":"-[Document run]","symbolLocation":12,"imageIndex":0},{"imageOffset":8444,"symbol":"thread_start","symbolLocation":8,"imageIndex":2}]}],
  "usedImages" : [{"source":"P","arch":"arm64","name":"SameBoy"},{"source":"P","arch":"arm64e","name":"dyld"},{"source":"P","arch":"arm64e","name":"libsystem_pthread.dylib"}]
}"""  # noqa: E501

# The same crash as macOS 11 reported it, in the text form.
TEXT = """Exception Type:        EXC_BAD_ACCESS (SIGSEGV)
Exception Codes:       KERN_INVALID_ADDRESS at 0x0000000000000000

Thread 1 Crashed:
0   SameBoy                       0x0000000100a04d2 GB_run + 44 (gb.c:120)
1   SameBoy                       0x0000000100a08ba -[Document run] + 12
2   libsystem_pthread.dylib       0x00007ff80a1e20fc thread_start + 8
"""


def test_the_faulting_threads_frames_and_the_signal_as_the_text_report_gives_them():
    parsed = traces.parse(IPS)
    assert (parsed.format, parsed.crash_type) == (apple.FORMAT, "SIGSEGV")
    assert [(frame.function, frame.module) for frame in parsed.frames][:2] == [
        ("GB_run", "SameBoy"),
        ("-[Document run]", "SameBoy"),
    ]
    assert sign(IPS).digest == sign(TEXT).digest


def test_a_report_cut_inside_its_json_is_read_field_by_field():
    cut = IPS[: IPS.index('"usedImages"') + 60]
    assert traces.parse(cut).crash_type == "SIGSEGV"
    assert sign(cut).frames[:2] == sign(IPS).frames[:2]
    # LIJI32/SameBoy#571, as posted: cut inside the threads before the faulting one (thread 3).
    real = (ROOT / "apple_ips" / "sameboy_cut_threads.txt").read_text()
    assert apple_ips.recognize(real)
    assert traces.parse(real).frames == ()


def test_nesting_past_what_the_decoder_follows_is_no_crash():
    hostile = '"threads" "imageOffset" "frames":[{"a":' + "[" * 200_000
    assert traces.parse(hostile).format == apple.FORMAT
