from django.contrib import messages
from django.core.paginator import Paginator
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from triage import selectors
from triage.differential import outcome_grid, output_columns
from triage.forms import StatusForm, UploadForm
from triage.highlight import highlighted, trace_language
from triage.models import Bucket, Method, Reduction, Status
from triage.reduction import reduction_request
from triage.reduction_panel import reduction_context
from triage.reports import bucket_pytest, bucket_report_markdown, report_filename
from triage.signatures.v1 import message_text, normalize_message
from triage.status import bucket_set_status


def _int_or_none(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


@require_GET
def bucket_list(request):
    status = request.GET.get("status", "")
    method = request.GET.get("method", "")
    campaign_id = _int_or_none(request.GET.get("campaign"))
    buckets = selectors.bucket_list(status=status, method=method, campaign_id=campaign_id)
    page = Paginator(buckets, 50).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "status": status,
        "method": method,
        "campaign_id": campaign_id,
        "statuses": Status.choices,
        "methods": Method.choices,
        "unparsed_count": selectors.unparsed_count(),
    }
    return render(request, "triage/bucket_list.html", context)


@require_GET
def bucket_detail(request, pk):
    return _bucket_page(request, get_object_or_404(Bucket, pk=pk))


def _bucket_page(request, bucket: Bucket, upload_form: UploadForm | None = None, status: int = 200):
    finding = selectors.bucket_example(bucket)
    context = {
        **reduction_context(bucket),
        "upload_form": upload_form or UploadForm(),
        "bucket": bucket,
        "finding": finding,
        "has_pytest": bool(finding and bucket_pytest(bucket=bucket, finding=finding)),
        "recent": selectors.bucket_recent_findings(bucket),
        "events": bucket.events.select_related("user")[:50],
        "status_form": StatusForm(initial={"status": bucket.status}),
    }
    if finding is not None and finding.backends:
        context["grid"] = outcome_grid(finding)
        context["columns"] = output_columns(finding)
    if finding is not None:
        context["input_html"] = highlighted(finding.testcase, finding.testcase_language)
        context["reproducer_html"] = highlighted(finding.reproducer, "bash")
        context["trace_html"] = highlighted(finding.trace, trace_language(finding.trace_format))
        if bucket.method == "message":
            # What the signature hashed, as it hashed it.
            text = message_text(finding.message, finding.trace, finding.crash_type)
            context["grouped_message"] = normalize_message(text)
    return render(request, "triage/bucket_detail.html", context, status=status)


@require_POST
def bucket_status(request, pk):
    bucket = get_object_or_404(Bucket, pk=pk)
    form = StatusForm(request.POST)
    if form.is_valid():
        bucket_set_status(bucket_id=bucket.pk, status=form.cleaned_data["status"], user=request.user)
    return redirect("triage:bucket", pk=bucket.pk)


@require_GET
def bucket_test(request, pk):
    bucket = get_object_or_404(Bucket, pk=pk)
    finding = selectors.bucket_example(bucket)
    source = bucket_pytest(bucket=bucket, finding=finding) if finding else None
    if source is None:
        raise Http404("no pytest reproducer for this bucket")
    response = HttpResponse(source, content_type="text/x-python; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="test_fuzzweb_bucket_{bucket.pk}.py"'
    return response


@require_GET
def bucket_report(request, pk):
    bucket = get_object_or_404(Bucket, pk=pk)
    report = bucket_report_markdown(bucket=bucket, finding=selectors.bucket_example(bucket))
    response = HttpResponse(report, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{report_filename(bucket)}"'
    return response


@require_GET
def bucket_reduction(request, pk):
    """The reduction panel alone: the bucket page reloads it while a reduction runs."""
    bucket = get_object_or_404(Bucket, pk=pk)
    context = {**reduction_context(bucket), "upload_form": UploadForm()}
    return render(request, "triage/_reduction.html", context)


@require_POST
def bucket_reduce(request, pk):
    bucket = get_object_or_404(Bucket, pk=pk)
    with transaction.atomic():
        Bucket.objects.select_for_update().get(pk=bucket.pk)
        if bucket.reductions.filter(state__in=("queued", "verifying", "reducing")).exists():
            messages.info(request, "A reduction of this bucket is already running.")
        else:
            reduction_request(bucket=bucket, source=Reduction.Source.AGAIN, user=request.user)
            messages.info(request, "Reduction queued.")
    return redirect("triage:bucket", pk=bucket.pk)


@require_POST
def bucket_upload(request, pk):
    bucket = get_object_or_404(Bucket, pk=pk)
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _bucket_page(request, bucket, upload_form=form, status=400)
    reduction_request(bucket=bucket, source=Reduction.Source.UPLOAD, user=request.user, text=form.cleaned_data["text"])
    messages.info(request, "Your version is being verified against this bucket; the result shows below.")
    return redirect("triage:bucket", pk=bucket.pk)
