"""Records the outcome of every corpus cell (tests marked by corpus_support.run_column) for tools/corpus_table.py."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parents[2] / "build" / "corpus"


def pytest_runtest_logreport(report: Any) -> None:
    cell = dict(report.user_properties).get("corpus")
    if cell is None or report.when != "call" and not (report.when == "setup" and report.outcome != "passed"):
        return
    if hasattr(report, "wasxfail"):
        outcome, detail = "xfail", str(report.wasxfail)
    elif report.outcome == "skipped":
        outcome = "skipped"
        detail = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    else:
        outcome = report.outcome
        detail = "" if outcome == "passed" else _first_error(str(report.longrepr))
    RESULTS.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"model": cell[0], "column": cell[1], "outcome": outcome, "detail": detail})
    with open(RESULTS / f"results-{os.getpid()}.jsonl", "a", encoding="utf-8") as f:
        f.write(line + "\n")


def _first_error(text: str) -> str:
    """The first `E ` line of a failure (the exception and its message), else its last line."""
    errors = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    lines = text.strip().splitlines()
    return (errors[0] if errors else lines[-1] if lines else "")[:200]
