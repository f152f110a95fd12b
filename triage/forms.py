from django import forms

from triage.models import Status


class StatusForm(forms.Form):
    status = forms.ChoiceField(choices=Status.choices)
