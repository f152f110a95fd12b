from django import forms

from triage import text
from triage.models import Kind, Label, Method, Priority, Status


class UploadForm(forms.Form):
    """A maintainer's smaller version of the testcase: pasted, or uploaded as a file."""

    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}), required=False)
    file = forms.FileField(required=False)

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("file")
        if upload is not None:
            if upload.size > text.INPUT_LIMIT:
                raise forms.ValidationError(f"The file is {upload.size} bytes; at most {text.INPUT_LIMIT} are taken.")
            try:
                cleaned["text"] = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError("The file is not UTF-8 text; a testcase here is a program.") from None
        content = cleaned.get("text") or ""
        if not content.strip():
            raise forms.ValidationError("Paste the smaller version or choose a file.")
        if len(content) > text.INPUT_LIMIT:
            raise forms.ValidationError(f"That is {len(content)} characters; at most {text.INPUT_LIMIT} are taken.")
        if "\x00" in content:
            raise forms.ValidationError("The text holds NUL characters; a testcase here is a program.")
        # Browsers send textarea line ends as CRLF; the program was written with LF.
        cleaned["text"] = content.replace("\r\n", "\n")
        return cleaned


def _users():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(is_active=True).order_by("username")


class TriageStateFilters(forms.Form):
    """The status, assignee and label filters both lists have (of the bucket, on the finding list)."""

    status = forms.ChoiceField(choices=[("", "any")] + Status.choices, required=False)
    assignee = forms.CharField(required=False, max_length=20, help_text="a user id, or 'none'")
    label = forms.ModelChoiceField(queryset=Label.objects.all(), required=False, empty_label="any")

    @staticmethod
    def triage_state(data: dict) -> dict:
        """Those filters as both list queries take them (assignee "none": nobody)."""
        assignee = data.get("assignee") or ""
        return {
            "status": data.get("status") or "",
            "assignee_id": int(assignee) if assignee.isdigit() else None,
            "unassigned": assignee == "none",
            "label_id": data["label"].pk if data.get("label") else None,
        }


class BucketFilterForm(TriageStateFilters):
    """The bucket list's query string; anything invalid is ignored rather than an error page."""

    q = forms.CharField(required=False, max_length=200, label="Search traces and programs")
    kind = forms.ChoiceField(choices=[("", "any")] + Kind.choices, required=False)
    method = forms.ChoiceField(choices=[("", "any")] + Method.choices, required=False, label="Grouped by")
    campaign = forms.IntegerField(required=False, min_value=1)
    target = forms.CharField(required=False, max_length=255)
    engine = forms.CharField(required=False, max_length=64)
    after = forms.DateField(required=False, label="Seen since", widget=forms.DateInput(attrs={"type": "date"}))
    before = forms.DateField(required=False, label="First seen by", widget=forms.DateInput(attrs={"type": "date"}))
    muted = forms.BooleanField(required=False, label="Muted only")
    regression = forms.BooleanField(required=False, label="Regressions only")
    sort = forms.ChoiceField(
        choices=[
            ("last_seen", "last seen"),
            ("first_seen", "first seen (newest)"),
            ("oldest", "first seen (oldest)"),
            ("hits", "hits"),
            ("priority", "priority"),
        ],
        required=False,
    )

    def query(self):
        from triage.selectors import BucketQuery

        data = self.cleaned_data if self.is_valid() else {}
        return BucketQuery(
            **self.triage_state(data),
            method=data.get("method") or "",
            kind=data.get("kind") or "",
            campaign_id=data.get("campaign"),
            target=data.get("target") or "",
            engine=data.get("engine") or "",
            seen_after=data.get("after"),
            seen_before=data.get("before"),
            text=data.get("q") or "",
            muted=bool(data.get("muted")),
            regression=bool(data.get("regression")),
            sort=data.get("sort") or "last_seen",
        )


class FindingFilterForm(TriageStateFilters):
    """The finding list's query string; status, assignee and label are those of the finding's bucket."""

    q = forms.CharField(required=False, max_length=200, label="Search traces and programs")
    kind = forms.ChoiceField(choices=[("", "any")] + Kind.choices, required=False)
    campaign = forms.IntegerField(required=False, min_value=1)
    target = forms.CharField(required=False, max_length=255)
    engine = forms.CharField(required=False, max_length=64)
    after = forms.DateField(required=False, label="Seen since", widget=forms.DateInput(attrs={"type": "date"}))
    before = forms.DateField(required=False, label="Found by", widget=forms.DateInput(attrs={"type": "date"}))
    sort = forms.ChoiceField(
        choices=[
            ("last_seen", "last seen"),
            ("first_seen", "found (newest)"),
            ("oldest", "found (oldest)"),
            ("hits", "hits"),
        ],
        required=False,
    )

    def query(self):
        from triage.selectors import FindingQuery

        data = self.cleaned_data if self.is_valid() else {}
        return FindingQuery(
            **self.triage_state(data),
            kind=data.get("kind") or "",
            campaign_id=data.get("campaign"),
            target=data.get("target") or "",
            engine=data.get("engine") or "",
            seen_after=data.get("after"),
            seen_before=data.get("before"),
            text=data.get("q") or "",
            sort=data.get("sort") or "last_seen",
        )


class BucketEditForm(forms.Form):
    """The bucket page's triage form. Duplicate is not offered: that is set by naming the bucket."""

    status = forms.ChoiceField(choices=[c for c in Status.choices if c[0] != Status.DUPLICATE], required=False)
    assignee = forms.ModelChoiceField(queryset=None, required=False, empty_label="nobody")
    priority = forms.TypedChoiceField(choices=Priority.choices, coerce=int, empty_value=0)
    labels = forms.ModelMultipleChoiceField(
        queryset=Label.objects.all(), required=False, widget=forms.CheckboxSelectMultiple
    )
    muted = forms.BooleanField(required=False, label="Muted (hits counted, never shown as new)")

    def __init__(self, *args, duplicate: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assignee"].queryset = _users()
        if duplicate:
            self.fields["status"].disabled = True
            self.fields["status"].choices = Status.choices

    @classmethod
    def for_bucket(cls, bucket):
        return cls(
            initial={
                "status": bucket.status,
                "assignee": bucket.assignee_id,
                "priority": bucket.priority,
                "labels": list(bucket.labels.all()),
                "muted": bucket.muted,
            },
            duplicate=bucket.status == Status.DUPLICATE,
        )


class CommentForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=20_000)


class DuplicateForm(forms.Form):
    target = forms.IntegerField(min_value=1, label="Duplicate of bucket #")


class SplitForm(forms.Form):
    findings = forms.TypedMultipleChoiceField(coerce=int, choices=())

    def __init__(self, *args, finding_ids=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["findings"].choices = [(pk, pk) for pk in finding_ids]


class BulkForm(forms.Form):
    ACTIONS = [
        ("status", "Set status"),
        ("assign", "Assign to"),
        ("label", "Add label"),
        ("mute", "Mute"),
        ("unmute", "Unmute"),
    ]
    buckets = forms.TypedMultipleChoiceField(coerce=int, choices=())
    action = forms.ChoiceField(choices=ACTIONS)
    status = forms.ChoiceField(choices=[c for c in Status.choices if c[0] != Status.DUPLICATE], required=False)
    assignee = forms.ModelChoiceField(queryset=None, required=False, empty_label="nobody")
    label = forms.ModelChoiceField(queryset=Label.objects.all(), required=False)

    def __init__(self, *args, bucket_ids=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["buckets"].choices = [(pk, pk) for pk in bucket_ids]
        self.fields["assignee"].queryset = _users()

    def clean(self):
        cleaned = super().clean()
        action = cleaned.get("action")
        if action == "label" and not cleaned.get("label"):
            raise forms.ValidationError("Choose the label to add.")
        if action == "status" and not cleaned.get("status"):
            raise forms.ValidationError("Choose the status to set.")
        values = {
            "status": cleaned.get("status") or "",
            "assign": str(cleaned["assignee"].pk) if cleaned.get("assignee") else "",
            "label": str(cleaned["label"].pk) if cleaned.get("label") else "",
        }
        cleaned["value"] = values.get(action, "")
        return cleaned


class RestrictForm(forms.Form):
    """An admin's choice of who may see a bucket: one of their groups, or everyone."""

    group = forms.ModelChoiceField(queryset=None, required=False, empty_label="everyone (not restricted)")

    def __init__(self, *args, user, **kwargs):
        from triage.visibility import restrict_choices

        super().__init__(*args, **kwargs)
        self.fields["group"].queryset = restrict_choices(user)

    @classmethod
    def for_user(cls, user, bucket):
        return cls(user=user, initial={"group": bucket.restricted_to_id})
