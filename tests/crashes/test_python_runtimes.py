"""Python crashes as the interpreter's other printers and Windows installs show them (signature v18).

faulthandler dumps every thread and marks the one that faulted; a process pool sends a worker's
traceback back and the parent raises it again; Windows keeps the standard library in the install's
Lib folder. The forms are those of public reports, named at each test; the texts are written as
CPython prints them.
"""

from __future__ import annotations

from crashes import signatures
from crashes.traces import faulthandler, parse
from tests.crashes.signing import sign, sign_record
from tests.traces import read_report


def _sign(text: str):
    return signatures.compute(kind="crash", trace_text=text, target="t")


_WAITING = (
    'File "/opt/conda/envs/g/lib/python3.10/threading.py", line 324 in wait\n'
    'File "/opt/conda/envs/g/lib/python3.10/site-packages/tensorboard/summary/writer/event_file_writer.py",'
    " line 269 in _run\n"
    'File "/opt/conda/envs/g/lib/python3.10/threading.py", line 1016 in _bootstrap_inner\n'
)
_FAULTED = (
    'File "/home/u/Genesis-backflip/reward_wrapper.py", line 88 in _reward_feet_air_time\n'
    'File "/home/u/Genesis-backflip/env.py", line 498 in compute_reward\n'
)


def test_faulthandlers_current_thread_is_the_crash_wherever_it_is_dumped():
    # Genesis-Embodied-AI/genesis-world#492 and ziyanx02/Genesis-backflip#2: one segfault, the dump
    # listing tensorboard's writer thread (waiting in queue.get) before the "Current thread"; the
    # File lines pasted without their two blanks.
    dump = (
        "Fatal Python error: Segmentation fault\n\n"
        "Thread 0x00007f9fb1cff700 (most recent call first):\n\n"
        f"Thread 0x00007fa040e2b700 (most recent call first):\n{_WAITING}\n"
        f"Current thread 0x00007fa2972464c0 (most recent call first):\n{_FAULTED}"
    )
    parsed = parse(dump)
    assert parsed.format == faulthandler.FORMAT
    assert [frame.function for frame in parsed.frames] == ["_reward_feet_air_time", "compute_reward"]

    # The same crash dumped with the writer thread after it, and indented as printed, is one bucket.
    def indented(frames: str) -> str:
        return "".join(f"  {line}\n" for line in frames.splitlines())

    reordered = (
        "Fatal Python error: Segmentation fault\n\n"
        f"Current thread 0x00007f11 (most recent call first):\n{indented(_FAULTED)}\n"
        f"Thread 0x00007f22 (most recent call first):\n{indented(_WAITING)}"
    )
    assert _sign(reordered).digest == _sign(dump).digest


_WORKER = (
    'Traceback (most recent call last):\n  File "{lib}/multiprocessing/pool.py", line 125, in worker\n'
    "    result = (True, func(*args, **kwds))\n"
    '  File "{lib}/multiprocessing/pool.py", line 51, in starmapstar\n'
    "    return list(itertools.starmap(args[0], args[1]))\n"
    '  File "{app}/CDK.py", line 37, in perform_prediction_one_cascade\n'
    "    p_cascade.append(idx_2_user[predicted_cascade_user_index[i]])\nKeyError: 838\n"
)
_PARENT = (
    'Traceback (most recent call last):\n  File "{app}/test.py", line 87, in <module>\n    test(config)\n'
    '  File "{app}/CDK.py", line 62, in perform_prediction_multiprocessing\n'
    "    predicted_cascades = pool.starmap(perform_prediction_one_cascade, args)\n"
    '  File "{lib}/multiprocessing/pool.py", line 768, in get\n    raise self._value\nKeyError: 838\n'
)


def _pooled(lib: str, app: str) -> str:
    return (
        'multiprocessing.pool.RemoteTraceback: \n"""\n'
        + _WORKER.format(lib=lib, app=app)
        + '"""\n\nThe above exception was the direct cause of the following exception:\n\n'
        + _PARENT.format(lib=lib, app=app)
    )


def test_a_process_pools_worker_traceback_is_the_crash():
    # hongluzhou/HID#3: pool.starmap() re-raised the worker's KeyError; the parent's frames are the
    # pool's get(), every worker crash's. The worker's frame says what failed.
    signature = _sign(_pooled("/usr/lib/python3.8", "/home/u/HID"))
    assert signature.crash_type == "KeyError"
    assert signature.frames == ("CDK.py:perform_prediction_one_cascade",)
    # concurrent.futures' form of the same wrapper.
    futures = _pooled("/usr/lib/python3.8", "/home/u/HID").replace(
        "multiprocessing.pool.RemoteTraceback", "concurrent.futures.process._RemoteTraceback"
    )
    assert _sign(futures).digest == signature.digest


def test_a_windows_installs_standard_library_is_the_standard_library():
    # hongluzhou/HID#3 ran on Windows ("D:\study\PYTHON\lib\multiprocessing\pool.py"), and
    # tanjeffreyz/auto-maple#161's thread ran from "C:\Users\…\Python310\lib\threading.py": the same crash
    # on Linux keys alike, without the standard library's frames.
    windows = _pooled("D:\\study\\PYTHON\\lib", "E:\\python\\HID")
    linux = _pooled("/usr/lib/python3.8", "/home/u/HID")
    assert _sign(windows).frames == _sign(linux).frames == ("CDK.py:perform_prediction_one_cascade",)
    thread = (
        "Exception in thread Thread-5 (_main):\nTraceback (most recent call last):\n"
        '  File "C:\\Users\\K\\AppData\\Local\\Programs\\Python\\Python310\\lib\\threading.py", line 1009, '
        "in _bootstrap_inner\n    self.run()\n"
        '  File "C:\\m\\src\\modules\\bot.py", line 84, in _main\n    self.command_book.buff.main()\n'
        "AttributeError: 'NoneType' object has no attribute 'buff'\n"
    )
    assert _sign(thread).frames == ("bot.py:_main",)
    # A package in the install's site-packages, and a POSIX environment's, are the program's.
    package = thread.replace("C:\\m\\src\\modules", "C:\\Python311\\Lib\\site-packages\\modules")
    assert _sign(package).frames == ("bot.py:_main",)
    conda = thread.replace("C:\\m\\src\\modules", "/home/u/anaconda3/envs/a/lib/python3.11/site-packages/modules")
    assert _sign(conda).frames == ("bot.py:_main",)


def test_a_free_threaded_builds_standard_library_is_the_standard_library():
    # scipy/scipy#22700 ran on CPython 3.13t, whose library is lib/python3.13t/ (v19).
    free = _pooled("/usr/lib/python3.13t", "/home/u/HID")
    assert _sign(free).frames == _sign(_pooled("/usr/lib/python3.13", "/home/u/HID")).frames


def test_an_exception_printed_above_its_frames_is_read_as_cpythons():
    # mozilla/addons-server#9947 and celery/celery#5016 pasted Sentry's copy of one Celery error: the
    # exception line first, the frames below it, no "Traceback" header.
    frames = (
        '  File "celery/worker/consumer/consumer.py", line 557, in on_task_received\n    strategy = strategies[type_]\n'
    )
    sentry = "KeyError: 'olympia.addons.cron._update_appsupport'\n" + frames + "\nReceived unregistered task.\n"
    cpython = "Traceback (most recent call last):\n" + frames + "KeyError: 'olympia.addons.cron._update_appsupport'\n"
    assert (_sign(sentry).crash_type, _sign(sentry).frames) == ("KeyError", ("consumer.py:on_task_received",))
    assert _sign(sentry).digest == _sign(cpython).digest
    # A traceback with its exception line below the frames is CPython's own, whatever line is above it.
    above = "ValueError: an earlier, handled one\n" + frames + "KeyError: 'x'\n"
    assert _sign(above).crash_type == "KeyError"


# pylint/pylint#7613 (the checker's exception, as its reporter posted it) followed by the lines pylint prints
# below every crash since 2.13, as pylint-dev/pylint#10003 posted them: AstroidError raised from what failed.
_PYLINT_CHAIN = read_report("v20/pylint_astroid_wrapper_7613_10003")


def test_a_wrapper_raised_from_the_failure_with_nothing_to_say_gives_way_to_its_cause():
    parsed = parse(_PYLINT_CHAIN)
    assert (parsed.crash_type, parsed.frames[0].function) == ("AttributeError", "visit_attribute")
    # A wrapper with a message of its own still names the crash, and "During handling" is a new failure.
    worded = _PYLINT_CHAIN.replace("astroid.exceptions.AstroidError\n", "astroid.exceptions.AstroidError: in x.py\n")
    assert parse(worded).crash_type == "astroid.exceptions.AstroidError"
    handling = _PYLINT_CHAIN.replace(
        "The above exception was the direct cause of the following exception:",
        "During handling of the above exception, another exception occurred:",
    )
    assert parse(handling).crash_type == "astroid.exceptions.AstroidError"


def test_a_traceback_printed_without_its_exception_line_is_keyed_by_its_innermost_frames():
    # spesmilo/electrum#6099: the frames end in lnworker's _calc_routing_hints_for_invoice and the report goes on
    # ("Additional information"): no exception line was printed, but the innermost frames were.
    key = sign_record("spesmilo/electrum#6099")
    assert key.frames[:2] == ("lnworker.py:_calc_routing_hints_for_invoice", "lnworker.py:_add_request_coro")
    # python/mypy#4657 stops inside its frames ('File "/User'): the innermost were cut, the outer ones every
    # crash passes through are no key.
    assert sign_record("python/mypy#4657").frames == ()


IGNORED_THEN_CRASH = """Exception ignored in: <function Repository.__del__ at 0x7fc238d1f048>
Traceback (most recent call last):
  File "/usr/lib/python3.7/site-packages/borg/repository.py", line 179, in __del__
    assert False, "cleanup happened in Repository.__del__"
AssertionError: cleanup happened in Repository.__del__
Local Exception
Traceback (most recent call last):
  File "/usr/lib/python3.7/site-packages/borg/archiver.py", line 4455, in main
    exit_code = archiver.run(args)
  File "/usr/lib/python3.7/site-packages/borg/repository.py", line 150, in open
    raise self.DoesNotExist(self.path)
borg.repository.Repository.DoesNotExist: Repository /x does not exist.
"""
HOOK_FAILED = """Error in sys.excepthook:
Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/apport_python_hook.py", line 153, in apport_excepthook
    with os.fdopen(os.open(pr_filename,
FileNotFoundError: [Errno 2] No such file or directory: '/var/crash/_usr_bin_borg.1000.crash'

Original exception was:
Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/borg/archiver.py", line 4610, in main
    args = archiver.get_args(sys.argv, os.environ.get('SSH_ORIGINAL_COMMAND'))
KeyError: 'SSH_ORIGINAL_COMMAND'
"""


def test_cpythons_report_of_another_failure_is_not_the_crash():
    # A finalizer's exception CPython could not raise ("Exception ignored in: …", borg's Repository.__del__ in
    # borgbackup/borg#4610, printed above the crash), and Ubuntu's apport hook failing on the crash ("Error in
    # sys.excepthook:", borgbase/vorta#1540, the crash below "Original exception was:").
    assert parse(IGNORED_THEN_CRASH).crash_type == "borg.repository.Repository.DoesNotExist"
    assert parse(HOOK_FAILED).crash_type == "KeyError"
    # Printed alone, the ignored exception is all there is (borgbackup/borg#1490).
    assert parse(read_report("v21/exception_ignored_alone_borg_1490")).crash_type == "AssertionError"


def test_the_crash_printed_before_cpythons_report_of_another_failure_is_still_the_crash():
    # The crash first, then a finalizer's exception CPython could not raise as the program shut down.
    crash_first = IGNORED_THEN_CRASH.split("Local Exception\n")[1] + IGNORED_THEN_CRASH.split("Local Exception\n")[0]
    assert crash_first.startswith("Traceback")
    assert parse(crash_first).crash_type == "borg.repository.Repository.DoesNotExist"
    # ctypes' and newer CPython's wordings of the same report.
    ctypes = crash_first.replace("Exception ignored in:", "Exception ignored on calling ctypes callback function:")
    assert parse(ctypes).crash_type == "borg.repository.Repository.DoesNotExist"
    # With no crash beside them, the heads themselves are no identity.
    head = "Exception ignored in: <function Repository.__del__ at 0x7fc238d1f048>\n"
    assert sign(head + "cleanup of the lock failed badly\n").message.startswith("cleanup of the lock failed")


def test_a_traceback_without_its_exception_line_needs_two_frames_of_its_own():
    # One frame ("black.py:assert_equivalent") is where many failures pass: no key of frames alone.
    one = '  File "/x/black.py", line 3303, in assert_equivalent\n    raise AssertionError(x)\n\nAny idea?\nThanks\n'
    assert sign(one).frames == ()


def test_faulthandlers_header_after_other_output_on_its_line():
    # jax-ml/jax#7198 (closed as a duplicate of #7128): pytest's "collecting ... " shares the line with
    # "Fatal Python error: Segmentation fault"; the error is what follows it, and the dump below is read.
    signed = signatures.compute(kind="crash", trace_text=read_report("v22/faulthandler_after_pytest_jax_7198"))
    assert (signed.trace_format, signed.crash_type) == ("python-faulthandler", "Segmentation fault")
    assert signed.frames[0] == "xla_client.py:make_cpu_client"
