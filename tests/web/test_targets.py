"""User-defined targets through the page and the API: one checker, problems named, rights enforced."""

from __future__ import annotations

import json

import django_rq
import pytest
from django.urls import reverse

from campaigns.models import Campaign, Target
from fuzzweb.models import ApiToken
from fuzzweb.tokens import api_token_create
from tests.conftest import BASE_DIR, run_worker_burst, wait_for

PLANTED = BASE_DIR / "tests" / "data" / "planted"
DESCRIPTION = {
    "name": "gcc levels",
    "language": "c",
    "generator": {"kind": "command", "command": f"python3 {PLANTED}/gen_c.py {{seed}} {{out}}"},
    "backends": [
        {"name": "gcc-O0", "compile": "gcc -O0 -w -o {binary} {source}", "run": "{binary}"},
        {"name": "gcc-O2", "compile": "gcc -O2 -w -o {binary} {source}", "run": "{binary}", "memory_mb": 512},
    ],
}


def _form(**overrides) -> dict:
    data = {
        "name": "my compilers",
        "description": "",
        "language": "c",
        "generator": "command",
        "generator_command": "gen --seed {seed} -o {out}",
        "swarm": "on",
        "reference": "",
        "backend-TOTAL_FORMS": "2",
        "backend-INITIAL_FORMS": "0",
        "backend-MIN_NUM_FORMS": "2",
        "backend-MAX_NUM_FORMS": "16",
        "action": "save",
    }
    for index, name in enumerate(("cc-a", "cc-b")):
        data |= {
            f"backend-{index}-name": name,
            f"backend-{index}-compile": f"/opt/{name}/bin/cc -o {{binary}} {{source}}",
            f"backend-{index}-run": "{binary}",
            f"backend-{index}-compile_timeout": "60",
            f"backend-{index}-run_timeout": "10",
            f"backend-{index}-crash_markers": "internal compiler error\nSegmentation fault",
            f"backend-{index}-crash_exit_codes": "4 139",
            f"backend-{index}-environment": "LANG=C",
        }
    return data | overrides


@pytest.mark.django_db
def test_a_triager_defines_a_target_on_the_page_and_gets_it_back_as_a_file(client, triager):
    client.force_login(triager)
    response = client.post(reverse("campaigns:target_new"), _form())
    assert response.status_code == 302
    target = Target.objects.get(name="my compilers")
    assert target.engine == "differential" and target.created_by == triager
    first = target.differential["backends"][0]
    assert first["compile"] == "/opt/cc-a/bin/cc -o {binary} {source}"
    assert first["crash_exit_codes"] == [4, 139] and first["environment"] == {"LANG": "C"}
    # The edit page shows it again, and the file form is what target_import reads.
    page = client.get(reverse("campaigns:target_edit", args=[target.pk])).content.decode()
    assert 'value="/opt/cc-b/bin/cc -o {binary} {source}"' in page
    exported = client.get(reverse("campaigns:target_file", args=[target.pk])).json()
    assert exported["backends"][1]["name"] == "cc-b" and exported["generator"]["command"].startswith("gen ")


@pytest.mark.django_db
def test_a_wrong_target_names_every_problem_and_saves_nothing(client, triager):
    client.force_login(triager)
    wrong = _form(**{"generator_command": "gen -o {out}", "backend-1-name": "cc-a", "backend-1-run": "{bin}"})
    page = client.post(reverse("campaigns:target_new"), wrong).content.decode()
    assert "generator.command: it must use {seed}" in page
    assert "names used twice: cc-a" in page
    assert "unknown placeholder {bin}" in page
    assert not Target.objects.filter(name="my compilers").exists()


@pytest.mark.django_db
def test_a_viewer_sees_targets_but_cannot_define_one(client, viewer):
    client.force_login(viewer)
    assert client.get(reverse("campaigns:targets")).status_code == 200
    assert client.post(reverse("campaigns:target_new"), _form()).status_code == 403
    assert not Target.objects.filter(name="my compilers").exists()


@pytest.mark.django_db
def test_built_in_targets_are_not_edited_on_the_page(client, triager):
    client.force_login(triager)
    builtin = Target.objects.get_or_create(name="C compilers (Csmith)", defaults={"engine": "diff-c"})[0]
    assert client.get(reverse("campaigns:target_edit", args=[builtin.pk])).status_code == 404


@pytest.mark.django_db
def test_the_api_defines_and_launches_only_with_the_replay_right(client, triager):
    token, plain = api_token_create(user=triager, name="ci", scope="write")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {plain}"}
    post = lambda path, body: client.post(path, json.dumps(body), content_type="application/json", **auth)  # noqa: E731
    refused = post(reverse("api:targets"), DESCRIPTION)
    assert refused.status_code == 403 and "replay right" in refused.json()["error"]
    ApiToken.objects.filter(pk=token.pk).update(replay=True)

    wrong = post(reverse("api:targets"), {**DESCRIPTION, "backends": DESCRIPTION["backends"][:1]})
    assert wrong.status_code == 400
    assert "backends: differential testing needs at least two" in wrong.json()["problems"]
    created = post(reverse("api:targets"), DESCRIPTION)
    assert created.status_code == 201, created.content
    assert created.json()["backends"][1]["memory_mb"] == 512
    assert post(reverse("api:targets"), DESCRIPTION).status_code == 200  # the same name again: updated

    bad = post(reverse("api:campaigns"), {"target": "nope", "seconds": 0})
    assert bad.status_code == 400 and set(bad.json()["fields"]) == {"target", "seconds"}
    django_rq.get_queue("engine-differential").empty()
    launched = post(reverse("api:campaigns"), {"target": "gcc levels", "seconds": 5})
    assert launched.status_code == 201
    campaign = Campaign.objects.get(pk=launched.json()["id"])
    # The campaign carries the description it was launched with.
    assert campaign.options["spec"]["backends"][0]["name"] == "gcc-O0"
    assert launched.json()["status"] == "queued" and launched.json()["failing"] is False
    assert client.get(launched.json()["api_url"], **auth).json()["id"] == campaign.pk
    django_rq.get_queue("engine-differential").empty()


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["api:targets", "api:campaigns"])
@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"[1, 2]", "send a JSON object"),
        (b"", "empty body"),
        (b'{"name": "x", ', "malformed JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested"),
        (b'{"seconds": NaN}', "NaN"),
        (b"x" * (256 * 1024 + 1), "262144 byte limit"),
    ],
    ids=["list", "empty", "malformed", "nested", "nan", "oversized"],
)
def test_an_unreadable_api_body_is_a_400_saying_why(client, triager, path, body, words):
    token, plain = api_token_create(user=triager, name="ci", scope="write")
    ApiToken.objects.filter(pk=token.pk).update(replay=True)
    response = client.post(reverse(path), body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {plain}")
    # 400 even when oversized, as these endpoints always answered; the ingest API's is a 413.
    assert response.status_code == 400, response.content
    error = response.json()
    assert words in " ".join([error["error"], *error.get("problems", [])])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("description", "problem"),
    [
        # Found by Schemathesis: joining the list failed, a 500.
        ({"name": "0", "engine": "pyfunc", "module": "json", "search_path": [{}]}, "search_path: a string"),
        ({"name": "t", "module": "json", "description": "a\x00b"}, "description: no NUL"),
        (
            {
                **DESCRIPTION,
                "backends": [
                    {**DESCRIPTION["backends"][0], "environment": {"LANG": "\ud800"}},
                    DESCRIPTION["backends"][1],
                ],
            },
            "backends[0].environment.LANG: no NUL characters or lone surrogates",
        ),
        (
            {
                **DESCRIPTION,
                "backends": [DESCRIPTION["backends"][0], {**DESCRIPTION["backends"][1], "crash_markers": ["x\x00"]}],
            },
            "backends[1].crash_markers[0]: no NUL",
        ),
    ],
    ids=["list-of-objects", "nul-text", "lone-surrogate", "nul-in-json"],
)
def test_a_target_the_database_cannot_hold_is_a_400_naming_the_field(client, triager, description, problem):
    token, plain = api_token_create(user=triager, name="ci", scope="write")
    ApiToken.objects.filter(pk=token.pk).update(replay=True)
    response = client.post(
        reverse("api:targets"),
        json.dumps(description),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {plain}",
    )
    assert response.status_code == 400, response.content
    assert any(problem in line for line in response.json()["problems"]), response.json()
    assert not Target.objects.filter(name=description["name"]).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["gcc\x00levels", "gcc\ud800"], ids=["nul", "lone-surrogate"])
def test_a_campaign_on_a_target_name_no_target_can_have_is_a_400(client, triager, name):
    # Found by Schemathesis: the name went to the query as it was, a 500.
    token, plain = api_token_create(user=triager, name="ci", scope="write")
    ApiToken.objects.filter(pk=token.pk).update(replay=True)
    body = json.dumps({"target": name, "seconds": 5})
    response = client.post(
        reverse("api:campaigns"), body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {plain}"
    )
    assert response.status_code == 400 and set(response.json()["fields"]) == {"target"}
    assert not Campaign.objects.exists()


@pytest.mark.django_db
def test_a_missing_campaign_is_a_404_in_the_api_error_shape(client, triager):
    plain = api_token_create(user=triager, name="ci", scope="read")[1]
    response = client.get(reverse("api:campaign", args=[999999]), HTTP_AUTHORIZATION=f"Bearer {plain}")
    assert response.status_code == 404 and response.json()["error"] == "no campaign #999999"


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_try_it_runs_three_programs_on_a_worker_for_its_owner_only(client, triager, django_user_model):
    client.force_login(triager)
    form = _form(**{
        "generator_command": f"python3 {PLANTED}/gen_c.py {{seed}} {{out}}",
        "backend-0-compile": "gcc -O0 -w -o {binary} {source}",
        "backend-1-compile": "gcc -O1 -w -Wl,--no-such-option -o {binary} {source}",
        "action": "try",
    })  # fmt: skip
    page = client.post(reverse("campaigns:target_new"), form).content.decode()
    assert not Target.objects.filter(name="my compilers").exists()  # tried, not saved
    url = page.split('id="trial" data-url="', 1)[1].split('"', 1)[0]
    assert client.get(url).json()["state"] == "queued"
    result = run_worker_burst(queues=["engine-differential"])
    assert result.returncode == 0, result.stderr[-2000:]
    state = wait_for(lambda: (s := client.get(url).json())["state"] == "done" and s, timeout=30)
    assert state["backends"] == ["cc-a", "cc-b"] and len(state["programs"]) == 3
    second = {r["backend"]: r for r in state["programs"][0]["results"]}["cc-b"]
    assert second["outcome"] == "rejected" and "no-such-option" in second["stderr"]
    other = django_user_model.objects.create_user("someone", password="x-correct-horse")
    client.force_login(other)
    assert client.get(url).status_code == 404


@pytest.mark.django_db
def test_a_package_target_is_named_on_the_page_and_shows_its_install_log(client, triager):
    client.force_login(triager)
    wrong = client.post(reverse("campaigns:target_package"), {"name": "p", "package": "not a package!"})
    assert wrong.status_code == 400 and "package: a distribution from PyPI" in wrong.content.decode()
    response = client.post(
        reverse("campaigns:target_package"), {"name": "slugs", "package": "python-slugify==8.0.4", "module": "slugify"}
    )
    assert response.status_code == 302
    target = Target.objects.get(name="slugs")
    assert (target.engine, target.module, target.package) == ("pyfunc", "slugify", "python-slugify==8.0.4")
    Target.objects.filter(pk=target.pk).update(install_ok=False, install_log="ERROR: <b>No matching distribution</b>")
    page = client.get(reverse("campaigns:targets")).content.decode()
    assert "install failed" in page and "ERROR: &lt;b&gt;No matching distribution&lt;/b&gt;" in page


def _wheel() -> bytes:
    """A small wheel made here: tinypkg 1.0, whose halve() divides by zero for x == 3."""
    import io
    import zipfile

    files = {
        "tinypkg/__init__.py": "def halve(x: int) -> int:\n    return 10 // (x - 3)\n",
        "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: fuzzweb-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    files["tinypkg-1.0.dist-info/RECORD"] = (
        "".join(f"{name},,\n" for name in files) + "tinypkg-1.0.dist-info/RECORD,,\n"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


@pytest.mark.django_db
def test_an_uploaded_archive_is_kept_in_the_database_and_installed_by_the_worker(
    client, triager, tmp_path, monkeypatch
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from campaigns.models import target_fields
    from engines.pyfunc import campaign as pyfunc_campaign
    from engines.registry import Budget
    from tests.engines.test_pyfunc import RecordingSink

    client.force_login(triager)
    wrong = SimpleUploadedFile("notes.txt", b"hello")
    page = client.post(reverse("campaigns:target_package"), {"name": "x", "archive": wrong})
    assert page.status_code == 400 and "archive: a wheel or source archive" in page.content.decode()
    upload = SimpleUploadedFile("tinypkg-1.0-py3-none-any.whl", _wheel())
    assert client.post(reverse("campaigns:target_package"), {"name": "tiny", "archive": upload}).status_code == 302
    target = Target.objects.get(name="tiny")
    assert (target.module, target.package, target.package_archive_name) == (
        "tinypkg",
        "",
        "tinypkg-1.0-py3-none-any.whl",
    )

    # What a worker does with it: written under its content's hash, installed by pip in the sandbox, fuzzed.
    monkeypatch.setenv("FUZZWEB_PACKAGE_DIR", str(tmp_path / "packages"))
    sink = RecordingSink()
    sink.installed = lambda package, log, ok: sink.states.append({"installed": ok, "log": log})
    pyfunc_campaign.run(target_fields(target), {}, Budget(seconds=20, seed=1, max_executions=300), sink)
    assert sink.states[0]["installed"] is True and "Successfully installed tinypkg-1.0" in sink.states[0]["log"]
    assert any(f.crash_type == "ZeroDivisionError" and f.function == "halve" for f in sink.findings)
