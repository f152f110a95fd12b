"""The bucket page's and bucket list's triage actions: each a POST that calls one service and redirects.

Viewers never get here: fuzzweb.roles refuses their posts before any view.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import Http404
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from triage.culprits import culprit_move_undo
from triage.forms import BucketEditForm, BulkForm, CommentForm, DuplicateForm, RestrictForm, SplitForm
from triage.merge import bucket_merge, bucket_merge_undo, bucket_split
from triage.models import Bucket, BucketMove, Tracker
from triage.restriction import bucket_restrict
from triage.trackers import TrackerError, issue_file
from triage.visibility import RESTRICT_PERMISSION, bucket_visible_or_404, visible_buckets
from triage.workflow import TriageError, bucket_comment, bucket_update, bucket_watch, buckets_bulk


def _back(request, pk):
    return redirect("triage:bucket", pk=pk)


def _form_errors(request, form) -> None:
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, error)


@require_POST
def bucket_edit(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    form = BucketEditForm(request.POST, initial={"status": bucket.status}, duplicate=bucket.status == "duplicate")
    if not form.is_valid():
        _form_errors(request, form)
        return _back(request, pk)
    data = form.cleaned_data
    changed = bucket_update(
        bucket_id=bucket.pk,
        user=request.user,
        status=data["status"],
        assignee_id=data["assignee"].pk if data["assignee"] else None,
        priority=data["priority"],
        label_ids=[label.pk for label in data["labels"]],
        muted=data["muted"],
    )
    messages.info(request, f"Saved: {', '.join(changed)}." if changed else "Nothing changed.")
    return _back(request, pk)


@require_POST
def bucket_comment_add(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    form = CommentForm(request.POST)
    if form.is_valid():
        try:
            bucket_comment(bucket_id=bucket.pk, user=request.user, text=form.cleaned_data["text"])
        except TriageError as error:
            messages.error(request, str(error))
    else:
        _form_errors(request, form)
    return _back(request, pk)


@require_POST
def bucket_watch_toggle(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    bucket_watch(bucket_id=bucket.pk, user=request.user, watching=request.POST.get("watch") == "1")
    return _back(request, pk)


@require_POST
def bucket_duplicate(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    form = DuplicateForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return _back(request, pk)
    target = form.cleaned_data["target"]
    if not visible_buckets(request.user).filter(pk=target).exists():
        messages.error(request, f"No bucket #{target}.")
        return _back(request, pk)
    try:
        move = bucket_merge(source_id=bucket.pk, target_id=target, user=request.user)
    except TriageError as error:
        messages.error(request, str(error))
        return _back(request, pk)
    messages.info(request, f"Marked duplicate of #{move.target_id}: {len(move.finding_ids)} findings moved there.")
    return _back(request, pk)


@require_POST
def bucket_duplicate_undo(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    try:
        move = bucket_merge_undo(source_id=bucket.pk, user=request.user)
    except TriageError as error:
        messages.error(request, str(error))
    else:
        messages.info(request, f"No longer a duplicate of #{move.target_id}; its findings are back.")
    return _back(request, pk)


@require_POST
def bucket_culprit_undo(request, pk, move_id):
    """Send the findings a culprit move brought into this bucket back to their provisional bucket."""
    bucket = bucket_visible_or_404(request.user, pk)
    if not BucketMove.objects.filter(pk=move_id, target_id=bucket.pk, kind=BucketMove.Kind.CULPRIT).exists():
        raise Http404("No such move into this bucket.")
    back = culprit_move_undo(move_id=move_id, user=request.user)
    messages.info(request, f"{back} findings went back to their provisional bucket.")
    return _back(request, pk)


@require_POST
def bucket_split_out(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    ids = bucket.findings.values_list("pk", flat=True)
    form = SplitForm(request.POST, finding_ids=ids)
    if not form.is_valid():
        messages.error(request, "Choose findings of this bucket to move out.")
        return _back(request, pk)
    try:
        new = bucket_split(source_id=bucket.pk, finding_ids=form.cleaned_data["findings"], user=request.user)
    except TriageError as error:
        messages.error(request, str(error))
        return _back(request, pk)
    messages.info(request, f"Moved {new.findings.count()} findings to the new bucket #{new.pk}.")
    return _back(request, new.pk)


@require_POST
@permission_required(RESTRICT_PERMISSION, raise_exception=True)
def bucket_restrict_set(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    form = RestrictForm(request.POST, user=request.user)
    if not form.is_valid():
        _form_errors(request, form)
        return _back(request, pk)
    group = form.cleaned_data["group"]
    try:
        changed = bucket_restrict(bucket_id=bucket.pk, group_id=group.pk if group else None, user=request.user)
    except TriageError as error:
        messages.error(request, str(error))
    else:
        shown = f"only to {group.name}" if group else "to everyone"
        messages.info(request, f"Shown {shown}." if changed else "Nothing changed.")
    return _back(request, pk)


@require_POST
def bucket_file(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    tracker_id = request.POST.get("tracker", "")
    if not tracker_id.isdigit():
        messages.error(request, "Choose the tracker to file to.")
        return _back(request, pk)
    try:
        filed = issue_file(bucket_id=bucket.pk, tracker_id=int(tracker_id), user=request.user)
    except (TrackerError, Tracker.DoesNotExist) as error:
        messages.error(request, str(error) or "No such tracker.")
    else:
        messages.info(request, f"Filed as {filed.url}")
    return _back(request, pk)


@require_POST
def buckets_bulk_action(request):
    ids = [int(value) for value in request.POST.getlist("buckets") if value.isdigit()]
    visible = visible_buckets(request.user, Bucket.objects.filter(pk__in=ids))
    form = BulkForm(request.POST, bucket_ids=visible.values_list("pk", flat=True))
    if form.is_valid():
        try:
            changed = buckets_bulk(
                bucket_ids=form.cleaned_data["buckets"],
                user=request.user,
                action=form.cleaned_data["action"],
                value=form.cleaned_data["value"],
            )
        except TriageError as error:
            messages.error(request, str(error))
        else:
            messages.info(request, f"{changed} of {len(form.cleaned_data['buckets'])} buckets changed.")
    else:
        _form_errors(request, form)
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}) or not back.startswith("/"):
        back = "/triage/buckets/"
    return redirect(back)
