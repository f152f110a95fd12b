"""Validate ingest API payloads into :class:`triage.submission.Submission`.

Pure functions over decoded JSON. Every problem is reported by field, in
words a fuzzer's author can act on; unknown fields are errors because a
typo (``stacktrace`` for ``trace``) would otherwise drop data silently.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from triage.submission import (
    KINDS,
    MAX_BACKEND_OUTPUT,
    MAX_BACKENDS,
    MAX_HITS,
    MAX_METADATA_BYTES,
    MAX_TESTCASE_BYTES,
    MAX_VERSIONS,
    OUTCOMES,
    SHORT_FIELDS,
    Backend,
    Submission,
)

MAX_BULK = 1000
_LANGUAGE = re.compile(r"^[a-z0-9+#._-]{1,32}$")
_STRING_FIELDS = (
    "target", "engine", "function", "stage", "crash_type", "message", "trace",
    "testcase", "reproducer", "reference",
)  # fmt: skip
FIELDS = {
    *_STRING_FIELDS, "kind", "testcase_base64", "testcase_language", "backends", "versions", "metadata", "hits",
}  # fmt: skip


class InvalidPayload(ValueError):
    """The payload cannot be stored; ``errors`` maps each field to what is wrong."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(f"{field}: {problem}" for field, problem in errors.items()))
        self.errors = errors


def _backends(value, errors: dict[str, str]) -> tuple[Backend, ...]:
    if not isinstance(value, list):
        errors["backends"] = "must be a list of {name, outcome, output, exit_code} objects"
        return ()
    if len(value) > MAX_BACKENDS:
        errors["backends"] = f"at most {MAX_BACKENDS} backends (got {len(value)})"
        return ()
    backends = []
    for index, item in enumerate(value):
        where = f"backends[{index}]"
        if not isinstance(item, dict):
            errors[where] = "must be an object"
            continue
        name, outcome = item.get("name"), item.get("outcome")
        if not isinstance(name, str) or not name.strip():
            errors[f"{where}.name"] = "required, a non-empty string"
        elif len(name) > SHORT_FIELDS["target"]:
            errors[f"{where}.name"] = f"at most {SHORT_FIELDS['target']} characters"
        if outcome not in OUTCOMES:
            errors[f"{where}.outcome"] = f"must be one of {', '.join(OUTCOMES)}"
        output = item.get("output", "")
        if not isinstance(output, str):
            errors[f"{where}.output"] = "must be a string"
        elif len(output) > MAX_BACKEND_OUTPUT:
            errors[f"{where}.output"] = f"at most {MAX_BACKEND_OUTPUT} characters"
        exit_code = item.get("exit_code")
        if exit_code is not None and (
            not isinstance(exit_code, int) or isinstance(exit_code, bool) or not -(2**31) <= exit_code < 2**31
        ):
            errors[f"{where}.exit_code"] = "must be a 32-bit integer or null"
        unknown = set(item) - {"name", "outcome", "output", "exit_code"}
        if unknown:
            errors[where] = f"unknown field(s): {', '.join(sorted(unknown))}"
        if not any(key.startswith(where) for key in errors):
            backends.append(Backend(name=name.strip(), outcome=outcome, output=output, exit_code=exit_code))
    return tuple(backends)


# Metadata keys that would choose what a worker imports or runs: only this
# installation's own campaigns record them.
_WORKER_CHOICES = ("search_path", "setup_modules", "setup", "call")
# Encoded values (engines.pyfunc.state) that name code: an Enum member, a
# constructor call, a registered generator. Any of them makes the child
# import and call whatever the submitter named.
_CODE_TAGS = frozenset(("M", "B", "G"))
_MAX_DEPTH = 64


def _names_code(value, depth: int = 0) -> bool:
    if depth > _MAX_DEPTH:
        return True  # nesting this deep is not a value the engine writes
    if isinstance(value, dict):
        return any(key in _CODE_TAGS or _names_code(item, depth + 1) for key, item in value.items())
    if isinstance(value, list):
        return any(_names_code(item, depth + 1) for item in value)
    return False


def _refuse_code_references(metadata: dict, errors: dict) -> None:
    for key in _WORKER_CHOICES:
        if key in metadata:
            errors[f"metadata.{key}"] = "refused: it would choose what a worker imports or runs"
    if "values" in metadata and _names_code(metadata["values"]):
        errors["metadata.values"] = "refused: values that name code (Build, Member, generator references)"


def _json_size(value) -> int:
    """Bytes of ``value`` as compact JSON; past the cap (or nested past reason) counts as too big."""
    try:
        return len(json.dumps(value, separators=(",", ":")))
    except (RecursionError, ValueError):
        return MAX_METADATA_BYTES + 1


def parse_submission(data) -> Submission:
    """Validate one finding object; raise :class:`InvalidPayload` listing every problem."""
    if not isinstance(data, dict):
        raise InvalidPayload({"finding": "must be a JSON object"})
    errors: dict[str, str] = {}
    unknown = set(data) - FIELDS
    if unknown:
        errors["unknown"] = f"unknown field(s): {', '.join(sorted(unknown))}; known: {', '.join(sorted(FIELDS))}"

    kind = data.get("kind")
    if kind not in KINDS:
        errors["kind"] = f"required, one of {', '.join(KINDS)}"
    target = data.get("target")
    if not isinstance(target, str) or not target.strip():
        errors["target"] = "required, a non-empty string"
    for name in _STRING_FIELDS:
        if name in data and not isinstance(data[name], str):
            errors[name] = "must be a string"
    for name, limit in SHORT_FIELDS.items():
        if isinstance(data.get(name), str) and len(data[name]) > limit:
            errors[name] = f"at most {limit} characters (got {len(data[name])})"
    if isinstance(data.get("testcase"), str) and len(data["testcase"]) > MAX_TESTCASE_BYTES:
        errors["testcase"] = f"at most {MAX_TESTCASE_BYTES} characters (got {len(data['testcase'])})"

    testcase_bytes = None
    if "testcase_base64" in data:
        if "testcase" in data:
            errors["testcase_base64"] = "send either testcase (text) or testcase_base64 (binary), not both"
        elif not isinstance(data["testcase_base64"], str):
            errors["testcase_base64"] = "must be a base64 string"
        else:
            try:
                testcase_bytes = base64.b64decode(data["testcase_base64"], validate=True)
            except (binascii.Error, ValueError):
                errors["testcase_base64"] = "is not valid base64 (RFC 4648, standard alphabet, with padding)"
            else:
                if len(testcase_bytes) > MAX_TESTCASE_BYTES:
                    errors["testcase_base64"] = (
                        f"at most {MAX_TESTCASE_BYTES} bytes decoded (got {len(testcase_bytes)})"
                    )
    language = data.get("testcase_language", "text")
    if not isinstance(language, str) or not _LANGUAGE.match(language):
        errors["testcase_language"] = "must be a short lowercase name such as c, python, kotlin, text"

    backends = _backends(data["backends"], errors) if "backends" in data else ()
    if kind == "miscompilation" and len(backends) < 2 and "backends" not in errors:
        errors["backends"] = "a miscompilation needs the outcomes of at least two backends"
    versions = data.get("versions", {})
    if not isinstance(versions, dict) or not all(
        isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in versions.values()
    ):
        errors["versions"] = "must be an object of name -> version string"
    elif len(versions) > MAX_VERSIONS:
        errors["versions"] = f"at most {MAX_VERSIONS} entries (got {len(versions)})"
    elif any(len(k) > SHORT_FIELDS["target"] or len(str(v)) > SHORT_FIELDS["target"] for k, v in versions.items()):
        errors["versions"] = f"names and versions of at most {SHORT_FIELDS['target']} characters"
    metadata = data.get("metadata", {})
    if not isinstance(metadata, dict):
        errors["metadata"] = "must be an object"
    elif _json_size(metadata) > MAX_METADATA_BYTES:
        errors["metadata"] = f"at most {MAX_METADATA_BYTES} bytes as JSON"
    else:
        _refuse_code_references(metadata, errors)
    if kind == "crash" and not any(data.get(f) for f in ("trace", "message", "crash_type")):
        errors["trace"] = "a crash needs its trace or crash output (or at least a message or crash_type)"
    hits = data.get("hits", 1)
    if not isinstance(hits, int) or isinstance(hits, bool) or not 1 <= hits <= MAX_HITS:
        errors["hits"] = f"an integer from 1 to {MAX_HITS}: how many failing executions this finding stands for"
    if errors:
        raise InvalidPayload(errors)

    return Submission(
        kind=kind,
        target=target.strip(),
        engine=data.get("engine", ""),
        function=data.get("function", ""),
        crash_type=data.get("crash_type", ""),
        message=data.get("message", ""),
        trace=data.get("trace", ""),
        testcase=data.get("testcase", ""),
        testcase_bytes=testcase_bytes,
        testcase_language=language,
        reproducer=data.get("reproducer", ""),
        stage=data.get("stage", ""),
        reference=data.get("reference", ""),
        backends=backends,
        versions={str(k): str(v) for k, v in versions.items()},
        metadata=metadata,
        hits=hits,
    )


def bulk_items(data) -> list:
    """The list of finding objects in a bulk body: ``{"findings": [...]}`` or a bare list."""
    items = data.get("findings") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InvalidPayload({"findings": 'send a JSON list of findings, or {"findings": [...]}'})
    if not items:
        raise InvalidPayload({"findings": "the list is empty"})
    if len(items) > MAX_BULK:
        raise InvalidPayload({"findings": f"at most {MAX_BULK} findings per request (got {len(items)})"})
    return items
