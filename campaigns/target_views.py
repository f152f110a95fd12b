"""The Targets page: list targets, define or edit a user-defined differential target, try it first."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from campaigns.engines import is_user_defined
from campaigns.models import Target
from campaigns.target_forms import BackendFormSet, TargetForm, initial_for
from campaigns.targets import TargetInvalid, target_description, target_fields_checked, target_save
from campaigns.trial import trial_enqueue, trial_state
from engines.pyfunc.packages import MAX_ARCHIVE_BYTES, archive_name_checked, module_of
from fuzzweb.roles import can_change


@require_GET
def target_list(request):
    return render(request, "campaigns/targets.html", {"targets": Target.objects.order_by("name")})


@require_POST
def target_package(request):
    """A Python package as a pyfunc target: from PyPI, a path on the workers, or an uploaded archive."""
    if not can_change(request.user):
        return HttpResponseForbidden("Your account can read but not change anything.")
    fields = {key: request.POST.get(key, "").strip() for key in ("name", "package", "module", "include")}
    upload = request.FILES.get("archive")
    try:
        if upload is not None:
            fields["package"] = ""
            archive_name = _upload_checked(upload)
            fields["module"] = fields["module"] or module_of(archive_name)
        target, created = target_save(description={**fields, "engine": "pyfunc"}, user=request.user, replace=False)
    except TargetInvalid as error:
        context = {
            "targets": Target.objects.order_by("name"),
            "package_problems": error.problems,
            "package_form": fields,
        }
        return render(request, "campaigns/targets.html", context, status=400)
    if upload is not None:
        Target.objects.filter(pk=target.pk).update(package_archive=upload.read(), package_archive_name=archive_name)
    messages.success(request, f"Target {target.name} created: launch a campaign on it to install and fuzz it.")
    return redirect("campaigns:targets")


def _upload_checked(upload) -> str:
    problems = []
    try:
        name = archive_name_checked(upload.name)
    except ValueError as error:
        problems.append(f"archive: {error}")
        name = ""
    if upload.size > MAX_ARCHIVE_BYTES:
        problems.append(f"archive: at most {MAX_ARCHIVE_BYTES // 2**20} MiB")
    if problems:
        raise TargetInvalid("", problems)
    return name


def target_edit(request, pk: int | None = None):
    target = get_object_or_404(Target, pk=pk) if pk is not None else None
    if target is not None and not is_user_defined(target.engine):
        raise Http404("Only user-defined differential targets are edited here; the others in the admin.")
    if request.method == "POST" and not can_change(request.user):
        return HttpResponseForbidden("Your account can read but not change anything.")
    initial, backends = initial_for(target)
    form = TargetForm(request.POST or None, initial=initial)
    formset = BackendFormSet(request.POST or None, initial=backends, prefix="backend")
    problems: list[str] = []
    trial = None
    if request.method == "POST" and form.is_valid() and formset.is_valid():
        description = form.as_description([f.as_description() for f in formset.forms if f.cleaned_data])
        try:
            target_fields_checked(description)
            if (
                target is not None
                and description["name"] != target.name
                and Target.objects.filter(name=description["name"]).exists()
            ):
                raise TargetInvalid(description["name"], ["name: another target has this name"])
            if request.POST.get("action") == "try":
                trial = trial_enqueue(description=description, user=request.user)
            else:
                if target is not None and description["name"] != target.name:
                    Target.objects.filter(pk=target.pk).update(name=description["name"])
                saved, created = target_save(description=description, user=request.user, replace=target is not None)
                messages.success(request, f"Target {saved.name} {'created' if created else 'saved'}.")
                return redirect("campaigns:targets")
        except TargetInvalid as error:
            problems = error.problems
    return render(
        request,
        "campaigns/target_edit.html",
        {"target": target, "form": form, "formset": formset, "problems": problems, "trial": trial},
    )


@require_GET
def target_trial(request, job_id: str):
    state = trial_state(job_id=job_id, user=request.user)
    if state is None:
        raise Http404("No such trial (it is kept for an hour, for whoever started it).")
    return JsonResponse(state)


@require_GET
def target_file(request, pk: int):
    """The target as a file holds it (JSON), for a team's version control."""
    target = get_object_or_404(Target, pk=pk)
    return JsonResponse(target_description(target), json_dumps_params={"indent": 2})
