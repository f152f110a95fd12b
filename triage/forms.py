from django import forms

from triage import text
from triage.models import Status


class StatusForm(forms.Form):
    status = forms.ChoiceField(choices=Status.choices)


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
