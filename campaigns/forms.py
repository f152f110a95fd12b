from django import forms

from campaigns.engines import builtin_language
from campaigns.models import Target
from engines import registry
from engines.differential.engine import LANGUAGES, installed_backends


class _LanguageTagged:
    """A choice widget whose options carry ``data-language``: the launch page shows a target's backends only."""

    def language_of(self, value) -> str:
        raise NotImplementedError

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        language = self.language_of(value)
        if language:
            option["attrs"]["data-language"] = language
        return option


class TargetSelect(_LanguageTagged, forms.Select):
    def language_of(self, value) -> str:
        target = getattr(value, "instance", None)  # a ModelChoiceIteratorValue
        return builtin_language(target.engine) if target is not None else ""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if diversity_offered(self.language_of(value)):
            option["attrs"]["data-diversity"] = "1"
        return option


def diversity_offered(language: str) -> bool:
    return language in LANGUAGES and LANGUAGES[language].counts_constructs


class _BackendLanguages(_LanguageTagged):
    languages: dict[str, str] = {}

    def language_of(self, value) -> str:
        return self.languages.get(str(value), "")


class BackendCheckboxes(_BackendLanguages, forms.CheckboxSelectMultiple):
    pass


class BackendSelect(_BackendLanguages, forms.Select):
    pass


def _option_field(option: registry.Option) -> forms.Field:
    if option.kind == "bool":
        return forms.BooleanField(label=option.label, required=False, help_text=option.help)
    if option.kind == "backends":
        return forms.MultipleChoiceField(
            label=option.label, required=False, widget=BackendCheckboxes, help_text=option.help
        )
    if option.kind == "reference":
        return forms.ChoiceField(label=option.label, required=False, widget=BackendSelect, help_text=option.help)
    raise ValueError(f"no form field for launch options of kind {option.kind!r}")


class LaunchForm(forms.Form):
    target = forms.ModelChoiceField(queryset=Target.objects.all(), empty_label=None, widget=TargetSelect)
    time_budget_seconds = forms.IntegerField(
        label="Time budget (seconds)", min_value=5, max_value=7 * 24 * 3600, initial=60
    )
    shard_count = forms.IntegerField(
        label="Workers (shards)",
        min_value=1,
        max_value=64,
        initial=2,
        help_text="Parallel jobs, each with its own seed; each needs a free worker.",
    )
    max_executions = forms.IntegerField(
        label="Execution budget",
        required=False,
        min_value=1,
        help_text="Optional: stop after this many executions in total.",
    )
    seed = forms.IntegerField(
        required=False, min_value=0, max_value=2**31 - 1, help_text="Leave empty for a random seed."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The engines' launch options (engines/registry.py), each field once.
        for option in {o.name: o for e in registry.engines().values() for o in e.options}.values():
            self.fields[option.name] = _option_field(option)
        languages = {
            name: entry.language
            for entry in registry.engines().values()
            if entry.language
            for name in installed_backends(entry.language)
        }
        self.fields["backends"].choices = [(name, name) for name in languages]
        self.fields["reference"].choices = [("", "the majority"), *((name, name) for name in languages)]
        self.fields["backends"].widget.languages = self.fields["reference"].widget.languages = languages

    def clean(self):
        data = super().clean()
        target = data.get("target")
        language = builtin_language(target.engine) if target is not None else ""
        if not language:
            data["backends"], data["reference"], data["diversity"] = [], "", False
            return data
        if data.get("diversity") and not diversity_offered(language):
            self.add_error("diversity", f"The {language} generator does not count its constructs: no diversity mode.")
        offered = installed_backends(language)
        chosen = data.get("backends") or offered
        foreign = [name for name in chosen if name not in offered]
        if foreign:
            self.add_error("backends", f"Not backends of {language}: {', '.join(foreign)}.")
        chosen = [name for name in chosen if name in offered]
        if len(chosen) < 2:
            self.add_error("backends", "Choose at least two backends of this target's language.")
        if data.get("reference") and data["reference"] not in chosen:
            self.add_error("reference", "The reference must be one of the chosen backends.")
        data["backends"] = chosen
        return data

    def launch_options(self) -> dict:
        """campaign_launch's keyword arguments."""
        data = dict(self.cleaned_data)
        backends, reference, diverse = data.pop("backends"), data.pop("reference"), data.pop("diversity")
        data["options"] = {"backends": backends, "reference": reference} if backends else {}
        if diverse:
            data["options"]["diversity"] = True
        return data
