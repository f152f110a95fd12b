from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from triage import selectors
from triage.differential import outcome_grid, output_columns
from triage.forms import (
    BucketEditForm,
    BucketFilterForm,
    BulkForm,
    CommentForm,
    FindingFilterForm,
    RestrictForm,
    UploadForm,
)
from triage.highlight import highlighted, highlighted_trace
from triage.lookalike import bucket_lookalike_sets
from triage.models import Bucket, BucketMove, Reduction, Tracker
from triage.overview import overview_data
from triage.pagination import CappedPaginator
from triage.reduction import reduction_again, reduction_request
from triage.reduction_panel import reduction_context
from triage.reports import FORMATS, bucket_pytest, render_report, report_data, report_filename
from triage.selectors import FindingQuery
from triage.trackers import filed_today, issue_text
from triage.visibility import bucket_visible_or_404, can_restrict, visible_buckets

PAGE_SIZE = 50


def _query_without_page(request) -> str:
    params = request.GET.copy()
    params.pop("page", None)
    return params.urlencode()


@require_GET
def bucket_list(request):
    form = BucketFilterForm(request.GET or None)
    page = Paginator(selectors.bucket_list(form.query(), user=request.user), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {
        "form": form,
        "page": page,
        "query": _query_without_page(request),
        "bulk_form": BulkForm(),
        "unparsed_count": selectors.unparsed_count(user=request.user),
        **selectors.filter_choices(),
    }
    return render(request, "triage/bucket_list.html", context)


@require_GET
def overview(request):
    return render(request, "triage/overview.html", {"data": overview_data(user=request.user)})


@require_GET
def finding_list(request):
    form = FindingFilterForm(request.GET or None)
    query = form.query()
    paginator = CappedPaginator(
        selectors.finding_list(query, user=request.user), PAGE_SIZE, unfiltered=query == FindingQuery(sort=query.sort)
    )
    page = paginator.get_page(request.GET.get("page"))
    context = {"form": form, "page": page, "query": _query_without_page(request), **selectors.filter_choices()}
    return render(request, "triage/finding_list.html", context)


@require_GET
def bucket_detail(request, pk):
    return _bucket_page(request, bucket_visible_or_404(request.user, pk))


def _bucket_page(request, bucket: Bucket, upload_form: UploadForm | None = None, status: int = 200):
    finding = selectors.bucket_example(bucket)
    lookalikes, reported_lookalikes = bucket_lookalike_sets(bucket, user=request.user)
    context = {
        **reduction_context(bucket, user=request.user),
        "upload_form": upload_form or UploadForm(),
        "bucket": bucket,
        "finding": finding,
        "has_pytest": bool(finding and bucket_pytest(bucket=bucket, finding=finding)),
        "recent": selectors.bucket_recent_findings(bucket),
        "events": selectors.bucket_events(bucket, user=request.user),
        "edit_form": BucketEditForm.for_bucket(bucket),
        "comment_form": CommentForm(),
        "comments": bucket.comments.select_related("user"),
        "watching": request.user.is_authenticated and bucket.watchers.filter(pk=request.user.pk).exists(),
        "watchers": list(bucket.watchers.order_by("username")),
        "lookalikes": lookalikes,
        "reported_lookalikes": reported_lookalikes,
        "trackers": [(t, filed_today(t)) for t in Tracker.objects.all()],
        "duplicates": list(visible_buckets(request.user, bucket.duplicates.order_by("pk").only("pk", "title"))),
        "duplicate_of": selectors.bucket_duplicate_of(bucket, user=request.user),
        "fuzzy_match": selectors.bucket_fuzzy_match(bucket, user=request.user),
        "culprit_moves": list(
            bucket.moves_in.filter(kind=BucketMove.Kind.CULPRIT, undone_at__isnull=True).order_by("pk")[:20]
        ),
        "culprit_moves_out": list(
            bucket.moves_out.filter(kind=BucketMove.Kind.CULPRIT, undone_at__isnull=True).order_by("pk")[:20]
        ),
        "restrict_form": RestrictForm.for_user(request.user, bucket) if can_restrict(request.user) else None,
    }
    if finding is not None and finding.backends:
        context["grid"] = outcome_grid(finding)
        context["columns"] = output_columns(finding)
    if finding is not None:
        context["input_html"] = highlighted(finding.testcase, finding.testcase_language)
        context["reproducer_html"] = highlighted(finding.reproducer, "bash")
        context["trace_html"], context["trace_dimmed"] = highlighted_trace(finding.trace, finding.trace_format)
        context["why"] = selectors.finding_grouping(finding)
    return render(request, "triage/bucket_detail.html", context, status=status)


@require_GET
def bucket_test(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    finding = selectors.bucket_example(bucket)
    source = bucket_pytest(bucket=bucket, finding=finding) if finding else None
    if source is None:
        raise Http404("no pytest reproducer for this bucket")
    response = HttpResponse(source, content_type="text/x-python; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="test_fuzzweb_bucket_{bucket.pk}.py"'
    return response


@require_GET
def bucket_report(request, pk, extension="md"):
    """The issue report as a download: Markdown, Bugzilla text or JSON; ``?tracker=`` uses that tracker's template."""
    if extension not in FORMATS:
        raise Http404("reports come as .md, .txt or .json")
    bucket = bucket_visible_or_404(request.user, pk)
    tracker_id = request.GET.get("tracker", "")
    # A tracker's own template writes Markdown: it applies to the .md export only.
    if tracker_id.isdigit() and extension == "md":
        tracker = get_object_or_404(Tracker, pk=int(tracker_id))
        report = issue_text(tracker, bucket)[1]
    else:
        report = render_report(report_data(bucket=bucket, finding=selectors.bucket_example(bucket)), extension)
    response = HttpResponse(report, content_type=FORMATS[extension][0])
    response["Content-Disposition"] = f'attachment; filename="{report_filename(bucket, extension)}"'
    return response


@require_GET
def bucket_reduction(request, pk):
    """The reduction panel alone: the bucket page reloads it while a reduction runs."""
    bucket = bucket_visible_or_404(request.user, pk)
    context = {**reduction_context(bucket, user=request.user), "upload_form": UploadForm()}
    return render(request, "triage/_reduction.html", context)


@require_POST
def bucket_reduce(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    if reduction_again(bucket_id=bucket.pk, user=request.user) is None:
        messages.info(request, "A reduction of this bucket is already running.")
    else:
        messages.info(request, "Reduction queued.")
    return redirect("triage:bucket", pk=bucket.pk)


@require_POST
def bucket_upload(request, pk):
    bucket = bucket_visible_or_404(request.user, pk)
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _bucket_page(request, bucket, upload_form=form, status=400)
    reduction_request(bucket=bucket, source=Reduction.Source.UPLOAD, user=request.user, text=form.cleaned_data["text"])
    messages.info(request, "Your version is being verified against this bucket; the result shows below.")
    return redirect("triage:bucket", pk=bucket.pk)
