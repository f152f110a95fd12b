"""What a differential finding's page shows: the outcome grid and the outputs side by side."""

from __future__ import annotations

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


def _first_diverging(reference: list[str], lines: list[str]) -> int | None:
    for index in range(max(len(reference), len(lines))):
        if (reference[index] if index < len(reference) else None) != (lines[index] if index < len(lines) else None):
            return index
    return None


def output_columns(finding) -> list[dict]:
    """The reference's output beside each disagreeing backend's, the first diverging line marked."""
    by_name = {b.get("name"): b for b in finding.backends}
    reference = by_name.get(finding.reference)
    if reference is None:
        return []
    expected = (reference.get("output") or "").splitlines()
    columns = [{"name": finding.reference, "outcome": "reference", "lines": expected, "diverges_at": None}]
    for backend in finding.backends:
        if backend.get("outcome") != "wrong_output" or len(columns) >= MAX_COLUMNS:
            continue
        lines = (backend.get("output") or "").splitlines()
        columns.append(
            {
                "name": backend["name"],
                "outcome": "wrong_output",
                "lines": lines,
                "diverges_at": _first_diverging(expected, lines),
            }
        )
    for column in columns:
        column["rows"] = [
            {"number": i + 1, "text": text, "diverges": i == column["diverges_at"]}
            for i, text in enumerate(column["lines"][:MAX_LINES])
        ]
        if column["diverges_at"] is not None and column["diverges_at"] >= len(column["lines"]):
            column["rows"].append({"number": column["diverges_at"] + 1, "text": "<end of output>", "diverges": True})
    return columns
