"""The OpInfo measurement's torch.export path: no decomposition.

make_fx decomposes CompositeImplicit ops (linear, conv2d, broadcast_to, ...) before realify sees them; torch.export
keeps them. Here each complex64 sample is a module calling the op, exported with `torch.export.export` (non-strict),
lowered with `realify.lower(ep)` (an ExportedProgram in, one out), checked for complex dtypes and compared with eager.
`make test` measures the first sample per op (EXPORT_SAMPLES_IN_TEST), `make coverage` every sample the make_fx path
measures (up to MAX_SAMPLES); docs/op-coverage.md reports the full run in its own column.
"""

from __future__ import annotations

import copy
import os
from typing import Any

import realify
import torch
from harness import assert_real_only
from opinfo_support import (
    GAUGE_VIEWS,
    MAX_SAMPLES,
    UNDEFINED_VALUES,
    SampleResult,
    _Bound,
    _close,
    _gauge_compare,
    full_name,
    pick_samples,
    rng_calls,
    seeded_call,
    shared_stream,
    tolerance,
)
from realify.runtime import real_arguments
from torch.testing._internal.opinfo.core import OpInfo

EXPORT_SAMPLES_IN_TEST = 1
# Statuses an export sample may end in: it passes, realify raises UnsupportedOpError naming the op, or torch.export
# itself cannot export the call (reported, not realify's). "mismatch", "complex-left" and "error" are findings.
EXPORT_OK = {"pass", "unsupported", "unexportable"}


def export_samples() -> int:
    """Every sample when `make coverage` writes the doc, the first one per op in `make test`."""
    return MAX_SAMPLES if os.environ.get("REALIFY_WRITE_COVERAGE") else EXPORT_SAMPLES_IN_TEST


class _Call(torch.nn.Module):
    def __init__(self, fn: _Bound) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *tensors: torch.Tensor) -> Any:
        return self.fn(*tensors)


def run_export_sample(name: str, fn: _Bound, args: list[torch.Tensor], ops: set[str]) -> SampleResult:
    try:
        ep = torch.export.export(_Call(fn), tuple(copy.deepcopy(args)), strict=False)
    except Exception as e:  # torch's own limit, shown as such
        return SampleResult("unexportable", f"{type(e).__name__}: {str(e)[:200]}")
    ops |= {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    try:
        low = realify.lower(ep)
    except realify.UnsupportedOpError as e:
        return SampleResult("unsupported", e.op)
    except Exception as e:
        return SampleResult("error", f"lower: {type(e).__name__}: {str(e)[:300]}")
    try:
        assert_real_only(low.graph_module)
    except AssertionError as e:
        return SampleResult("complex-left", str(e)[:300])
    # a composite that draws only in some modes (feature_alpha_dropout with train=False) decomposes to no draw: with
    # none left in the lowered program, its numbers are compared with eager's as they are (a draw lost would differ)
    why = shared_stream(name, ep.graph_module, low.graph_module) if rng_calls(low.graph_module) else ""
    if why:
        return SampleResult("mismatch", why[:400])
    try:
        real = real_arguments(low.graph_module.meta["realify_report"].signature, copy.deepcopy(args))
        out = seeded_call(low.module(), *real)
    except Exception as e:
        if not _runs(ep, args):  # torch.export's own program fails on its example (masked_select's bounds)
            return SampleResult("unexportable", f"the exported program fails: {type(e).__name__}: {str(e)[:200]}")
        return SampleResult("error", f"run: {type(e).__name__}: {str(e)[:300]}")
    ref = fn(*[copy.deepcopy(a) for a in args])
    try:
        if name in GAUGE_VIEWS:
            out, ref = _gauge_compare(name, out, ref)
        _close(out, ref, tolerance(name, "c64"), name not in UNDEFINED_VALUES)
    except AssertionError as e:
        return SampleResult("mismatch", str(e)[:400])
    return SampleResult("pass")


def _runs(ep: torch.export.ExportedProgram, args: list[torch.Tensor]) -> bool:
    try:
        ep.module()(*copy.deepcopy(args))
    except Exception:
        return False
    return True


def measure_export(op: OpInfo, count: int) -> tuple[list[SampleResult], set[str]]:
    """The first `count` complex64 samples (of those the make_fx path measures) through torch.export, and the ops
    the exported programs hold."""
    name, ops = full_name(op), set()
    results = []
    for sample in pick_samples(op, torch.complex64)[:count]:
        fn = _Bound(op, sample)
        results.append(run_export_sample(name, fn, fn.tensors(), ops))
    return results, ops
