from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from campaigns.engines import is_differential
from campaigns.forms import LaunchForm
from campaigns.functions import function_page, function_rows
from campaigns.launch import campaign_clone, campaign_launch, campaign_resume, campaign_stop
from campaigns.models import Campaign
from campaigns.programs import program_outcomes
from campaigns.selectors import campaign_list_rows, campaign_progress


@require_GET
def campaign_list(request):
    return render(request, "campaigns/list.html", {"rows": campaign_list_rows(user=request.user)})


def campaign_new(request):
    form = LaunchForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = campaign_launch(user=request.user, **form.launch_options())
        return redirect("campaigns:detail", pk=campaign.pk)
    return render(request, "campaigns/new.html", {"form": form})


@require_GET
def campaign_detail(request, pk):
    campaign = get_object_or_404(Campaign.objects.select_related("target", "cloned_from"), pk=pk)
    progress = campaign_progress(campaign, user=request.user)
    functions = function_rows(campaign, progress["discovery"], user=request.user)
    context = {
        "campaign": campaign,
        "progress": progress,
        "functions": functions,
        "programs": program_outcomes(campaign, user=request.user) if is_differential(campaign.engine) else None,
    }
    return render(request, "campaigns/detail.html", context)


@require_GET
def campaign_function(request, pk, name):
    campaign = get_object_or_404(Campaign.objects.select_related("target"), pk=pk)
    line = request.GET.get("line", "")
    page = function_page(campaign, name, int(line) if line.isdigit() else None, user=request.user)
    if page is None:
        raise Http404("No examples of this function yet.")
    return render(request, "campaigns/function.html", {"campaign": campaign, "page": page})


@require_GET
def campaign_progress_json(request, pk):
    campaign = get_object_or_404(Campaign, pk=pk)
    return JsonResponse(campaign_progress(campaign, user=request.user))


@require_POST
def campaign_stop_view(request, pk):
    campaign = get_object_or_404(Campaign, pk=pk)
    if not campaign_stop(campaign_id=campaign.pk):
        messages.info(request, "The campaign had already ended.")
    return redirect("campaigns:detail", pk=campaign.pk)


@require_POST
def campaign_clone_view(request, pk):
    campaign = get_object_or_404(Campaign, pk=pk)
    clone = campaign_clone(campaign_id=campaign.pk, user=request.user)
    return redirect("campaigns:detail", pk=clone.pk)


@require_POST
def campaign_resume_view(request, pk):
    campaign = get_object_or_404(Campaign, pk=pk)
    if not campaign_resume(campaign_id=campaign.pk):
        messages.info(request, "Only a stopped or failed campaign can be resumed.")
    return redirect("campaigns:detail", pk=campaign.pk)
