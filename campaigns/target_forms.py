"""The Targets page's form: a user-defined differential target, field by field.

The form only gathers; campaigns.targets (and under it
engines.differential.spec) checks, so the page, the API and target files
accept exactly the same descriptions and name problems the same way.
"""

from __future__ import annotations

from django import forms

from campaigns.models import Target
from engines.differential import spec

LINES_HELP = "One per line."


class TargetForm(forms.Form):
    name = forms.CharField(max_length=100)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), max_length=5000)
    language = forms.CharField(
        max_length=32,
        help_text="The programs' language: c, cpp, python, kotlin, dafny, rust, … (for highlighting and reduction).",
    )
    suffix = forms.CharField(max_length=12, required=False, help_text="File suffix, if not the language's usual one.")
    generator = forms.ChoiceField(choices=[(kind, kind) for kind in spec.GENERATOR_KINDS], initial="command")
    generator_command = forms.CharField(
        required=False,
        max_length=spec.MAX_COMMAND,
        label="Generator command",
        help_text="Writes one program for {seed} to {out} (or prints it), e.g. fuzz-d --seed {seed} -o {out}.",
    )
    generator_options = forms.CharField(
        required=False, max_length=spec.MAX_COMMAND, help_text="Csmith: options added to every run."
    )
    swarm = forms.BooleanField(required=False, initial=True, help_text="Csmith: a random feature set per program.")
    reference = forms.CharField(
        required=False, max_length=64, help_text="The backend whose output counts as right; empty for the majority."
    )

    def as_description(self, backends: list[dict]) -> dict:
        data = self.cleaned_data
        generator = {"kind": data["generator"], "swarm": data["swarm"]}
        if data["generator_command"]:
            generator["command"] = data["generator_command"]
        if data["generator_options"]:
            generator["options"] = data["generator_options"]
        return {
            "name": data["name"],
            "engine": "differential",
            "description": data["description"],
            "language": data["language"],
            "suffix": data["suffix"],
            "generator": generator,
            "reference": data["reference"],
            "backends": backends,
        }


class BackendForm(forms.Form):
    name = forms.CharField(max_length=64)
    compile = forms.CharField(
        required=False,
        max_length=spec.MAX_COMMAND,
        help_text="With {source} and {binary}; empty for an interpreter.",
    )
    run = forms.CharField(max_length=spec.MAX_COMMAND, help_text="{binary}, or an interpreter with {source}.")
    version = forms.CharField(required=False, max_length=spec.MAX_COMMAND, help_text="e.g. gcc-12 --version")
    environment = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 1}), help_text="NAME=value, one per line."
    )
    compile_timeout = forms.FloatField(initial=60, min_value=1, max_value=3600)
    run_timeout = forms.FloatField(initial=10, min_value=1, max_value=3600)
    memory_mb = forms.IntegerField(required=False, min_value=16, max_value=64 * 1024, label="Memory (MiB)")
    crash_markers = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Text in the compiler's stderr that means it crashed. " + LINES_HELP,
        initial="\n".join(spec.DEFAULT_CRASH_MARKERS),
    )
    crash_exit_codes = forms.CharField(
        required=False, max_length=200, help_text="Exit statuses that mean a crash, space separated."
    )
    paths = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 1}),
        help_text="Directories the commands may read besides the system's. " + LINES_HELP,
    )

    def as_description(self) -> dict:
        data = self.cleaned_data
        environment = {}
        for line in data["environment"].splitlines():
            name, separator, value = line.strip().partition("=")
            if separator:
                environment[name.strip()] = value.strip()
        codes = data["crash_exit_codes"].split()
        return {
            "name": data["name"],
            "compile": data["compile"],
            "run": data["run"],
            "version": data["version"],
            "environment": environment,
            "compile_timeout": data["compile_timeout"],
            "run_timeout": data["run_timeout"],
            "memory_mb": data["memory_mb"],
            "crash_markers": [line.strip() for line in data["crash_markers"].splitlines() if line.strip()],
            "crash_exit_codes": [int(code) if code.isdigit() else code for code in codes],
            "paths": [line.strip() for line in data["paths"].splitlines() if line.strip()],
        }


BackendFormSet = forms.formset_factory(BackendForm, extra=0, min_num=2, validate_min=True, max_num=spec.MAX_BACKENDS)


def initial_for(target: Target | None) -> tuple[dict, list[dict]]:
    """The forms' initial data for editing ``target`` (two empty backends for a new one)."""
    if target is None or not target.differential:
        return {"generator": "command", "swarm": True}, [{}, {}]
    data = target.differential
    generator = data.get("generator", {})
    form = {
        "name": target.name,
        "description": target.description,
        "language": data.get("language", ""),
        "suffix": data.get("suffix", ""),
        "generator": generator.get("kind", "command"),
        "generator_command": generator.get("command", ""),
        "generator_options": " ".join(generator.get("options", [])),
        "swarm": generator.get("swarm", True),
        "reference": data.get("reference", ""),
    }
    backends = [
        {
            **backend,
            "environment": "\n".join(f"{k}={v}" for k, v in backend.get("environment", {}).items()),
            "crash_markers": "\n".join(backend.get("crash_markers", [])),
            "crash_exit_codes": " ".join(str(c) for c in backend.get("crash_exit_codes", [])),
            "paths": "\n".join(backend.get("paths", [])),
        }
        for backend in data.get("backends", [])
    ]
    return form, backends
