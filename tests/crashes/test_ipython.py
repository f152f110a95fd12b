"""Python tracebacks as IPython prints them in Jupyter and Colab, read as CPython's.

Before signature v8 no parser read them: the whole text was unparsed, keyed by its first
failure-like line (llmware-ai/llmware#501 by "AttributeError  Traceback (most recent call last)").
"""

from __future__ import annotations

from crashes import traces
from crashes.traces import ipython
from crashes.traces.extract import clean
from tests.crashes.pastes import hard_wrap
from tests.crashes.signing import sign as _sign
from tests.data.record_digests import dedup_records

RECORDS = dedup_records()


def test_colabs_linked_paths_and_folded_frames():
    # llmware-ai/llmware#501, from Colab: "[/usr/…/__init__.py](https://localhost:8080/#) in _dep_map(self)",
    # "19 frames" folded, three chained exceptions.
    text = RECORDS["llmware-ai/llmware#501"]["trace"]
    parsed = traces.parse(text)
    assert (parsed.format, parsed.crash_type) == ("python", "FileNotFoundError")
    innermost = parsed.frames[0]
    assert (innermost.file, innermost.line, innermost.function) == (
        "/usr/local/lib/python3.10/dist-packages/pkg_resources/__init__.py",
        1726,
        "_get",
    )
    assert "3 IPython tracebacks read as Python's" in clean(text).repairs
    assert "19 frames" not in clean(text).text


# IPython 8's form, as Jupyter prints it (a cell, a function the cell defined, a library's file).
IPYTHON_8 = """---------------------------------------------------------------------------
ValueError                                Traceback (most recent call last)
Cell In[4], line 12
     10 X = load(path)
---> 12 model = fit(X, y)

Cell In[2], line 7, in fit(X, y)
      5     clf = LogisticRegression()
----> 7     return clf.fit(X, y)

File ~/.venv/lib/python3.11/site-packages/sklearn/base.py:1151, in BaseEstimator.fit(self, X, y)
   1149 ...
-> 1151     raise ValueError("Found array with 0 sample(s)")

ValueError: Found array with 0 sample(s)
"""

# IPython 7's form: "path in function(arguments)", the line given by the arrow.
IPYTHON_7 = """---------------------------------------------------------------------------
ValueError                                Traceback (most recent call last)
<ipython-input-4-5e1c2d9a> in <module>
     10 X = load(path)
---> 12 model = fit(X, y)

<ipython-input-2-77aa01> in fit(X, y)
      5     clf = LogisticRegression()
----> 7     return clf.fit(X, y)

~/.venv/lib/python3.11/site-packages/sklearn/base.py in fit(self, X, y)
   1149 ...
-> 1151     raise ValueError("Found array with 0 sample(s)")

ValueError: Found array with 0 sample(s)
"""


def test_ipython_8s_and_7s_frames_are_read_with_their_lines():
    new, old = traces.parse(IPYTHON_8), traces.parse(IPYTHON_7)
    assert [(f.line, f.function) for f in new.frames] == [(1151, "fit"), (7, "fit"), (12, "<module>")]
    assert [(f.line, f.function) for f in old.frames] == [(1151, "fit"), (7, "fit"), (12, "<module>")]
    assert new.frames[0].file == old.frames[0].file == "~/.venv/lib/python3.11/site-packages/sklearn/base.py"
    assert new.crash_type == old.crash_type == "ValueError"


def test_one_bug_printed_by_ipython_and_by_cpython_is_one_bucket():
    plain = (
        "Traceback (most recent call last):\n"
        '  File "/app/run.py", line 12, in <module>\n    model = fit(X, y)\n'
        '  File "/app/train.py", line 7, in fit\n    return clf.fit(X, y)\n'
        '  File "/home/u/.venv/lib/python3.11/site-packages/sklearn/base.py", line 1151, in fit\n'
        '    raise ValueError("Found array with 0 sample(s)")\n'
        "ValueError: Found array with 0 sample(s)\n"
    )
    notebook = (
        "ValueError                                Traceback (most recent call last)\n"
        "File /app/run.py:12, in <module>\n---> 12 model = fit(X, y)\n\n"
        "File /app/train.py:7, in fit(X, y)\n----> 7     return clf.fit(X, y)\n\n"
        "File /home/u/.venv/lib/python3.11/site-packages/sklearn/base.py:1151, in BaseEstimator.fit(self, X, y)\n"
        '-> 1151     raise ValueError("Found array with 0 sample(s)")\n\n'
        "ValueError: Found array with 0 sample(s)\n"
    )
    assert _sign(plain).digest == _sign(notebook).digest


def test_text_without_ipythons_heading_is_left_alone():
    for text in (
        "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nKeyError: 'x'\n",
        "See the notes in README.md in docs\n---> 12 steps\n",
    ):
        assert ipython.render(text) == (text, "")
    # After the heading, a line that merely has " in " with no path is not a frame.
    text = "KeyError   Traceback (most recent call last)\nthe value in question\nKeyError: 'x'\n"
    assert 'File "' not in ipython.render(text)[0]


def test_a_notebooks_traceback_a_terminal_cut_signs_as_the_whole_one():
    # Colab's linked locations run past 80 columns: unwrapped before IPython's form is read.
    text = RECORDS["llmware-ai/llmware#501"]["trace"]
    cut = hard_wrap(text, 80)
    assert _sign(cut).digest == _sign(text).digest
