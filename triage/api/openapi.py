"""The OpenAPI 3.1 description of the API (findings, buckets, targets, campaigns), served at /api/v1/openapi.json."""

from __future__ import annotations

from campaigns.api import BODY_LIMIT as CAMPAIGNS_BODY_LIMIT
from campaigns.api import MAX_SECONDS
from campaigns.models import CampaignStatus
from campaigns.targets import PYFUNC_FIELDS
from engines import registry
from engines.differential import spec
from triage.api.buckets import API_SORTS, MAX_PAGE
from triage.api.changes import COMMENT_LIMIT, SETTABLE_STATUSES
from triage.api.payload import MAX_BULK
from triage.models import Priority, Status
from triage.submission import (
    KINDS,
    MAX_BACKEND_OUTPUT,
    MAX_BACKENDS,
    MAX_HITS,
    MAX_TESTCASE_BYTES,
    MAX_VERSIONS,
    OUTCOMES,
    SHORT_FIELDS,
)

_ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {"type": "string"},
        "fields": {"type": "object", "additionalProperties": {"type": "string"}},
        "problems": {"type": "array", "items": {"type": "string"}, "description": "An invalid target's problems."},
    },
}
_FINDING = {
    "type": "object",
    "additionalProperties": False,
    "required": ["kind", "target"],
    "properties": {
        "kind": {"enum": list(KINDS)},
        "target": {"type": "string", "maxLength": SHORT_FIELDS["target"], "minLength": 1},
        "engine": {"type": "string", "maxLength": SHORT_FIELDS["engine"], "description": "afl++, libfuzzer, ..."},
        "function": {"type": "string", "maxLength": SHORT_FIELDS["function"]},
        "stage": {"type": "string", "maxLength": SHORT_FIELDS["stage"], "description": "compile, run, ..."},
        "crash_type": {"type": "string", "maxLength": SHORT_FIELDS["crash_type"]},
        "message": {"type": "string"},
        "trace": {"type": "string", "description": "Stack trace or crash output; format auto-detected."},
        "testcase": {"type": "string", "maxLength": MAX_TESTCASE_BYTES, "description": "The testcase as text."},
        "testcase_base64": {"type": "string", "contentEncoding": "base64", "description": "A binary testcase."},
        "testcase_language": {"type": "string", "pattern": "^[a-z0-9+#._-]{1,32}$", "default": "text"},
        "reproducer": {"type": "string", "description": "A command that reproduces the finding."},
        "reference": {"type": "string", "maxLength": SHORT_FIELDS["reference"], "description": "Reference backend."},
        "backends": {
            "type": "array",
            "maxItems": MAX_BACKENDS,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "outcome"],
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": SHORT_FIELDS["target"]},
                    "outcome": {"enum": list(OUTCOMES)},
                    "output": {"type": "string", "maxLength": MAX_BACKEND_OUTPUT},
                    "exit_code": {"type": ["integer", "null"], "minimum": -(2**31), "maximum": 2**31 - 1},
                },
            },
        },
        "versions": {
            "type": "object",
            "maxProperties": MAX_VERSIONS,
            "additionalProperties": {"type": ["string", "number"]},
        },
        "metadata": {"type": "object"},
        "hits": {"type": "integer", "minimum": 1, "maximum": MAX_HITS, "default": 1, "description": "Failing runs."},
    },
}
_STORED = {
    "type": "object",
    "properties": {
        "finding": {"type": "integer"},
        "bucket": {"type": "integer"},
        "new_bucket": {"type": "boolean"},
        "duplicate": {"type": "boolean"},
        "bucket_url": {"type": "string"},
    },
}


_BUCKET = {
    "type": "object",
    "required": ["id", "title", "kind", "status", "hit_count", "labels", "url"],
    "properties": {
        "id": {"type": "integer"},
        "title": {"type": "string"},
        "kind": {"enum": list(KINDS)},
        "status": {"enum": list(Status.values)},
        "crash_type": {"type": "string"},
        "method": {"type": "string"},
        "signature": {"type": "string"},
        "signature_version": {"type": "integer"},
        "hit_count": {"type": "integer"},
        "first_seen": {"type": "string", "format": "date-time"},
        "last_seen": {"type": "string", "format": "date-time"},
        "assignee": {"type": ["string", "null"]},
        "priority": {"enum": list(Priority.values)},
        "labels": {"type": "array", "items": {"type": "string"}},
        "muted": {"type": "boolean"},
        "regression": {"type": "boolean"},
        "duplicate_of": {"type": ["integer", "null"]},
        "issue_url": {"type": "string"},
        "representative": {"type": ["integer", "null"]},
        "url": {"type": "string", "description": "The bucket's page."},
    },
}
_BUCKET_CHANGES = {
    "type": "object",
    "additionalProperties": False,
    "minProperties": 1,
    "description": "Fields to change; each change is audited as the user who owns the token.",
    "properties": {
        "status": {"enum": list(SETTABLE_STATUSES)},
        "assignee": {"type": ["string", "null"], "description": "A user name; null for nobody."},
        "priority": {"enum": list(Priority.values)},
        "labels": {"type": "array", "items": {"type": "string"}, "description": "The whole set, by name."},
        "muted": {"type": "boolean"},
        "comment": {"type": "string", "minLength": 1, "maxLength": COMMENT_LIMIT},
    },
}


_COMMAND = {"type": "string", "maxLength": spec.MAX_COMMAND}
_STRINGS = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
# Open, as the service reads it: keys it does not know are ignored, and every
# problem comes back at once in the 400's ``problems``.
_TARGET = {
    "type": "object",
    "required": ["name"],
    "description": "A target as a target file holds it: backends and a generator (differential), or a module.",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Defines or replaces it."},
        "engine": {"enum": list(registry.engines()), "description": "Implied by backends, else pyfunc."},
        "description": {"type": "string"},
        "language": {"type": "string", "description": "c, python, kotlin, dafny, ..."},
        "suffix": {"type": "string", "pattern": "^\\.[A-Za-z0-9]{1,10}$"},
        "reference": {"type": "string", "description": "A backend's name; empty: the majority decides."},
        "generator": {
            "anyOf": [
                {"enum": list(spec.GENERATOR_KINDS)},
                {
                    "type": "object",
                    "properties": {
                        "kind": {"enum": list(spec.GENERATOR_KINDS)},
                        "command": {**_COMMAND, "description": "kind = command: uses {seed}, writes {out}."},
                        "swarm": {"type": "boolean"},
                        "options": _STRINGS,
                        "timeout": {"type": "number", "minimum": 1, "maximum": 600},
                    },
                },
            ]
        },
        "backends": {
            "type": "array",
            "minItems": 2,
            "maxItems": spec.MAX_BACKENDS,
            "items": {
                "type": "object",
                "required": ["name", "run"],
                "properties": {
                    "name": {"type": "string", "pattern": spec.NAME.pattern},
                    "compile": {**_COMMAND, "description": "Uses {source}, writes {binary} or into {workdir}."},
                    "run": _COMMAND,
                    "version": _COMMAND,
                    "compile_timeout": {"type": "number", "minimum": 1, "maximum": 3600},
                    "run_timeout": {"type": "number", "minimum": 1, "maximum": 3600},
                    "memory_mb": {"type": ["number", "null"], "minimum": 16, "maximum": 64 * 1024},
                    "environment": {"type": "object", "additionalProperties": {"type": ["string", "number"]}},
                    "crash_markers": {"type": "array", "items": {"type": "string", "minLength": 1}},
                    "crash_exit_codes": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 255}},
                    "paths": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
        **{field: _STRINGS for field in PYFUNC_FIELDS},
    },
}
_CAMPAIGN_LAUNCH = {
    "type": "object",
    "required": ["target", "seconds"],
    "properties": {
        "target": {"type": "string", "description": "An existing target's name."},
        "seconds": {"type": "integer", "minimum": 1, "maximum": MAX_SECONDS, "description": "The time budget."},
        "shards": {"type": "integer", "minimum": 1, "maximum": 64, "default": 1},
        "seed": {"type": ["integer", "null"], "minimum": 0, "maximum": 2**31 - 1, "description": "Null: random."},
    },
}
_CAMPAIGN = {
    "type": "object",
    "required": ["id", "target", "status", "active", "buckets", "failing"],
    "properties": {
        "id": {"type": "integer"},
        "target": {"type": "string"},
        "status": {"enum": list(CampaignStatus.values)},
        "active": {"type": "boolean"},
        "error": {"type": "string"},
        "executions": {"type": "integer"},
        "findings": {"type": "integer"},
        "elapsed_seconds": {"type": "number"},
        "time_budget_seconds": {"type": "integer"},
        "buckets": {
            "type": "array",
            "description": "The buckets it hit that the token's account may see.",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "title": {"type": "string"},
                    "kind": {"enum": list(KINDS)},
                    "status": {"enum": list(Status.values)},
                    "muted": {"type": "boolean"},
                    "new": {"type": "boolean", "description": "Opened by this campaign."},
                    "url": {"type": "string"},
                },
            },
        },
        "failing": {"type": "boolean", "description": "It opened a bucket nobody muted: what CI fails on."},
        "api_url": {"type": "string", "description": "Where to poll it (in the answer to a launch)."},
    },
}
_CAMPAIGN_LINE = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "target": {"type": "string"},
        "status": {"enum": list(CampaignStatus.values)},
        "created_at": {"type": "string", "format": "date-time"},
        "api_url": {"type": "string"},
    },
}


def _json(schema_ref: str) -> dict:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema_ref}"}}}


def openapi_document(server_url: str) -> dict:
    """The schema, with ``server_url`` as the server."""
    errors = {
        "400": {"description": "Malformed or invalid body", "content": _json("Error")},
        "413": {"description": "Body over 32 MiB, refused unread", "content": _json("Error")},
        "401": {"description": "Missing, invalid or revoked token", "content": _json("Error")},
    }
    bucket_id = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}
    forbidden = {"description": "The token's scope or account may not do this", "content": _json("Error")}
    missing = {"description": "No such bucket (or one restricted to a group you are not in)", "content": _json("Error")}
    unauthorized = errors["401"]
    # Defining a target or launching a campaign makes workers run commands.
    may_not_run = {
        "description": "The token's scope or account may not do this, or the token lacks the replay right",
        "content": _json("Error"),
    }
    # These answer an oversized body with a 400 like any unreadable one, not a 413.
    unreadable = f"or the body is not a JSON object of at most {CAMPAIGNS_BODY_LIMIT // 1024} KiB"
    return {
        "openapi": "3.1.0",
        "info": {"title": "fuzzweb API", "version": "1"},
        "servers": [{"url": server_url.rstrip("/")}],
        "security": [{"token": []}],
        "paths": {
            "/api/v1/findings": {
                "post": {
                    "summary": "Submit one finding",
                    "requestBody": {"required": True, "content": _json("Finding")},
                    "responses": {
                        "201": {"description": "Stored", "content": _json("Stored")},
                        "200": {"description": "Same testcase seen before: counted", "content": _json("Stored")},
                        **errors,
                    },
                }
            },
            "/api/v1/buckets": {
                "get": {
                    "summary": "List buckets, newest activity first",
                    "parameters": [
                        {"name": "status", "in": "query", "schema": {"enum": list(Status.values)}},
                        {"name": "kind", "in": "query", "schema": {"enum": list(KINDS)}},
                        {
                            "name": "q",
                            "in": "query",
                            "schema": {"type": "string", "maxLength": 200},
                            "description": "Full-text search over the findings' traces, programs and messages.",
                        },
                        {"name": "sort", "in": "query", "schema": {"enum": list(API_SORTS)}},
                        {
                            "name": "page",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
                        },
                    ],
                    "responses": {
                        "200": {"description": "One page of 50", "content": _json("BucketPage")},
                        "400": {"description": "A query parameter out of its range", "content": _json("Error")},
                        "401": unauthorized,
                        "403": forbidden,
                        "404": {"description": "Past the last page", "content": _json("Error")},
                    },
                }
            },
            "/api/v1/buckets/{id}": {
                "get": {
                    "summary": "One bucket",
                    "parameters": [bucket_id],
                    "responses": {
                        "200": {"description": "The bucket", "content": _json("Bucket")},
                        "401": unauthorized,
                        "403": forbidden,
                        "404": missing,
                    },
                },
                "patch": {
                    "summary": "Triage a bucket (a token with the write scope)",
                    "parameters": [bucket_id],
                    "requestBody": {"required": True, "content": _json("BucketChanges")},
                    "responses": {
                        "200": {"description": "Changed; the bucket as it now is", "content": _json("Bucket")},
                        # An oversized body is a 400 here like any unreadable one, not a 413.
                        "400": {
                            "description": "Unreadable or invalid changes, or a change the workflow refuses",
                            "content": _json("Error"),
                        },
                        "401": unauthorized,
                        "403": forbidden,
                        "404": missing,
                    },
                },
            },
            "/api/v1/findings/bulk": {
                "post": {
                    "summary": f"Submit up to {MAX_BULK} findings",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["findings"],
                                    "properties": {
                                        "findings": {
                                            "type": "array",
                                            "minItems": 1,
                                            "maxItems": MAX_BULK,
                                            "items": {"$ref": "#/components/schemas/Finding"},
                                        }
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "200": {"description": "All stored", "content": _json("BulkResult")},
                        "422": {"description": "Some rejected, the rest stored", "content": _json("BulkResult")},
                        **errors,
                    },
                }
            },
            "/api/v1/targets": {
                "get": {
                    "summary": "List the targets, by name",
                    "responses": {
                        "200": {
                            "description": "Every target, as a target file holds it",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {
                                            "targets": {
                                                "type": "array",
                                                "items": {"$ref": "#/components/schemas/Target"},
                                            }
                                        },
                                    }
                                }
                            },
                        },
                        "401": unauthorized,
                        "403": forbidden,
                    },
                },
                "post": {
                    "summary": "Define a target, or replace the one of that name (write scope and the replay right)",
                    "requestBody": {"required": True, "content": _json("Target")},
                    "responses": {
                        "201": {"description": "Defined", "content": _json("Target")},
                        "200": {"description": "A target of that name was replaced", "content": _json("Target")},
                        "400": {
                            "description": f"Invalid: each problem in problems, {unreadable}",
                            "content": _json("Error"),
                        },
                        "401": unauthorized,
                        "403": may_not_run,
                    },
                },
            },
            "/api/v1/campaigns": {
                "get": {
                    "summary": "The 50 most recent campaigns, newest first",
                    "responses": {
                        "200": {
                            "description": "The campaigns",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"campaigns": {"type": "array", "items": _CAMPAIGN_LINE}},
                                    }
                                }
                            },
                        },
                        "401": unauthorized,
                        "403": forbidden,
                    },
                },
                "post": {
                    "summary": "Launch a campaign on a target (write scope and the replay right)",
                    "requestBody": {"required": True, "content": _json("CampaignLaunch")},
                    "responses": {
                        "201": {"description": "Queued; poll api_url", "content": _json("Campaign")},
                        "400": {
                            "description": f"Invalid: each field's problem in fields, {unreadable}",
                            "content": _json("Error"),
                        },
                        "401": unauthorized,
                        "403": may_not_run,
                    },
                },
            },
            "/api/v1/campaigns/{id}": {
                "get": {
                    "summary": "A campaign's state and the buckets it hit",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}
                    ],
                    "responses": {
                        "200": {"description": "The campaign", "content": _json("Campaign")},
                        "404": {"description": "No such campaign", "content": _json("Error")},
                        "401": unauthorized,
                        "403": forbidden,
                    },
                },
            },
        },
        "components": {
            "securitySchemes": {"token": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Finding": _FINDING,
                "Stored": _STORED,
                "Bucket": _BUCKET,
                "BucketChanges": _BUCKET_CHANGES,
                "BucketPage": {
                    "type": "object",
                    "required": ["count", "page", "pages", "results"],
                    "properties": {
                        "count": {"type": "integer"},
                        "page": {"type": "integer"},
                        "pages": {"type": "integer"},
                        "results": {"type": "array", "items": {"$ref": "#/components/schemas/Bucket"}},
                    },
                },
                "Error": _ERROR,
                "Target": _TARGET,
                "CampaignLaunch": _CAMPAIGN_LAUNCH,
                "Campaign": _CAMPAIGN,
                "BulkResult": {
                    "type": "object",
                    "properties": {
                        "stored": {"type": "integer"},
                        "rejected": {"type": "integer"},
                        "results": {"type": "array", "items": _STORED},
                        "errors": {"type": "array", "items": _ERROR},
                    },
                },
            },
        },
    }
