from django import forms
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from fuzzweb.models import Scope
from fuzzweb.tokens import api_token_create, api_token_revoke


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="What will use it, e.g. 'AFL++ cluster'.")
    # Left out, a token gets the least it could need: submitting findings.
    scope = forms.ChoiceField(choices=Scope.choices, initial=Scope.INGEST, required=False)


def token_list(request):
    form = TokenForm(request.POST or None)
    created = None
    if request.method == "POST" and form.is_valid():
        _, created = api_token_create(
            user=request.user, name=form.cleaned_data["name"], scope=form.cleaned_data["scope"] or Scope.INGEST
        )
        form = TokenForm()
    tokens = request.user.api_tokens.all()
    return render(request, "account/tokens.html", {"form": form, "tokens": tokens, "created": created})


@require_POST
def token_revoke(request, pk):
    api_token_revoke(token_id=pk, user=request.user)
    return redirect("account:tokens")
