"""A submission's stored fields and its signature, with no database: ingest and reproduction share them.

Reduction asks "does this candidate still land in the bucket?" thousands of
times, often from a reducer's interestingness script in a process of its
own. It must get exactly the signature ingest would: so both clean the
fields and sign them here.
"""

from __future__ import annotations

from crashes import signatures
from triage import text
from triage.submission import SHORT_FIELDS, Submission
from triage.target_options import SignatureOptions


def _short(value: str, field: str) -> str:
    return text.clean_short(value, SHORT_FIELDS[field])


def cleaned_fields(submission: Submission) -> dict:
    """The finding's fields as stored: control characters removed, sizes capped."""
    if submission.testcase_bytes is not None:
        testcase = text.preview_bytes(submission.testcase_bytes, text.INPUT_LIMIT)
        size = len(submission.testcase_bytes)
    else:
        testcase = text.clean(submission.testcase, text.INPUT_LIMIT)
        size = len(testcase)
    return dict(
        kind=submission.kind,
        target=_short(submission.target, "target"),
        engine=_short(submission.engine, "engine"),
        function=_short(submission.function, "function"),
        stage=_short(submission.stage, "stage"),
        crash_type=_short(submission.crash_type, "crash_type"),
        message=text.clean(submission.message, text.MESSAGE_LIMIT),
        trace=text.clean(submission.trace, text.TRACE_LIMIT),
        testcase=testcase,
        testcase_bytes=submission.testcase_bytes,
        testcase_language=_short(submission.testcase_language, "testcase_language") or "text",
        testcase_size=size,
        reproducer=text.clean(submission.reproducer, text.INPUT_LIMIT),
        reference=_short(submission.reference, "reference"),
        backends=[
            {
                "name": text.clean_short(b.name),
                "outcome": b.outcome,
                "output": text.clean(b.output, text.MESSAGE_LIMIT),
                "exit_code": b.exit_code,
            }
            for b in submission.backends
        ],
        versions={text.clean_short(k): text.clean_short(str(v)) for k, v in submission.versions.items()},
        metadata=text.clean_json(submission.metadata),
        replay_allowed=submission.replay_allowed,
    )


def fields_signature(fields: dict, options: SignatureOptions) -> signatures.Signature:
    """The current algorithm's signature of stored (cleaned) fields: a dict or a Finding's attributes."""
    get = fields.get if isinstance(fields, dict) else lambda name: getattr(fields, name)
    return signatures.compute(
        kind=get("kind"),
        crash_type=get("crash_type"),
        trace_text=get("trace"),
        message=get("message"),
        target=get("target"),
        stage=get("stage"),
        reference=get("reference"),
        backends=[(b.get("name", ""), b.get("outcome", "")) for b in get("backends")],
        top_n=options.top_n,
        ignore=options.ignore,
    )


def submission_signature(submission: Submission, options: SignatureOptions) -> signatures.Signature:
    """The signature ingest gives ``submission``."""
    return fields_signature(cleaned_fields(submission), options)
