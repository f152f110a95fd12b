from django import forms

from campaigns.models import Target


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
