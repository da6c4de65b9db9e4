"""The README's corpus table, generated from the last corpus test run (build/corpus/results-*.jsonl, written by
tests/python/conftest.py): one row per model, one column per stage. `--print` shows it without writing."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "build" / "corpus"
BEGIN, END = "<!-- corpus-table:begin -->", "<!-- corpus-table:end -->"
COLUMNS = {"export": "(a) export + lower", "compile": "(b) compile, no_grad", "train": "(b) compile, training step",
           "onnx": "(c) ONNX Runtime"}
MARK = {"passed": "pass", "failed": "**FAIL**", "skipped": "skipped", "xfail": "xfail"}


def collect() -> dict[str, dict[str, dict[str, str]]]:
    cells: dict[str, dict[str, dict[str, str]]] = {}
    for path in sorted(RESULTS.glob("results-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            cells.setdefault(r["model"], {})[r["column"]] = r
    return cells


def table(cells: dict[str, dict[str, dict[str, str]]]) -> str:
    notes: list[str] = []
    rows = ["| model | " + " | ".join(COLUMNS.values()) + " |", "|---|" + "---|" * len(COLUMNS)]
    for model in sorted(cells):
        marks = []
        for column in COLUMNS:
            cell = cells[model].get(column)
            if cell is None:
                marks.append("not run")
                continue
            gap = cell["outcome"] == "xfail" and cell["detail"].startswith("realify gap")
            mark = "**realify gap**" if gap else MARK[cell["outcome"]]
            if cell["outcome"] != "passed":
                note = f"{model} {column}: {cell['detail']}"
                if note not in notes:
                    notes.append(note)
                mark += f" [{notes.index(note) + 1}]"
            marks.append(mark)
        rows.append(f"| {model} | " + " | ".join(marks) + " |")
    totals = {o: sum(c["outcome"] == o for m in cells.values() for c in m.values()) for o in MARK}
    summary = ", ".join(f"{n} {MARK[o].strip('*').lower()}" for o, n in totals.items() if n)
    lines = rows + ["", f"{len(cells)} models, {summary}."]
    if notes:
        lines += [""] + [f"{i + 1}. {n}" for i, n in enumerate(notes)]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--print", action="store_true", help="print the table, leave the README alone")
    args = parser.parse_args()
    cells = collect()
    if not cells:
        print("no corpus results in build/corpus: run the corpus tests first", file=sys.stderr)
        return 1
    text = table(cells)
    if args.print:
        print(text)
        return 0
    readme = ROOT / "README.md"
    body = readme.read_text(encoding="utf-8")
    if BEGIN not in body or END not in body:
        print(f"README.md has no {BEGIN} ... {END} markers", file=sys.stderr)
        return 1
    head, rest = body.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    tmp = readme.with_suffix(".md.tmp")
    tmp.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", encoding="utf-8")
    tmp.replace(readme)
    print(f"README.md: corpus table of {len(cells)} models")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
