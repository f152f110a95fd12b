"""PHP's uncaught exceptions with their "Stack trace:" are read (signature v19): the exception's class by its
own name, the frames' functions without their paths, lines and arguments.

The fixture (tests/traces/php) is PaulLereverend/NextcloudDuplicateFinder#80 as posted; before v19 its
namespaces ("OC\\Files\\Utils\\Scanner") were masked as paths and no frame was read.
"""

from __future__ import annotations

from crashes.traces.text import mask_message
from tests.crashes.signing import sign
from tests.traces import fixtures, read_as_recorded

FIXTURE = fixtures("php")[0]


def test_the_class_and_the_frames_are_read():
    _, text, _ = read_as_recorded(FIXTURE)
    signed = sign(text, "nextcloud-app")
    assert signed.frames == (
        "OC\\Files\\Utils\\Scanner::__construct",
        "OCA\\DuplicateFinder\\Utils\\ScannerUtil::initializeScanner",
        "OCA\\DuplicateFinder\\Utils\\ScannerUtil::scan",
    )


def test_another_install_and_release_is_the_same_bucket():
    text = FIXTURE.read_text()
    other = text.replace("/.../nextcloud/", "/var/www/html/").replace("(78)", "(81)").replace("(68)", "(70)")
    assert other != text
    assert sign(other, "nextcloud-app").digest == sign(text, "nextcloud-app").digest


def test_a_namespace_is_no_path():
    assert mask_message("Uncaught Symfony\\Component\\Console\\Exception\\RuntimeException: x", 200) == (
        "Uncaught Symfony\\Component\\Console\\Exception\\RuntimeException: x"
    )
    assert mask_message("error in \\src\\x\\main.cpp:12", 200) == "error in <path>:N"
