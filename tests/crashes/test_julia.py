"""Julia's errors and stack traces (crashes.traces.julia), on real reports.

CUDA.jl's are in tests/data/dedup/llvm_elsewhere.jsonl, each record with its source; tests/traces/julia holds
Julia 1.6's layout (a fixture and its .meta, with its source).
"""

from __future__ import annotations

from crashes import traces
from crashes.traces import julia
from tests.crashes.signing import record_trace, sign, sign_record
from tests.traces import fixtures, read_as_recorded


def test_a_julia_16_stack_is_read_with_its_places_on_lines_of_their_own():
    for path in fixtures("julia"):
        meta, _, parsed = read_as_recorded(path)
        assert parsed.frames[0].function == meta["innermost"]
        # "top-level scope" names no function.
        assert all(frame.function != "top-level scope" for frame in parsed.frames)


def test_one_error_in_the_repl_and_in_a_test_sets_report_is_one_crash():
    # JuliaGPU/CUDA.jl#286 (closed as #190's duplicate): the error inside a test set's report, indented, with
    # its message above the stack and no type; #190 prints it after "ERROR:". Julia 1.5's frames end with
    # their place ("at …/context.jl:103", "[inlined]"); "macro expansion" names no function.
    repl, test_set = sign_record("JuliaGPU/CUDA.jl#190", "cuda"), sign_record("JuliaGPU/CUDA.jl#286", "cuda")
    assert repl.trace_format == test_set.trace_format == julia.FORMAT
    assert repl.crash_type == "LLVM error: Cannot cast between two non-generic address spaces"
    assert repl.frames == ("handle_error", "LLVMTargetMachineEmitToMemoryBuffer", "emit")
    assert repl.digest == test_set.digest


def test_arguments_closures_and_bases_raising_helpers_are_no_part_of_the_frames():
    text = (
        "ERROR: LoadError: BoundsError: attempt to access 2-element Vector{Int64} at index [3]\n"
        "Stacktrace:\n"
        "  [1] throw_boundserror(A::Vector{Int64}, I::Tuple{Int64})\n"
        "    @ Base ./abstractarray.jl:737\n"
        '  [2] (::var"#3#4")(x::Int64)\n'
        "    @ Main ~/a.jl:3\n"
        "  [3] #solve#12(kw::Int64, ::typeof(solve), p::Problem)\n"
        "    @ Solver ~/.julia/packages/Solver/AbCdE/src/solve.jl:40 [inlined]\n"
        "  [4] top-level scope\n"
        "    @ ~/a.jl:9\n"
    )
    parsed = traces.parse(text)
    assert parsed.crash_type == "BoundsError"
    assert [frame.function for frame in parsed.frames] == ["solve"]
    renumbered = text.replace("#solve#12", "#solve#31").replace("AbCdE", "XyZzY").replace("737", "802")
    assert sign(text).digest == sign(renumbered).digest


def test_what_is_no_julia_stack():
    # Another language's "Stacktrace:" header, a numbered list in prose, a Python traceback.
    assert not julia.recognize("Stacktrace:\n\tat a.B.c(B.java:1)\n")
    assert not julia.recognize("Steps:\n [1] open the file\n [2] save it\n")
    assert traces.parse(record_trace("pypy/pypy#3128")).format != julia.FORMAT
