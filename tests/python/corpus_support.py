"""The third-party model corpus: other people's model code, at tiny configs built in code, through four columns.

- export: torch.export + realify.lower, no complex dtype left, outputs equal eager's
- compile: torch.compile(backend="realify") with Inductor, fullgraph=True, under no_grad, equal to eager
- train: one training step through the same backend; every gradient equal to eager's. Inductor's compile of the
  forward and backward graphs is most of the suite's time, so `make test` trains over Inductor only the cases
  marked `train_inductor` (one or two per family; their CPU kernels compile without SIMD, which the compile
  column already runs) and the rest over the backend's eager inner compiler: the same lowering of the same
  aot_autograd graphs, run by PyTorch. `make corpus-table` sets REALIFY_CORPUS_TRAIN_INNER=inductor for all.
- onnx: realify.export_onnx, run in ONNX Runtime through realify.load, equal to eager

A column the upstream package cannot take without realify (torch.export or dynamo fails on the model itself) is a
strict expected failure: the test first shows that failure with no realify involved, then checks realify fails too
(a pass is reported as an error, so the mark is removed once upstream is fixed). Each outcome is recorded for
tools/corpus_table.py, which writes the README table.
"""

from __future__ import annotations

import copy
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import realify
import torch
from harness import assert_real_only, compare, lowered_args
from torch.utils import _pytree as pytree

COLUMNS = ("export", "compile", "train", "onnx")
TRAIN_INNER_ENV = "REALIFY_CORPUS_TRAIN_INNER"  # "inductor": every training step over Inductor


@dataclass(frozen=True)
class Upstream:
    """Why the upstream model fails a stage without realify (the package's or torch's own limitation)."""

    stage: str  # "export", "compile" or "train": which baseline shows it
    reason: str


@dataclass(frozen=True)
class Case:
    """One model of a package: `build` returns (model in eval mode, example inputs), deterministic."""

    name: str
    package: str  # the module importorskip needs
    build: Callable[[], tuple[torch.nn.Module, tuple[Any, ...]]]
    upstream: tuple[Upstream, ...] = ()
    tol: dict[str, float] = field(default_factory=lambda: {"rtol": 1e-4, "atol": 1e-4})
    grad_tol: dict[str, float] = field(default_factory=lambda: {"rtol": 1e-4, "atol": 1e-4})
    skip_onnx: str = ""  # a reason ONNX cannot take the model that is neither realify's nor torch.export's
    # realify's own open failures, by column: shown as such in the table (never as upstream), strict like xfails
    realify_gaps: dict[str, str] = field(default_factory=dict)
    train_inductor: bool = False  # train over Inductor in `make test` too (TRAIN_INNER_ENV: every case)

    def train_inner(self) -> str:
        """The inner compiler of the realify backend for this case's training step."""
        every = os.environ.get(TRAIN_INNER_ENV, "") == "inductor"
        return "inductor" if every or self.train_inductor else "eager"

    def upstream_failure(self, column: str) -> Upstream | None:
        """The upstream failure that decides this column: a dynamo failure decides training as well."""
        stages = {"export": ("export",), "onnx": ("export",), "compile": ("compile",), "train": ("compile", "train")}
        return next((u for u in self.upstream if u.stage in stages[column]), None)


def _loss(out: Any) -> torch.Tensor:
    """A real scalar from every floating or complex output leaf (complex through its view_as_real parts)."""
    total = torch.zeros(())
    for leaf in pytree.tree_leaves(out):
        if isinstance(leaf, torch.Tensor) and (leaf.is_floating_point() or leaf.is_complex()):
            parts = torch.view_as_real(leaf) if leaf.is_complex() else leaf
            total = total + (parts.float() ** 2).mean() + parts.float().sum() * 0.01
    return total


def _outputs(out: Any) -> Any:
    """Model outputs as plain tensors: a transformers ModelOutput becomes its tuple of set fields."""
    to_tuple = getattr(out, "to_tuple", None)
    return to_tuple() if callable(to_tuple) else out


def _trainable(model: torch.nn.Module, args: tuple[Any, ...]) -> tuple[torch.nn.Module, tuple[Any, ...], list[str]]:
    """A copy in train mode with float/complex inputs that need a gradient when the model has no parameters."""
    model = copy.deepcopy(model).train()
    args = copy.deepcopy(args)
    names = [n for n, p in model.named_parameters() if p.requires_grad]
    if not names:
        for a in args:
            if isinstance(a, torch.Tensor) and (a.is_floating_point() or a.is_complex()):
                a.requires_grad_(True)
    return model, args, names


def _gradients(model: torch.nn.Module, args: tuple[Any, ...], names: list[str]) -> list[torch.Tensor | None]:
    params = dict(model.named_parameters())
    if names:
        return [params[n].grad for n in names]
    return [a.grad for a in args if isinstance(a, torch.Tensor) and a.requires_grad]


def run_baseline(stage: str, model: torch.nn.Module, args: tuple[Any, ...]) -> None:
    """The stage with torch alone (no realify): raises where upstream cannot take the model."""
    torch._dynamo.reset()
    if stage == "export":
        torch.export.export(model, args, strict=False)
    elif stage == "compile":
        with torch.no_grad():
            torch.compile(model, backend="eager", fullgraph=True)(*args)
    else:
        m, a, _ = _trainable(model, args)
        _loss(_outputs(torch.compile(m, backend="eager", fullgraph=True)(*a))).backward()


class Lowerings:
    """Counts the graphs the realify backend lowered, so a compile that bypassed it cannot pass."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, event: Any) -> None:
        self.count += 1


def check_export(case: Case, model: torch.nn.Module, args: tuple[Any, ...]) -> None:
    with torch.no_grad():
        ref = _outputs(model(*args))
    ep = torch.export.export(model, args, strict=False)
    lowered = realify.lower(ep)
    assert_real_only(lowered.graph_module)
    got = lowered.module()(*lowered_args(lowered.graph_module, args))
    compare(got, ref, case.tol)


def check_compile(case: Case, model: torch.nn.Module, args: tuple[Any, ...]) -> None:
    with torch.no_grad():
        ref = _outputs(model(*args))
        seen = Lowerings()
        torch._dynamo.reset()
        compiled = torch.compile(model, backend="realify", fullgraph=True,
                                 options={"backend": "inductor", "on_lowered": seen})
        got = _outputs(compiled(*args))
    assert seen.count >= 1, "the realify backend lowered no graph"
    _compare_plain(got, ref, case.tol)


def check_train(case: Case, model: torch.nn.Module, args: tuple[Any, ...]) -> None:
    eager_model, eager_args, names = _trainable(model, args)
    _loss(_outputs(eager_model(*eager_args))).backward()
    ref = _gradients(eager_model, eager_args, names)
    compiled_model, compiled_args, _ = _trainable(model, args)
    seen = Lowerings()
    torch._dynamo.reset()
    compiled = torch.compile(compiled_model, backend="realify", fullgraph=True,
                             options={"backend": case.train_inner(), "on_lowered": seen})
    with torch._inductor.config.patch({"cpp.vec_isa_ok": False}):  # a third less C++ compile time
        _loss(_outputs(compiled(*compiled_args))).backward()
    got = _gradients(compiled_model, compiled_args, names)
    assert seen.count >= 1, "the realify backend lowered no graph"
    assert any(r is not None for r in ref), "nothing to train: no gradient in eager"
    for i, (g, r) in enumerate(zip(got, ref, strict=True)):
        assert (g is None) == (r is None), f"gradient {names[i] if names else i}: {g is None} vs eager {r is None}"
        if r is not None:
            torch.testing.assert_close(g, r, **case.grad_tol, msg=lambda m, i=i: f"grad {i}: {m}")


def check_onnx(case: Case, model: torch.nn.Module, args: tuple[Any, ...]) -> None:
    pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
    pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")
    if case.skip_onnx:
        pytest.skip(case.skip_onnx)
    with torch.no_grad():
        ref = _outputs(model(*args))
    ep = torch.export.export(model, args, strict=False)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        realify.export_onnx(ep, args, f=path)
        got = realify.load(path)(*args)
    _compare_plain(got, ref, case.tol)


def _compare_plain(got: Any, ref: Any, tol: dict[str, float]) -> None:
    gots, refs = pytree.tree_leaves(got), pytree.tree_leaves(ref)
    assert len(gots) == len(refs), (len(gots), len(refs))
    for g, r in zip(gots, refs, strict=True):
        if isinstance(r, torch.Tensor):
            assert isinstance(g, torch.Tensor) and g.dtype == r.dtype and g.shape == r.shape, (g, r.dtype, r.shape)
            torch.testing.assert_close(g, r, equal_nan=True, **tol)
        else:
            assert g == r


CHECKS = {"export": check_export, "compile": check_compile, "train": check_train, "onnx": check_onnx}


def run_column(request: pytest.FixtureRequest, case: Case, column: str) -> None:
    """One cell of the table: the column's check, or the strict upstream xfail (baseline shown first)."""
    pytest.importorskip(case.package, reason=f"needs {case.package} (make test installs the corpus packages)")
    request.node.user_properties.append(("corpus", (case.name, column)))
    torch.manual_seed(0)
    model, args = case.build()
    upstream = case.upstream_failure(column)
    gap = case.realify_gaps.get(column)
    if gap is not None and upstream is None:
        try:
            CHECKS[column](case, model, args)
        except Exception:
            pytest.xfail(f"realify gap (not upstream): {gap}")
        pytest.fail(f"{case.name} {column} passes: the realify gap is closed, remove its realify_gaps entry")
    if upstream is None:
        CHECKS[column](case, model, args)
        return
    with pytest.raises(Exception):  # noqa: B017  (torch raises many kinds; the point is that it fails)
        run_baseline(upstream.stage, model, args)
    try:
        CHECKS[column](case, model, args)
    except Exception:
        pytest.xfail(f"upstream ({upstream.stage} without realify): {upstream.reason}")
    pytest.fail(f"{case.name} {column} passes: upstream {upstream.stage} no longer fails, remove its Upstream mark")


def parametrize(cases: list[Case]) -> Any:
    return pytest.mark.parametrize(
        ("case", "column"), [(c, col) for c in cases for col in COLUMNS],
        ids=[f"{c.name}-{col}" for c in cases for col in COLUMNS],
    )
