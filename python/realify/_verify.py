"""`realify lower --verify`: inputs for the comparison and the per-output errors."""

from __future__ import annotations

from typing import Any

import torch
from torch.utils import _pytree as pytree

# Relative tolerance (max abs error over max abs reference) by the real dtype the artifact computes in.
TOLERANCE = {torch.float16: 1e-2, torch.bfloat16: 2e-2, torch.float32: 1e-4, torch.float64: 1e-9}


def load_inputs(path: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """A file written by torch.save: a tuple/list of positional arguments, a single tensor, or a dict with the
    keys "args" and "kwargs"."""
    obj = torch.load(path, map_location="cpu", weights_only=True)
    if isinstance(obj, torch.Tensor):
        return (obj,), {}
    if isinstance(obj, (tuple, list)):
        return tuple(obj), {}
    if isinstance(obj, dict) and set(obj) <= {"args", "kwargs"}:
        return tuple(obj.get("args", ())), dict(obj.get("kwargs", {}))
    raise ValueError(f"{path}: expected a tuple of arguments, a tensor, or a dict with 'args'/'kwargs'")


def _like(x: Any, gen: torch.Generator) -> Any:
    """A random tensor of x's shape and dtype; integers stay within x's own range (token ids stay valid)."""
    if not isinstance(x, torch.Tensor):
        return x
    if x.dtype == torch.bool:
        return torch.rand(x.shape, generator=gen) < 0.5
    if x.is_complex() or x.is_floating_point():
        return torch.randn(x.shape, dtype=x.dtype, generator=gen)
    lo, hi = (int(x.min()), int(x.max())) if x.numel() else (0, 1)
    return torch.randint(lo, hi + 1, x.shape, dtype=x.dtype, generator=gen)


def random_inputs(ep: torch.export.ExportedProgram, seed: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Random arguments matching the program's example inputs (shapes, dtypes, integer ranges)."""
    if ep.example_inputs is None:
        raise ValueError("the program carries no example inputs to match; pass --inputs FILE.pt")
    gen = torch.Generator().manual_seed(seed)
    args, kwargs = ep.example_inputs
    return pytree.tree_map(lambda x: _like(x, gen), (tuple(args), dict(kwargs or {})))


def _as_real(x: torch.Tensor) -> torch.Tensor:
    x = x.detach().cpu()
    if x.is_complex():
        return torch.view_as_real(x.resolve_conj()).double()
    return x.double() if x.is_floating_point() else x.long().double()


def compare(ref: Any, got: Any, real_dtypes: list[torch.dtype | None], tol: float | None) -> list[dict[str, Any]]:
    """Per-output max abs and max rel error (rel: over the output's largest reference magnitude); NaNs must
    match position for position."""
    ref_flat, got_flat = pytree.tree_leaves(ref), pytree.tree_leaves(got)
    if len(ref_flat) != len(got_flat):
        raise ValueError(f"the lowered program returned {len(got_flat)} outputs, the original {len(ref_flat)}")
    rows = []
    for i, (r, g) in enumerate(zip(ref_flat, got_flat, strict=True)):
        if not isinstance(r, torch.Tensor):
            ok = r == g
            rows.append({"index": i, "dtype": type(r).__name__, "shape": [], "max_abs": 0.0 if ok else None,
                         "max_rel": 0.0 if ok else None, "tol": 0.0, "passed": bool(ok)})
            continue
        limit = tol if tol is not None else TOLERANCE.get(real_dtypes[i] or r.dtype, 0.0)
        row: dict[str, Any] = {"index": i, "dtype": str(r.dtype).removeprefix("torch."), "shape": list(r.shape),
                               "tol": limit}
        if not isinstance(g, torch.Tensor) or g.shape != r.shape or g.dtype != r.dtype:
            got_desc = f"{g.dtype}{list(g.shape)}" if isinstance(g, torch.Tensor) else type(g).__name__
            row.update(max_abs=None, max_rel=None, passed=False, detail=f"got {got_desc}")
            rows.append(row)
            continue
        a, b = _as_real(r), _as_real(g)
        nan_a, nan_b = a.isnan(), b.isnan()
        same = (a == b) | (nan_a & nan_b)  # equal infinities count as exact
        diff = torch.where(same, torch.zeros_like(a), (a - b).abs())
        max_abs = float(diff.max()) if diff.numel() else 0.0
        finite = a[a.isfinite()].abs()
        scale = float(finite.max()) if finite.numel() else 0.0
        max_rel = max_abs / scale if scale > 0 else max_abs
        row.update(max_abs=max_abs, max_rel=max_rel, passed=bool(max_rel <= limit and (nan_a == nan_b).all()))
        rows.append(row)
    return rows
