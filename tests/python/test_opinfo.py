"""Every OpInfo op that supports complex64, proven against eager PyTorch on its own sample inputs.

For each op (skip kinds and reasons in opinfo_support.SKIPS) and up to MAX_SAMPLES samples per dtype: trace with
make_fx, realify.lower, assert no complex dtype is left, run on view_as_real inputs and compare with eager, for
complex64, complex128 and complex128 with truncate_double; and the complex64 samples through torch.export, without
decomposition (opinfo_export.py: the first sample per op here, every one in `make coverage`). The last tests check
that every rule of the C core is exercised (by these samples or by test_rules.py's hand cases) and that
docs/op-coverage.md holds what was measured.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from harness import rules_to_exercise
from opinfo_export import EXPORT_OK, export_samples, measure_export
from opinfo_report import DOC_PATH, EXPORT_CELL, export_cells, headline, render, torch_release, without_export
from opinfo_support import (
    ERROR_BY_DESIGN,
    KNOWN_GAP,
    MODES,
    OpResult,
    complex_opinfos,
    full_name,
    kind_of,
    measure,
    measured,
    seeded_call,
    shared_stream,
    trace,
)
from realify import _core
from torch.fx.experimental.proxy_tensor import make_fx

ALL_OPS = complex_opinfos()
OPS = [op for op in ALL_OPS if measured(full_name(op))]
RESULTS: dict[str, OpResult] = {}
TARGET = 95.0
ROOT = Path(__file__).resolve().parents[2]


def result_of(op: object) -> OpResult:
    name = full_name(op)  # type: ignore[arg-type]
    if name not in RESULTS:
        res = measure(op)  # type: ignore[arg-type]
        res.export, res.export_ops = measure_export(op, export_samples())  # type: ignore[arg-type]
        RESULTS[name] = res
    return RESULTS[name]


@pytest.mark.parametrize("op", OPS, ids=[full_name(op) for op in OPS])
def test_opinfo(op: object) -> None:
    name = full_name(op)  # type: ignore[arg-type]
    res = result_of(op)
    kind = kind_of(name)
    for mode in MODES:
        assert res.modes[mode], f"{name}: no sample in {mode}"
    statuses = {r.status for m in MODES for r in res.modes[m]} - {"untraceable"}
    assert statuses, f"{name}: every sample was untraceable"
    if kind == ERROR_BY_DESIGN:
        # samples that need no factorisation (empty matrices) may pass; the others must raise
        assert "unsupported" in statuses and statuses <= {"pass", "unsupported"}, f"{name}: {res.first_problem()}"
    elif kind == KNOWN_GAP:
        assert statuses <= {"pass", "unsupported"}, f"{name}: a gap must raise, never differ: {res.first_problem()}"
        assert not res.passed, f"{name} passes now: remove it from the known gaps"
    else:
        assert res.passed, f"{name}: {res.first_problem()}"
    # through torch.export (no decomposition) an op passes or raises naming the op; never wrong numbers or a crash
    for r in res.export:
        assert r.status in EXPORT_OK, f"{name}: torch.export path: {r.status}: {r.detail}"


def test_mutation_of_a_complex_value_is_functionalized() -> None:
    """A plain make_fx graph that mutates a complex tensor in place is functionalized by realify.lower and lowered
    exactly (tests/python/test_functionalize.py covers each in-place op); the given graph keeps its add_."""
    import realify

    def fn(x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y.add_(1j)
        return y

    z = torch.randn(3, dtype=torch.complex64)
    gm = make_fx(fn)(z)
    low = realify.lower(gm)
    assert "aten.add_.Tensor" in {str(n.target) for n in gm.graph.nodes}
    assert not any(n.op == "call_function" and n.target._schema.is_mutable for n in low.graph.nodes)
    torch.testing.assert_close(torch.view_as_complex(low(torch.view_as_real(z))), fn(z))


def test_bernoulli_draws_alike_for_every_float_dtype() -> None:
    """shared_stream leaves the dtype out of a draw: truncate_double draws a float64 mask as float32."""

    def mask(shape: tuple[int, ...], p: float, dt: torch.dtype) -> torch.Tensor:
        return torch.empty(shape, dtype=dt).bernoulli_(p)

    for shape, p in (((2, 3, 1, 1), 0.5), ((1000,), 0.3)):
        dts = (torch.float64, torch.float32, torch.float16, torch.bfloat16)
        masks = [seeded_call(mask, shape, p, dt) for dt in dts]
        for m in masks[1:]:
            assert torch.equal(m.double(), masks[0].double())


def _masked(x: torch.Tensor) -> torch.Tensor:  # dropout's shape: a real mask drawn per channel
    return x * torch.empty(x.shape[:-1] + (1,), dtype=x.real.dtype).bernoulli_(0.3) / 0.7


def test_random_draws_are_compared_on_a_shared_stream_only() -> None:
    """The mechanism behind the dropout OpInfos (torch 2.15), tested on every torch: a lowered graph that draws as
    eager does gives eager's values under the same seed; one that draws differently, or an unseeded op, is refused."""
    import realify

    z = torch.randn(4, 6, 5, dtype=torch.complex64)
    gm = trace(_masked, [z])
    low = realify.lower(gm)
    assert shared_stream("nn.functional.dropout2d", gm, low) == ""
    out = torch.view_as_complex(seeded_call(low, torch.view_as_real(z)))
    ref = seeded_call(_masked, z)
    torch.testing.assert_close(out, ref, rtol=0, atol=0)
    assert 0 < int((ref == 0).all(-1).sum()) < 24  # some channels dropped, some kept: the draws were compared
    other = trace(lambda x: x * torch.empty(x.shape, dtype=x.real.dtype).bernoulli_(0.3), [z])
    assert "the lowered graph draws" in shared_stream("nn.functional.dropout2d", gm, realify.lower(other))
    assert "does not seed" in shared_stream("add", gm, low)


def all_measured() -> dict[str, OpResult]:
    for op in OPS:
        result_of(op)
    return RESULTS


def test_coverage_target() -> None:
    passed, total = headline(all_measured())
    assert total > 250
    assert 100.0 * passed / total >= TARGET, f"{passed} of {total} in-scope ops pass"


def hand_case_ops() -> set[str]:
    from test_rules import CASES

    ops: set[str] = set()
    for case in CASES:
        if case.untraceable() is not None:  # torch itself cannot trace it (the case's xfail says why)
            continue
        gm = make_fx(case.fn, pre_dispatch=case.pre_dispatch, tracing_mode=case.tracing_mode)(
            *case.args(torch.complex64)
        )
        ops |= {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
    return ops


def test_every_rule_is_exercised() -> None:
    """Every rule of the C table is reached by a hand case of test_rules.py or by a traced OpInfo sample (the
    suite's one coverage check: it reads the samples this module measures anyway)."""
    covered = hand_case_ops()
    for res in all_measured().values():
        covered |= res.ops | res.export_ops
    missing = sorted(rules_to_exercise(_core.rules()) - covered)
    assert not missing, f"rules that no OpInfo sample and no hand case exercises: {missing}"


def test_coverage_doc_matches_measurement() -> None:
    text = render(all_measured(), [full_name(op) for op in ALL_OPS])
    path = ROOT / DOC_PATH
    if os.environ.get("REALIFY_WRITE_COVERAGE"):
        path.write_text(text)
    assert path.exists(), f"{DOC_PATH} is missing: run `make coverage`"
    doc = path.read_text()
    stamp = f"Measured with torch {torch_release()} "
    if stamp not in doc:
        pytest.skip(f"{DOC_PATH} was measured with another torch release; this is {torch.__version__}")
    if os.environ.get("REALIFY_WRITE_COVERAGE"):
        assert doc == text
        return
    # the torch.export column is measured on every sample by `make coverage`, on the first one here
    assert without_export(doc) == without_export(text), f"{DOC_PATH} differs from this measurement: run `make coverage`"
    written = export_cells(doc)
    for name, res in all_measured().items():
        first = res.export[0].status if res.export else None
        m = EXPORT_CELL.match(written.get(name, ""))
        if first == "pass":
            assert m and int(m.group(2)) >= 1, f"{name}: its first sample passes through torch.export: {written[name]}"
        elif first in ("unsupported", "mismatch", "complex-left", "error"):
            assert m and int(m.group(2)) < int(m.group(3)), f"{name}: its first sample {first}s: {written[name]}"
