from django import forms

from campaigns.engines import DIFFERENTIAL_LANGUAGES
from campaigns.models import Target
from engines.differential.engine import installed_backends


class LaunchForm(forms.Form):
    target = forms.ModelChoiceField(queryset=Target.objects.all(), empty_label=None)
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
    backends = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Differential targets: the backends to compare (only those installed here are offered).",
    )
    reference = forms.ChoiceField(
        required=False,
        help_text="Differential targets: whose output counts as right; empty for the majority.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        offered = [name for language in DIFFERENTIAL_LANGUAGES.values() for name in installed_backends(language)]
        self.fields["backends"].choices = [(name, name) for name in offered]
        self.fields["reference"].choices = [("", "the majority"), *((name, name) for name in offered)]

    def clean(self):
        data = super().clean()
        target = data.get("target")
        if target is None or target.engine not in DIFFERENTIAL_LANGUAGES:
            data["backends"], data["reference"] = [], ""
            return data
        offered = installed_backends(DIFFERENTIAL_LANGUAGES[target.engine])
        chosen = [name for name in data.get("backends") or offered if name in offered]
        if len(chosen) < 2:
            self.add_error("backends", "Choose at least two backends of this target's language.")
        if data.get("reference") and data["reference"] not in chosen:
            self.add_error("reference", "The reference must be one of the chosen backends.")
        data["backends"] = chosen
        return data

    def launch_options(self) -> dict:
        """campaign_launch's keyword arguments."""
        data = dict(self.cleaned_data)
        backends, reference = data.pop("backends"), data.pop("reference")
        data["options"] = {"backends": backends, "reference": reference} if backends else {}
        return data
