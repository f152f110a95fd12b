from django import forms

from campaigns.models import Target


class LaunchForm(forms.Form):
    target = forms.ModelChoiceField(queryset=Target.objects.all(), empty_label=None)
    time_budget_seconds = forms.IntegerField(
        label="Time budget (seconds)", min_value=5, max_value=7 * 24 * 3600, initial=60
    )
    seed = forms.IntegerField(
        required=False, min_value=0, max_value=2**31 - 1, help_text="Leave empty for a random seed."
    )
