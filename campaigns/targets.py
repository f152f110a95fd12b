"""Targets defined by their users: one service for the Targets page, the API and target files.

A description is plain data (a TOML or JSON table, a form, an API body):

    name = "gcc-12 against clang-16"
    engine = "differential"          # optional: implied by backends (or by module for pyfunc)
    description = "…"
    language = "c"
    reference = "gcc-12-O0"          # optional: empty means the majority
    generator = { kind = "csmith" }  # or { kind = "command", command = "fuzz-d --seed {seed} -o {out}" }
    [[backends]]
    name = "gcc-12-O2"
    compile = "gcc-12 -O2 -w -I/usr/include/csmith -o {binary} {source}"
    run = "{binary}"

or, for Python functions, ``module`` (and ``package`` to install it from
PyPI), ``include``, ``exclude``, ``setup_modules``, ``ignore_exceptions``.
Every problem is reported at once, each naming its field; nothing is saved
unless the whole description is right.
"""

from __future__ import annotations

import json
import re
import tomllib

from django.db import transaction

from campaigns.models import Target
from engines import registry
from engines.differential import spec
from engines.pyfunc.packages import check, module_of

PYFUNC_FIELDS = ("module", "package", "include", "exclude", "setup_modules", "ignore_exceptions", "search_path")
_DIFFERENTIAL_KEYS = ("language", "suffix", "generator", "backends", "backend", "reference")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


class TargetInvalid(ValueError):
    """The description is wrong; ``problems`` names each field."""

    def __init__(self, name: str, problems: list[str]):
        super().__init__(f"{name or 'target'}: " + "; ".join(problems))
        self.name, self.problems = name, problems


def descriptions_read(text: str, filename: str = "") -> list[dict]:
    """The target descriptions in a TOML or JSON file's text (``[[target]]`` tables, or one target)."""
    if filename.endswith(".json") or text.lstrip().startswith(("{", "[")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise TargetInvalid(filename, [f"not JSON: {error}"]) from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise TargetInvalid(filename, [f"not TOML: {error}"]) from None
    if isinstance(data, dict) and isinstance(data.get("target", data.get("targets")), list):
        data = data.get("target", data.get("targets"))
    items = data if isinstance(data, list) else [data]
    if not all(isinstance(item, dict) for item in items):
        raise TargetInvalid(filename, ["each target is a table"])
    return items


def target_fields_checked(description: dict) -> dict:
    """The model fields a description sets, checked; raises TargetInvalid listing every problem."""
    name = str(description.get("name") or "").strip()
    problems = []
    if not name or len(name) > 100 or "\x00" in name:
        problems.append("name: 1 to 100 characters")
    engine = str(description.get("engine") or "").strip()
    if not engine:
        engine = "differential" if any(k in description for k in ("backends", "backend")) else "pyfunc"
    entry = registry.get(engine)
    if entry is None:
        problems.append(f"engine: one of {', '.join(registry.engines())}")
    fields = {"name": name, "engine": engine, "description": str(description.get("description") or "")[:5000]}
    if entry is not None and entry.user_defined:
        try:
            fields["differential"] = spec.parse(
                {k: description[k] for k in _DIFFERENTIAL_KEYS if k in description}
            ).to_dict()
        except spec.SpecError as error:
            problems += error.problems
    elif entry is not None and entry.name == "pyfunc":
        for key in PYFUNC_FIELDS:
            value = description.get(key) or ""
            if isinstance(value, list) and all(isinstance(item, str) for item in value):
                value = " ".join(value)
            if not isinstance(value, str):
                problems.append(f"{key}: a string, or a list of strings")
                value = ""
            fields[key] = value.strip()
        if fields["package"] and not fields["module"]:
            fields["module"] = module_of(fields["package"])
        if not _MODULE.match(fields["module"]):
            problems.append("module: the module whose functions are fuzzed, e.g. textkit or mypkg.parsing")
        if fields["package"]:
            try:
                check(fields["package"])
            except ValueError as error:
                problems.append(f"package: {error}")
        for key in ("setup_modules",):
            if not all(_MODULE.match(m) for m in fields[key].split()):
                problems.append(f"{key}: module names separated by spaces")
    elif entry is not None and any(k in description for k in _DIFFERENTIAL_KEYS):
        problems.append(f'engine: {engine}\'s backends are built in; use engine = "differential" for your own')
    problems += _unstorable(description, "")
    if problems:
        raise TargetInvalid(name, problems)
    return fields


def text_storable(text: str) -> bool:
    """Whether PostgreSQL can hold ``text`` (stored, or as a query's parameter): no NUL, no lone surrogate."""
    return not _UNSTORABLE.search(text)


def _unstorable(value, where: str) -> list[str]:
    """A problem for each string in ``value`` that PostgreSQL cannot store, in text or in jsonb.

    A form refuses NUL characters, but a JSON body or file can spell them (and
    lone surrogates) as escapes; the save itself would fail, a server error.
    """
    if isinstance(value, str):
        return [] if text_storable(value) else [f"{where}: no NUL characters or lone surrogates"]
    if isinstance(value, dict):
        problems = []
        for key, item in value.items():
            if not text_storable(str(key)):
                problems.append(f"{where or 'description'}: a key with a NUL character or a lone surrogate")
            else:
                problems += _unstorable(item, f"{where}.{key}" if where else str(key))
        return problems
    if isinstance(value, list):
        return [problem for index, item in enumerate(value) for problem in _unstorable(item, f"{where}[{index}]")]
    return []


def target_save(*, description: dict, user=None, replace: bool = True) -> tuple[Target, bool]:
    """Create the target a description names, or (``replace``) update it; returns it and whether it is new."""
    fields = target_fields_checked(description)
    with transaction.atomic():
        target = Target.objects.select_for_update().filter(name=fields["name"]).first()
        if target is not None and not replace:
            raise TargetInvalid(fields["name"], ["name: a target of this name exists"])
        if target is not None and target.engine != fields["engine"] and target.campaigns.exists():
            raise TargetInvalid(fields["name"], [f"engine: the target has campaigns of {target.engine}"])
        created = target is None
        target = target or Target(created_by=user)
        for key, value in fields.items():
            setattr(target, key, value)
        target.save()
    return target, created


def targets_import(text: str, filename: str = "", user=None) -> list[tuple[Target, bool]]:
    """Every target of a file, all or none: the first wrong one stops the import with its problems."""
    descriptions = descriptions_read(text, filename)
    for description in descriptions:
        target_fields_checked(description)
    with transaction.atomic():
        return [target_save(description=d, user=user) for d in descriptions]


def target_description(target: Target) -> dict:
    """The description of ``target`` as a file would hold it (the inverse of target_save)."""
    data = {"name": target.name, "engine": target.engine, "description": target.description}
    if registry.get(target.engine) is not None and registry.get(target.engine).user_defined:
        data.update(target.differential)
    elif target.engine == "pyfunc":
        data.update({key: getattr(target, key) for key in PYFUNC_FIELDS if getattr(target, key)})
    return data
