"""Complex |z| is emitted without aten.hypot (which torch.onnx, OpenVINO, ExecuTorch, Core ML and Torch-TensorRT
lack), and still matches torch.abs: a few ulp on ordinary values, exact on 0, inf, nan, huge and tiny parts."""

from __future__ import annotations

import itertools

import pytest
import realify
import torch
from torch.fx.experimental.proxy_tensor import make_fx

INF, NAN = float("inf"), float("nan")


def lowered_ops(gm: torch.fx.GraphModule) -> set[str]:
    return {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}


def edge_grid(dtype: torch.dtype) -> torch.Tensor:
    fi = torch.finfo(dtype.to_real())
    parts = [0.0, -0.0, 1.0, -2.5, fi.tiny, fi.tiny / 64, fi.max, -fi.max / 3, 1e-20, 3e15, INF, -INF, NAN]
    pairs = list(itertools.product(parts, parts))
    return torch.complex(*(torch.tensor(p, dtype=dtype.to_real()) for p in zip(*pairs, strict=True)))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize(
    "fn", [torch.abs, torch.sgn, torch.log, torch.sqrt, lambda z: torch.linalg.vector_norm(z, dim=-1)]
)
def test_no_hypot_is_emitted(fn, dtype: torch.dtype) -> None:
    z = torch.randn(4, 3, dtype=dtype)
    g = realify.lower(make_fx(fn)(z))
    ops = lowered_ops(g)
    assert "aten.hypot.default" not in ops, ops
    torch.testing.assert_close(g(torch.view_as_real(z)), torch.view_as_real(fn(z)) if fn(z).is_complex() else fn(z))


@pytest.mark.parametrize("target", ["portable", "onnx"])
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_abs_special_values_match_torch(dtype: torch.dtype, target: str) -> None:
    z = edge_grid(dtype)
    g = realify.lower(make_fx(torch.abs)(z), target=target)
    got, want = g(torch.view_as_real(z)), torch.abs(z)
    assert torch.equal(got.isnan(), want.isnan()), z[got.isnan() != want.isnan()]
    assert torch.equal(got.isinf(), want.isinf()), z[got.isinf() != want.isinf()]
    finite = want.isfinite()
    eps = torch.finfo(want.dtype).eps
    err = (got[finite].double() - want[finite].double()).abs()
    assert (err <= 2 * eps * want[finite].double().abs()).all(), z[finite][err > 2 * eps * want[finite].double().abs()]
    assert torch.equal(got[want == 0], want[want == 0])  # +0, never -0 or nan


@pytest.mark.parametrize("target", ["portable", "onnx"])
def test_abs_is_accurate_on_random_values(target: str) -> None:
    g = torch.Generator().manual_seed(0)
    scale = torch.exp(torch.randn(20000, generator=g) * 20)
    z = torch.complex(torch.randn(20000, generator=g) * scale, torch.randn(20000, generator=g))
    lowered = realify.lower(make_fx(torch.abs)(z), target=target)
    got, want = lowered(torch.view_as_real(z)).double(), torch.abs(z.to(torch.complex128))
    rel = ((got - want).abs() / want).max().item()
    assert rel <= 3 * torch.finfo(torch.float32).eps, rel


def test_abs_for_graph_runtimes_has_one_where() -> None:
    """ONNX Runtime runs Where several times slower than other elementwise ops, so |z| for onnx keeps one (the
    inf-beats-nan case) where the portable form has more."""
    z = torch.randn(8, dtype=torch.complex64)
    counts = {}
    for target in ("portable", "onnx"):
        g = realify.lower(make_fx(torch.abs)(z), target=target)
        counts[target] = sum(1 for n in g.graph.nodes if "where" in str(n.target))
    assert counts["onnx"] == 1 and counts["portable"] > 1, counts
