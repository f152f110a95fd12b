"""The Swift runtime's trap lines (signature v22), on real reports (tests/traces/v22).

SwiftLint's one sourcekitd failure (realm/SwiftLint#1466; #2236 closed as its duplicate, #3447 the same cause)
printed by three Swift releases three ways: Swift 3's "fatal error: …: file F, line N", Swift 4's "Fatal error: …:
file F, line N" with another line number, a relative file. Before v22 each line was the key as printed.
"""

from __future__ import annotations

from crashes import traces
from tests.crashes.signing import sign
from tests.traces import read_report


def test_a_trap_is_its_message_and_file_however_swift_printed_it():
    signed = [
        sign(read_report(f"v22/{name}"), "realm/SwiftLint")
        for name in (
            "swift_trap_swift3_swiftlint_1466",
            "swift_trap_swift4_swiftlint_2236",
            "swift_trap_relative_swiftlint_3447",
        )
    ]
    assert {s.trace_format for s in signed} == {"swift"}
    assert signed[0].crash_type == "Loading sourcekitd.framework<path> failed"
    assert signed[0].frames == ("site library_wrapper.swift",)
    assert len({s.digest for s in signed}) == 1
    # Swift 5.3's form, quoted in a sentence: the message ends at the closing quote.
    quoted = traces.parse('I got "Sources/App/Store.swift:31: Fatal error: Store is gone", when I ran it.\n')
    assert (quoted.format, quoted.message, quoted.site) == ("swift", "Store is gone", "Store.swift")


def test_a_stock_trap_keeps_its_line_and_the_standard_librarys_names_no_place():
    one = sign("App/Model.swift:12: Fatal error: Unexpectedly found nil while unwrapping an Optional value\n", "app")
    other = sign("App/Model.swift:99: Fatal error: Unexpectedly found nil while unwrapping an Optional value\n", "app")
    assert one.frames == ("site Model.swift:12",) and one.digest != other.digest
    # tuist/tuist#5115's trap line: Swift/Dictionary.swift is the standard library's own file, as older releases'
    # ".../swift/stdlib/public/core/…" paths are.
    for line in (
        "Swift/Dictionary.swift:826: Fatal error: Dictionary literal contains duplicate keys\n",
        "Fatal error: Dictionary literal contains duplicate keys: file /BuildRoot/Library/Caches/com.apple.xbs/Sources"
        "/swiftlang/swiftlang-1001.0.82.4/swift/stdlib/public/core/Dictionary.swift, line 826\n",
    ):
        parsed = traces.parse(line)
        assert (parsed.format, parsed.crash_type, parsed.site) == (
            "swift",
            "Dictionary literal contains duplicate keys",
            "",
        )
    # With the swift driver's crash report around it (#5106, #5115), LLVM's stack dump is read, as before.
    first = sign(read_report("v22/swift_stdlib_trap_tuist_5106"), "tuist")
    assert first.digest == sign(read_report("v22/swift_stdlib_trap_tuist_5115"), "tuist").digest
    # A C compiler's "fatal error: x.h: No such file or directory" is no Swift trap.
    c_compiler = traces.parse("main.c:1:10: fatal error: x.h: No such file or directory\n")
    assert c_compiler is None or c_compiler.format != "swift"
