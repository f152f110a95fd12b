"""QGIS's crash dialog (crashes.traces.qgis), on reports from QGIS's tracker (tests/data/dedup)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import qgis
from tests.crashes.signing import sign, sign_record
from tests.data.record_digests import dedup_records

RECORDS = dedup_records()


def test_the_dialogs_stack_is_read_and_qts_dispatch_is_no_frame():
    # qgis/QGIS#36649: the crash is in a signal QMetaObject::activate delivered to the map renderer.
    parsed = traces.parse(RECORDS["qgis/QGIS#36649"]["trace"])
    assert parsed.format == qgis.FORMAT and parsed.crash_type == ""
    assert parsed.frames[0].function == "QMetaObject::activate"
    assert (parsed.frames[1].file, parsed.frames[1].line) == ("qgsmaprenderercustompainterjob.cpp", 159)
    assert sign_record("qgis/QGIS#36649").frames == (
        "QgsMapRendererCustomPainterJob::cancelWithoutBlocking",
        "QgsMapCanvas::stopPreviewJobs",
        "QgsMapCanvas::refreshMap",
    )


def test_frames_without_symbols_are_read_by_their_function():
    # qgis/QGIS#39342: every frame " :" (a build without debug files); the crash is in Qt's undo stack.
    assert sign_record("qgis/QGIS#39342").frames[:2] == ("QUndoStack::setIndex", "QUndoView::setStack")


def test_one_crash_from_another_release_is_one_bucket_and_another_is_not():
    text = RECORDS["qgis/QGIS#36649"]["trace"]
    later = (
        text.replace("ed5d5ec973b366c2ee071f6886c412fcf10b8d6f", "0f3a9d1c2b7e6a5d4c3b2a190817263544536271")
        .replace("qgsmaprenderercustompainterjob.cpp:159", "qgsmaprenderercustompainterjob.cpp:171")
        .replace("3.10.6", "3.16.1")
    )
    assert later != text
    assert sign(later).digest == sign(text).digest
    other = text.replace("QgsMapCanvas::stopPreviewJobs", "QgsMapCanvas::cancelJobs")
    assert sign(other).digest != sign(text).digest


def test_a_heading_without_a_stack_is_not_the_dialog():
    assert not qgis.recognize("Crash ID: " + "a" * 40 + "\n\nStack Trace\n\nIt crashed when I clicked.\n")
    assert not qgis.recognize("Stack Trace\n\nQObject::event :\nQWidget::event :\n")
    assert qgis.recognize("Crash ID: " + "a" * 40 + "\n\nStack Trace\n\nQObject::event :\nf a.cpp:3\n")


def test_one_crash_pasted_by_many_users_in_the_dialogs_markdown_is_one_bucket():
    # qgis/QGIS#28104's crash on exit (jef-n: "Duplicate of #28104" on #31266 and #31443), pasted with
    # "*Crash ID*:" or "**Crash ID**:", the stack in a <pre> block or a code fence, under other Crash IDs.
    same = [sign_record(rid) for rid in ("qgis/QGIS#31266", "qgis/QGIS#31443", "qgis/QGIS#30753", "qgis/QGIS#33176")]
    assert len({signature.digest for signature in same}) == 1
    assert same[0].trace_format == qgis.FORMAT
    assert same[0].frames[:2] == ("proj_lpz_dist", "QgsCoordinateTransform::transformPolygon")
    # qgis/QGIS#32632: one frame only, under the dialog's headings, is still its stack.
    assert sign_record("qgis/QGIS#32632").frames == ("QBasicMutex::unlockInternal",)


def test_the_python_threads_printed_above_the_crash_are_not_its_stack():
    # QGIS 3.2x's dialog prints "Python Stack Trace" (faulthandler's) above the native "Stack Trace".
    text = (
        "**Crash ID**: [62c06df51ba84c32376002e25009cb4640285a25](https://github.com/qgis/QGIS/search?q=x)\n\n"
        "**Python Stack Trace**\n```\nWindows fatal exception: access violation\n\n"
        "Current thread 0x000002e4 (most recent call first):\n"
        '  File "C:\\\\PROGRA~1/QGIS/apps/qgis/python\\\\qgis\\\\utils.py", line 888 in _import\n```\n\n'
        "**Stack Trace**\n```\nQgsVectorLayer::setRenderer qgsvectorlayer.cpp:4120\n"
        "QgsRendererPropertiesDialog::apply :\nQgisApp::layerProperties :\n```\n\n**QGIS Info**\n"
    )
    parsed = traces.parse(text)
    assert parsed.format == qgis.FORMAT
    assert [frame.function for frame in parsed.frames][:2] == [
        "QgsVectorLayer::setRenderer",
        "QgsRendererPropertiesDialog::apply",
    ]
