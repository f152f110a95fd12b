"""Issue reports for a bucket, rendered for a tracker.

Markdown for GitHub and GitLab. Fuzzer text goes only inside code fences,
each one longer than any run of backticks in its content, so a trace cannot
close its fence and inject Markdown (links, images, HTML) into the report.
"""

from __future__ import annotations

import json
import re

from django.template import Context, Engine

from triage.models import Bucket, Finding

_BACKTICKS = re.compile(r"`+")
# Every line ending CommonMark knows (a bare CR too) and the ones Unicode adds:
# any of them inside a one-line field would end its code span or heading.
_LINE_BREAKS = re.compile(r"[\r\n\v\f\x85\u2028\u2029]+")
# The sigils GitHub and GitLab turn into mentions and cross-references
# (@team, #123, GitLab's !merge-request, ~label, %milestone, $snippet, &epic):
# a zero-width space after one keeps the text readable and pings nobody.
_REFERENCE = re.compile(r"([@#!~%$&])(?=\w)")
_ZWSP = "\u200b"
_LANGUAGE = re.compile(r"[^a-z0-9+#._-]")


def _one_line(value: str) -> str:
    return _LINE_BREAKS.sub(" ", value)


def unlinked(value: str) -> str:
    """``value`` with its mentions and cross-references made inert (issue titles, one-line fields)."""
    return _REFERENCE.sub(rf"\1{_ZWSP}", value)


def _fence(content: str, language: str = "") -> str:
    # No content can close it (the fence is longer than any backtick run in it);
    # mentions and references inside a code block notify nobody.
    longest = max((len(run) for run in _BACKTICKS.findall(content)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{_LANGUAGE.sub('', language.lower())[:32]}\n{content.rstrip()}\n{fence}"


def _code(value: str) -> str:
    # An inline code span: backslashes are literal inside it, so instead of
    # escaping, use a delimiter longer than any backtick run in the value. A
    # pipe would end a table cell even inside a span (GFM), and a backslash
    # before it shows outside tables, so pipes become a look-alike bar.
    value = _one_line(value).replace("|", "\u2223")
    longest = max((len(run) for run in _BACKTICKS.findall(value)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{ticks}{pad}{value}{pad}{ticks}"


def _inline(value: str) -> str:
    # Titles and one-line fields outside code: neutralise Markdown and HTML
    # metacharacters, line breaks, mentions and cross-references.
    return unlinked(re.sub(r"([\\`*_{}\[\]<>()#+!|~])", r"\\\1", _one_line(value)))


REPORT_TEXT_LIMIT = 20_000
FORMATS = {
    "md": ("text/markdown; charset=utf-8", "Markdown (GitHub, GitLab)"),
    "txt": ("text/plain; charset=utf-8", "Bugzilla text"),
    "json": ("application/json", "JSON"),
}


def report_filename(bucket: Bucket, extension: str = "md") -> str:
    """A safe download name: ``fuzzweb-bucket-12.md``."""
    return f"fuzzweb-bucket-{bucket.pk}.{extension}"


def _capped(value: str) -> str:
    if len(value) <= REPORT_TEXT_LIMIT:
        return value
    return value[:REPORT_TEXT_LIMIT] + f"\n[... {len(value) - REPORT_TEXT_LIMIT} more characters cut by fuzzweb]"


def _culprit_lines(culprit: dict) -> list[str]:
    """One line per misbehaving backend: the pass or the flags that break the reduced program, or its shape."""
    lines = []
    for name, found in (culprit or {}).get("backends", {}).items():
        if found.get("method") == "opt-bisect":
            lines.append(f"{name}: pass {found['name']} (LLVM -opt-bisect-limit, {found.get('detail', '')})")
        elif found.get("method") == "flags":
            narrowed = f"; first breaks at -fdbg-cnt={found['narrowed']}" if found.get("narrowed") else ""
            lines.append(f"{name}: {found['name']} ({found.get('detail', '')}{narrowed})")
        elif found.get("method") == "shape":
            why = f" (no flag or pass to blame: {found['searched']})" if found.get("searched") else ""
            lines.append(f"{name}: the reduced difference's shape, {found['name']}{why}")
    return lines + _matrix_lines((culprit or {}).get("matrix") or {})


def _matrix_lines(matrix: dict) -> list[str]:
    """Per level, the releases the reduced program breaks at: where it starts, what it spares."""
    if not matrix.get("versions"):
        return []
    lines = []
    for level in matrix.get("levels", []):
        bad = [v for v in matrix["versions"] if matrix["cells"].get(v, {}).get(level) in ("bad", "crash")]
        good = [v for v in matrix["versions"] if matrix["cells"].get(v, {}).get(level) == "good"]
        first, last = matrix["first_bad"].get(level), matrix["last_good"].get(level)
        fixed = matrix.get("fixed_in", {}).get(level)
        history = f" (first bad {first}, last good {last or 'none installed'}" if first else ""
        history += (f", fixed in {fixed})" if fixed else ")") if first else ""
        lines.append(
            f"{matrix['family']} releases at {level}: bad on {', '.join(bad) or 'none'}; "
            f"good on {', '.join(good) or 'none'}{history}"
        )
    return lines


def report_data(*, bucket: Bucket, finding: Finding | None) -> dict:
    """Everything a report says, as plain data: the renderers and tracker templates read only this."""
    data: dict = {
        "bucket": bucket.pk,
        "title": bucket.title,
        "kind": bucket.get_kind_display(),
        "crash_type": bucket.crash_type,
        "status": bucket.get_status_display(),
        "hits": bucket.hit_count,
        "first_seen": f"{bucket.first_seen:%Y-%m-%d %H:%M} UTC",
        "last_seen": f"{bucket.last_seen:%Y-%m-%d %H:%M} UTC",
        "key_frames": list(bucket.key_frames or []),
        "signature": f"v{bucket.signature_version} {bucket.signature[:12]}",
        "regression": bool(bucket.regression),
        "regression_versions": bucket.regression_versions or {},
        "fixed_versions": bucket.fixed_versions or {},
        "labels": list(bucket.labels.values_list("name", flat=True)) if bucket.pk else [],
        "culprits": _culprit_lines(bucket.culprit),
    }
    if finding is None:
        return data
    metadata = finding.metadata if isinstance(finding.metadata, dict) else {}
    by_name = {b.get("name"): b for b in finding.backends or [] if isinstance(b, dict)}
    expected = (by_name.get(finding.reference) or {}).get("output", "")
    data.update(
        {
            "target": finding.target,
            "function": finding.function,
            "engine": finding.engine,
            "message": _capped(finding.message),
            "program": _capped(finding.testcase),
            "program_language": finding.testcase_language,
            "program_size": finding.testcase_size,
            "program_verified": finding.verified_at is not None,
            "reproducer": _capped(finding.reproducer),
            "trace": _capped(finding.trace),
            "versions": dict(sorted((finding.versions or {}).items())),
            "flags": metadata.get("flags") or metadata.get("options") or {},
            "reference": finding.reference,
            "backends": [
                {
                    "name": name,
                    "outcome": backend.get("outcome", ""),
                    "exit_code": backend.get("exit_code"),
                    "expected": _capped(expected) if name != finding.reference else "",
                    "actual": _capped(backend.get("output") or ""),
                }
                for name, backend in by_name.items()
            ],
        }
    )
    campaign = finding.campaign if finding.campaign_id else None
    if campaign is not None:
        data["campaign"] = {
            "id": campaign.pk,
            "target": str(campaign.target),
            "engine": campaign.engine,
            "seed": campaign.seed,
            "time_budget_seconds": campaign.time_budget_seconds,
            "workers": campaign.shard_count,
            "options": campaign.options or {},
        }
    return data


def _versions_line(versions: dict) -> str:
    return ", ".join(f"{name} {value}" for name, value in sorted(versions.items())) or "unknown"


def render_markdown(data: dict) -> str:
    """GitHub and GitLab Markdown; fuzzer text only inside fences and code spans."""
    lines = [f"# {_inline(data['title'])}", ""]
    summary = [
        f"- **Kind:** {data['kind']}",
        f"- **Crash type:** {_code(data['crash_type'] or '-')}",
        f"- **Hits:** {data['hits']} (first seen {data['first_seen']}, last seen {data['last_seen']})",
        f"- **Status:** {data['status']}",
    ]
    if "target" in data:
        summary.insert(0, f"- **Target:** {_code(data['target'])}, function {_code(data['function'])}")
    if data["regression"]:
        summary.append(
            f"- **Regression:** fixed on {_code(_versions_line(data['fixed_versions']))}, "
            f"hit again on {_code(_versions_line(data['regression_versions']))}"
        )
    lines += ["## Summary", "", *summary, ""]
    if "target" not in data:
        lines += ["_No finding is stored for this bucket._", ""]
        return "\n".join(lines)
    if data["message"]:
        lines += ["Error message:", "", _fence(data["message"], "text"), ""]
    lines += ["## Reproduce", "", _fence(data["reproducer"], "sh"), ""]
    verified = " (verified to reproduce)" if data["program_verified"] else ""
    heading = "Program" if data["backends"] else "Failing call"
    lines += [
        f"{heading}, {data['program_size']} characters{verified}:",
        "",
        _fence(data["program"], data["program_language"]),
        "",
    ]
    disagreeing = [b for b in data["backends"] if b["name"] != data["reference"] and b["outcome"] != "ok"]
    if disagreeing:
        lines += ["## Expected versus actual", "", f"Reference: {_code(data['reference'] or 'none')}", ""]
        for backend in disagreeing:
            lines += [f"### {_code(backend['name'])}: {_inline(backend['outcome'])}", ""]
            lines += ["Expected:", "", _fence(backend["expected"] or "(nothing)", "text"), ""]
            lines += ["Actual:", "", _fence(backend["actual"] or "(nothing)", "text"), ""]
    if data["culprits"]:
        lines += ["## Culprit", "", *[f"- {_inline(line)}" for line in data["culprits"]], ""]
    if data["trace"]:
        lines += ["## Traceback", "", _fence(data["trace"], "text"), ""]
    if data["key_frames"]:
        lines += ["Key frames (innermost first):", ""]
        lines += [f"{i}. {_code(frame)}" for i, frame in enumerate(data["key_frames"], 1)]
        lines += [""]
    lines += ["## Versions", ""]
    lines += [f"- {_inline(key)}: {_code(str(value))}" for key, value in data["versions"].items()]
    if data["flags"]:
        lines += ["", "Flags:", "", _fence(json.dumps(data["flags"], indent=2, sort_keys=True), "json")]
    if "campaign" in data:
        lines += ["", "## Campaign", "", _fence(json.dumps(data["campaign"], indent=2, sort_keys=True), "json")]
    lines += ["", f"_Found by fuzzweb (bucket {data['bucket']}), signature {_code(data['signature'])}._", ""]
    return "\n".join(lines)


def _indented(value: str) -> str:
    return "\n".join("    " + line for line in (value or "(nothing)").splitlines())


def render_text(data: dict) -> str:
    """Bugzilla-style plain text: no markup at all, code blocks indented."""
    lines = [data["title"], "=" * min(len(data["title"]), 72), ""]
    lines += [f"Kind: {data['kind']}", f"Crash type: {data['crash_type'] or '-'}", f"Status: {data['status']}"]
    lines += [f"Hits: {data['hits']} (first seen {data['first_seen']}, last seen {data['last_seen']})"]
    if data["regression"]:
        lines += [
            f"Regression: fixed on {_versions_line(data['fixed_versions'])}, "
            f"hit again on {_versions_line(data['regression_versions'])}"
        ]
    if "target" not in data:
        return "\n".join([*lines, "", "No finding is stored for this bucket.", ""])
    lines += [f"Target: {data['target']}  function: {data['function'] or '-'}  engine: {data['engine'] or '-'}", ""]
    lines += ["Steps to reproduce:", "", _indented(data["reproducer"]), ""]
    lines += [f"Program ({data['program_size']} characters):", "", _indented(data["program"]), ""]
    for backend in data["backends"]:
        if backend["name"] == data["reference"] or backend["outcome"] == "ok":
            continue
        lines += [f"{backend['name']}: {backend['outcome']}", "", "  Expected:", _indented(backend["expected"])]
        lines += ["  Actual:", _indented(backend["actual"]), ""]
    if data["culprits"]:
        lines += ["Culprit:", *[f"  {line}" for line in data["culprits"]], ""]
    if data["message"]:
        lines += ["Message:", "", _indented(data["message"]), ""]
    if data["trace"]:
        lines += ["Trace:", "", _indented(data["trace"]), ""]
    if data["key_frames"]:
        lines += ["Key frames: " + " <- ".join(data["key_frames"]), ""]
    lines += ["Versions: " + _versions_line(data["versions"])]
    if "campaign" in data:
        lines += ["Campaign: " + json.dumps(data["campaign"], sort_keys=True)]
    lines += ["", f"Found by fuzzweb; bucket #{data['bucket']}, signature {data['signature']}.", ""]
    return "\n".join(lines)


def render_json(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def render_report(data: dict, extension: str) -> str:
    return {"md": render_markdown, "txt": render_text, "json": render_json}[extension](data)


def render_with_template(template_text: str, data: dict) -> str:
    """A tracker's own template (edited in the admin), with the data and ready-made safe blocks.

    Autoescape is off (the result is Markdown or text, not HTML); fuzzer text
    should go in through the ``fenced`` blocks, which no content can close,
    and one-line fields through ``code`` or ``inline``.
    """
    fenced = {key: _fence(data.get(key) or "", "text") for key in ("program", "trace", "message", "reproducer")}
    one_line = ("title", "crash_type", "target", "function", "engine", "reference")
    code = {key: _code(str(data.get(key) or "")) for key in one_line}
    inline = {key: _inline(str(data.get(key) or "")) for key in one_line}
    context = {
        **data,
        "data": data,
        "fenced": fenced,
        "code": code,
        "inline": inline,
        "markdown": render_markdown(data),
        "text": render_text(data),
    }
    return Engine(autoescape=False).from_string(template_text).render(Context(context))


def bucket_report_markdown(*, bucket: Bucket, finding: Finding | None) -> str:
    """Render ``bucket`` as a Markdown issue, using ``finding`` as its example."""
    return render_markdown(report_data(bucket=bucket, finding=finding))


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
    # Only what this installation recorded itself: Python written by a
    # submitter would otherwise run on the maintainer's machine as a "test".
    # (The API refuses setup and call; findings it took before that are not replayable.)
    if not finding.replay_allowed:
        return None
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
