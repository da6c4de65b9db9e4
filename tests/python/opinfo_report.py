"""docs/op-coverage.md from the OpInfo measurement (the one test_opinfo.py makes).

`make coverage` runs test_opinfo.py with REALIFY_WRITE_COVERAGE=1, whose last test writes the file from the results
it measured; without the variable that test checks the file against them instead.
"""

from __future__ import annotations

import re

import torch
from opinfo_support import (
    BASE_TOL,
    ERROR_BY_DESIGN,
    KNOWN_GAP,
    LINALG_FAMILY,
    LINALG_NOTES,
    MAX_SAMPLES,
    MODES,
    NOT_APPLICABLE,
    OTHER_ISSUE,
    SKIPS,
    UNDEFINED_VALUES,
    UNTRACEABLE_SAMPLES,
    OpResult,
    in_denominator,
    kind_of,
)

DOC_PATH = "docs/op-coverage.md"
MODE_TITLES = {"c64": "complex64", "c128": "complex128", "trunc": "complex128, truncate_double"}
EXPORT_TITLE = "torch.export, complex64"
EXPORT_LINE = "- torch.export path"
EXPORT_CELL = re.compile(r"(pass|raises|FAIL) (\d+)/(\d+)")


def headline(results: dict[str, OpResult]) -> tuple[int, int]:
    names = [n for n in results if in_denominator(n)]
    return sum(results[n].passed for n in names), len(names)


def percent(passed: int, total: int) -> str:
    return f"{100.0 * passed / total:.1f}%" if total else "n/a"


def cell(res: OpResult, mode: str) -> str:
    ok, total = res.counts(mode)
    status = res.mode_status(mode)
    word = {"pass": "pass", "unsupported": "raises", "no sample": "no sample"}.get(status, "FAIL")
    return f"{word} {ok}/{total}"


def export_word(res: OpResult) -> str:
    measured = [r for r in res.export if r.status != "unexportable"]
    if not res.export:
        return "no sample"
    if not measured:
        return "not exportable"
    bad = [r for r in measured if r.status != "pass"]
    if not bad:
        return "pass"
    return "raises" if all(r.status == "unsupported" for r in bad) else "FAIL"


def export_cell(res: OpResult) -> str:
    """The torch.export column: passing / measured samples, the op that raised or the first problem, and the
    samples torch.export itself could not export."""
    word = export_word(res)
    if word in ("no sample", "not exportable"):
        return word
    measured = [r for r in res.export if r.status != "unexportable"]
    text = f"{word} {sum(r.status == 'pass' for r in measured)}/{len(measured)}"
    bad = [r for r in measured if r.status != "pass"]
    if word == "raises":
        text += " (" + ", ".join(sorted({f"`{r.detail}`" for r in bad})) + ")"
    elif bad:
        text += f" ({bad[0].status}: {bad[0].detail[:100]})".replace("\n", " ").replace("|", "\\|")
    unexportable = len(res.export) - len(measured)
    return text + (f", {unexportable} not exportable" if unexportable else "")


def export_line(results: dict[str, OpResult]) -> str:
    words = [export_word(r) for r in results.values()]
    exported = [w for w in words if w not in ("no sample", "not exportable")]
    return (
        f"{EXPORT_LINE} (`torch.export.export` of a module calling the op, which keeps composite ops whole, then "
        "`realify.lower(ep)`, which decomposes those it has no rule for on complex values; complex64; this file has "
        "every sample, `make test` measures the first sample per op): "
        f"{words.count('pass')} of {len(exported)} exported ops pass every sample, {words.count('raises')} raise "
        f"UnsupportedOpError (an op with no rule and no decomposition the core can lower), {words.count('FAIL')} "
        f"fail; torch.export itself cannot export {words.count('not exportable')} ops"
    )


def without_export(text: str) -> str:
    """The doc less what the torch.export path measured (its line and its column), which `make test` measures on a
    subset of the samples only."""
    out = []
    for line in text.splitlines():
        if line.startswith(EXPORT_LINE):
            continue
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line)
            del cells[2 + len(MODES)]
            line = "|".join(cells)
        out.append(line)
    return "\n".join(out) + "\n"


def export_cells(text: str) -> dict[str, str]:
    """op name -> its torch.export cell, read from a rendered doc."""
    cells = {}
    for line in text.splitlines():
        m = re.match(r"\| `([^`]+)`", line)
        if m:
            cells[m.group(1)] = re.split(r"(?<!\\)\|", line)[2 + len(MODES)].strip()
    return cells


def note(name: str, res: OpResult | None) -> str:
    parts = []
    skip = SKIPS.get(name)
    if skip:
        parts.append(f"{skip.kind}: {skip.reason}")
    if name in UNDEFINED_VALUES:
        parts.append("uninitialised values: shapes and dtypes compared")
    if name in LINALG_NOTES:  # linalg family
        parts.append(LINALG_NOTES[name])
    if res is not None:
        if res.untraceable():
            parts.append(f"{res.untraceable()} sample runs skipped: {UNTRACEABLE_SAMPLES[name][0]}")
        if not res.passed and not skip:
            parts.append(res.first_problem()[:160].replace("\n", " ").replace("|", "\\|"))
    return "; ".join(parts).replace("|", "\\|")


def torch_release() -> str:
    """major.minor of the running torch, which decides the OpInfo sample sets."""
    return ".".join(torch.__version__.split(".")[:2])


def tolerances() -> str:
    return "; ".join(f"{MODE_TITLES[m]}: rtol {BASE_TOL[m]['rtol']:g}, atol {BASE_TOL[m]['atol']:g}" for m in MODES)


def linalg_line(results: dict[str, OpResult], all_names: list[str]) -> str:
    """The linear algebra family (issue 17): how many of its ops pass every sample in all three modes."""
    family = [n for n in LINALG_FAMILY if n in all_names]
    passed = sum(1 for n in family if n in results and results[n].passed)
    refused = [n for n in family if kind_of(n) == ERROR_BY_DESIGN]
    return (
        f"- linear algebra family (decompositions, solvers and the norms and powers that need them): {passed} of "
        f"{len(family)} pass ({percent(passed, len(family))}); {len(refused)} raise UnsupportedOpError by design "
        f"({', '.join(f'`{n}`' for n in refused)}), each saying why below. Accuracy: every sample agrees with eager "
        f"at the tolerances of every other op ({tolerances()}); the notes give each op's method and cost"
    )


def render(results: dict[str, OpResult], all_names: list[str]) -> str:
    passed, total = headline(results)
    kinds = [kind_of(n) for n in all_names]
    lines = [
        "# OpInfo coverage",
        "",
        f"**{percent(passed, total)}** of the OpInfo ops that support complex64 and are in scope pass every sample in "
        f"all three modes ({passed} of {total}).",
        "",
        "Measured by `tests/python/test_opinfo.py` (`make coverage` rewrites this file): every OpInfo of "
        "`torch.testing._internal.common_methods_invocations.op_db` that supports complex64 on CPU, up to "
        f"{MAX_SAMPLES} samples per op and dtype, each traced with make_fx, lowered with `realify.lower`, checked "
        "for complex dtypes and compared with eager PyTorch. Modes: " + "; ".join(MODE_TITLES.values()) + ". "
        "A cell reads `pass` when every sample passed, `raises` when the others raised UnsupportedOpError, with "
        "passing / measured samples. The torch.export column measures the same complex64 samples through "
        "torch.export (`tests/python/opinfo_export.py`): the op as torch.export keeps it, composites included.",
        "",
        f"Measured with torch {torch_release()} (OpInfo sample sets change between torch releases).",
        "",
        f"- in scope: {total} ops, {passed} pass, {total - passed} known gaps",
        f"- error by design (raise UnsupportedOpError, tested): {kinds.count(ERROR_BY_DESIGN)} ops",
        f"- not applicable: {kinds.count(NOT_APPLICABLE)} ops",
        f"- FFT family (its own issue, not counted here): {kinds.count(OTHER_ISSUE)} ops",
        linalg_line(results, all_names),
        export_line(results),
        "",
        "| op | " + " | ".join(MODE_TITLES[m] for m in MODES) + f" | {EXPORT_TITLE} | notes |",
        "|---|" + "---|" * len(MODES) + "---|---|",
    ]
    for name in sorted(all_names):
        res = results.get(name)
        kind = kind_of(name)
        if res is None:
            reason = "measured by the FFT issue" if kind == OTHER_ISSUE else SKIPS[name].reason
            label = "other issue" if kind == OTHER_ISSUE else kind
            lines.append(f"| `{name}` | " + " | ".join("—" for _ in MODES) + f" | — | {label}: {reason} |")
            continue
        mark = "" if res.passed or kind in (ERROR_BY_DESIGN, KNOWN_GAP) else " **FAIL**"
        cells = " | ".join(cell(res, m) for m in MODES)
        lines.append(f"| `{name}`{mark} | {cells} | {export_cell(res)} | {note(name, res)} |")
    return "\n".join(lines) + "\n"
