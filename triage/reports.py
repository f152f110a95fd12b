"""Issue reports for a bucket, rendered for a tracker.

Markdown for GitHub and GitLab. Fuzzer text goes only inside code fences,
each one longer than any run of backticks in its content, so a trace cannot
close its fence and inject Markdown (links, images, HTML) into the report.
"""

from __future__ import annotations

import re

from triage.models import Bucket, Finding

_BACKTICKS = re.compile(r"`+")


def _fence(content: str, language: str = "") -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(content)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{content.rstrip()}\n{fence}"


def _code(value: str) -> str:
    # An inline code span: backslashes are literal inside it, so instead of
    # escaping, use a delimiter longer than any backtick run in the value.
    value = value.replace("\n", " ")
    longest = max((len(run) for run in _BACKTICKS.findall(value)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{ticks}{pad}{value}{pad}{ticks}"


def _inline(value: str) -> str:
    # Titles and one-line fields: neutralise Markdown and HTML metacharacters.
    return re.sub(r"([\\`*_{}\[\]<>()#+!|~])", r"\\\1", value.replace("\n", " "))


def report_filename(bucket: Bucket) -> str:
    """A safe download name: ``fuzzweb-bucket-12.md``."""
    return f"fuzzweb-bucket-{bucket.pk}.md"


def bucket_report_markdown(*, bucket: Bucket, finding: Finding | None) -> str:
    """Render ``bucket`` as a Markdown issue, using ``finding`` as its example."""
    lines = [f"# {_inline(bucket.title)}", ""]
    summary = [
        f"- **Kind:** {bucket.get_kind_display()}",
        f"- **Crash type:** {_code(bucket.crash_type or '-')}",
        f"- **Hits:** {bucket.hit_count} (first seen {bucket.first_seen:%Y-%m-%d %H:%M} UTC, "
        f"last seen {bucket.last_seen:%Y-%m-%d %H:%M} UTC)",
        f"- **Status:** {bucket.get_status_display()}",
    ]
    if finding is not None:
        summary.insert(0, f"- **Target:** {_code(finding.target)}, function {_code(finding.function)}")
    lines += ["## Summary", "", *summary, ""]
    if finding is None:
        lines += ["_No finding is stored for this bucket._", ""]
        return "\n".join(lines)
    if finding.message:
        lines += ["Error message:", "", _fence(finding.message, "text"), ""]
    lines += ["## Reproduce", "", _fence(finding.reproducer, "sh"), ""]
    lines += ["Failing call:", "", _fence(finding.testcase, "python"), ""]
    lines += ["## Traceback", "", _fence(finding.trace or "(no trace)", "pytb"), ""]
    if bucket.key_frames:
        lines += ["Signature frames (innermost first):", ""]
        lines += [f"{i}. {_code(frame)}" for i, frame in enumerate(bucket.key_frames, 1)]
        lines += [""]
    lines += ["## Versions", ""]
    lines += [f"- {_inline(key)}: {_code(value)}" for key, value in sorted(finding.versions.items())]
    lines += [
        "",
        f"_Found by fuzzweb; bucket #{bucket.pk}, signature v{bucket.signature_version} `{bucket.signature[:12]}`._",
        "",
    ]
    return "\n".join(lines)


_BUILTIN_TYPES = {"int", "float", "str", "bytes", "bool", "list", "dict", "tuple", "set", "frozenset"}
_UNPRINTABLE = re.compile(r"[^\x20-\x7e]")


def _plain(text: str) -> str:
    # Fuzzer text going into Python source: printable ASCII only, and no way
    # to close the docstring or comment it sits in.
    return _UNPRINTABLE.sub("?", text).replace('"', "'").replace("\\", "/")


def bucket_pytest(*, bucket: Bucket, finding: Finding) -> str | None:
    """A pytest file that calls the function with the (shrunk) input and fails the same way.

    Only for findings whose engine recorded the call and its imports (the
    Python function engine); None for the rest. The test passes once the
    bug is fixed.
    """
    metadata = finding.metadata if isinstance(finding.metadata, dict) else {}
    setup, call = metadata.get("setup"), metadata.get("call")
    if not setup or not call:
        return None
    name = re.sub(r"\W+", "_", f"bucket_{bucket.pk}_{bucket.title}", flags=re.ASCII).strip("_").lower()[:80]
    if finding.crash_type == "ReturnTypeViolation":
        declared = re.match(r"declared (\w+),", finding.message or "")
        body = [f"    result = {call}"]
        if declared and declared.group(1) in _BUILTIN_TYPES:
            body.append(f"    assert isinstance(result, {declared.group(1)}), result")
        else:
            body.append(f"    # fuzzweb saw: {_plain(finding.message)[:200]}")
            body.append("    assert result is not None, result  # adjust to the declared return type")
    else:
        body = [f"    {call}  # raises {_plain(finding.crash_type)}"]
    lines = [
        f'"""Reproduces fuzzweb bucket #{bucket.pk}: {_plain(bucket.title)}.',
        "",
        "Fails while the bug is there; passes once it is fixed.",
        '"""',
        "",
        *setup.splitlines(),
        "",
        "",
        f"def test_{name}():",
        *body,
        "",
    ]
    return "\n".join(lines)
