"""What a differential finding's page shows: the outcome grid and the outputs side by side."""

from __future__ import annotations

from engines.differential.compare import first_difference

MAX_COLUMNS = 4
MAX_LINES = 400


def outcome_grid(finding) -> list[dict]:
    """One row per backend: stage reached, outcome, exit status, time, memory, version."""
    details = {d.get("name"): d for d in finding.metadata.get("backend_details", []) if isinstance(d, dict)}
    rows = []
    for backend in finding.backends:
        detail = details.get(backend.get("name"), {})
        stage = detail.get("stage", "")
        rows.append(
            {
                "name": backend.get("name", ""),
                "outcome": backend.get("outcome", ""),
                "compiled": "—" if stage == "" else ("✗" if stage == "compile" else "✓"),
                "ran": "✓" if stage == "run" else "—",
                "exit_code": backend.get("exit_code"),
                "seconds": detail.get("seconds"),
                "peak_memory_kb": detail.get("peak_memory_kb"),
                "version": detail.get("version", ""),
                "is_reference": backend.get("name") == finding.reference,
                "stderr": detail.get("stderr", ""),
            }
        )
    return rows


def _column(name: str, outcome: str, text: str, diverges_at: int | None = None) -> dict:
    lines = text.splitlines()
    rows = [{"number": i + 1, "text": line, "diverges": i == diverges_at} for i, line in enumerate(lines[:MAX_LINES])]
    if diverges_at is not None and diverges_at >= len(lines):
        rows.append({"number": diverges_at + 1, "text": "<end of output>", "diverges": True})
    return {"name": name, "outcome": outcome, "rows": rows}


def output_columns(finding) -> list[dict]:
    """The reference's output beside each disagreeing backend's, the first diverging line marked."""
    by_name = {b.get("name"): b for b in finding.backends}
    reference = by_name.get(finding.reference)
    if reference is None:
        return []
    expected = reference.get("output") or ""
    columns = [_column(finding.reference, "reference", expected)]
    for backend in finding.backends:
        if backend.get("outcome") != "wrong_output" or len(columns) >= MAX_COLUMNS:
            continue
        actual = backend.get("output") or ""
        # The engine's rule for the first differing line (1-based; 0 when only the exit status differs).
        line = first_difference(expected, actual)["line"]
        columns.append(_column(backend["name"], "wrong_output", actual, line - 1 if line else None))
    return columns
