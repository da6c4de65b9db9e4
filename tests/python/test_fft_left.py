"""Transposes-free FFT stages (src/rules/fft_left.c) against eager PyTorch.

A direct-size transform over an axis that is not the last runs as one matmul from the left against a half-size
DFT matrix plus one gather; a real transform along the last axis uses the square packed real basis. These tests
pin the numbers for every kind of size (even, odd, prime, 2..128), the structure the speed depends on (two square
matmuls and one elementwise pass for rfft2, output written as pairs without a restack), and the fallbacks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import realify
import torch
from harness import assert_real_only, to_real
from test_fft import max_rel_error
from torch.fx.experimental.proxy_tensor import make_fx

LEFT_SIZES = [2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 31, 32, 33, 64, 97, 127, 128]
TOL = {torch.float32: 1e-5, torch.float64: 1e-12}
CASES: dict[str, tuple[Callable[[torch.Tensor], Any], bool]] = {  # name: (fn, complex input)
    "fft_dim0": (lambda x: torch.fft.fft(x, dim=0), True),
    "ifft_dim0_ortho": (lambda x: torch.fft.ifft(x, dim=0, norm="ortho"), True),
    "fft2": (lambda x: torch.fft.fft2(x), True),
    "rfft2": (lambda x: torch.fft.rfft2(x), False),
    "rfftn_3d": (lambda x: torch.fft.rfftn(x, dim=(0, 1, 2)), False),
    "irfft2": (lambda x: torch.fft.irfft2(x, s=(x.shape[0], 6)), True),
}


def constant_names(gm: torch.fx.GraphModule) -> list[str]:
    return [str(n.target) for n in gm.graph.nodes if n.op == "get_attr"]


def lower(fn: Callable[..., Any], x: torch.Tensor) -> torch.fx.GraphModule:
    lowered = realify.lower(make_fx(fn)(x))
    assert_real_only(lowered)
    return lowered


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("n", LEFT_SIZES)
def test_left_stage_matches_torch(n: int, case: str, dtype: torch.dtype) -> None:
    fn, is_complex = CASES[case]
    g = torch.Generator().manual_seed(n)
    shape = (n, 5, 3) if case == "rfftn_3d" else (n, 6)
    x = torch.randn(shape, dtype=dtype, generator=g)
    if is_complex:
        x = torch.complex(x, torch.randn(shape, dtype=dtype, generator=g))
    lowered = lower(fn, x)
    assert any(name.endswith(f"dft{n}_half_left") for name in constant_names(lowered)), "left stage not used"
    err = max_rel_error(lowered(to_real(x)), fn(x))
    assert err <= TOL[dtype], f"max relative error {err:.3g}"


def test_rfft2_is_two_square_matmuls_and_one_pass() -> None:
    x = torch.randn(2, 3, 64, 64)
    lowered = lower(torch.fft.rfft2, x)
    nodes = [n for n in lowered.graph.nodes if n.op == "call_function"]
    matmuls = [n for n in nodes if "matmul" in str(n.target)]
    assert len(matmuls) == 2
    for mm in matmuls:
        consts = [a for a in mm.args if isinstance(a, torch.fx.Node) and a.op == "get_attr"]
        assert [tuple(lowered.get_buffer(c.target).shape) for c in consts] == [(64, 64)]
    # nothing moves data before the second matmul: the first one's output feeds it directly
    assert matmuls[1].args[1] is matmuls[0]
    # the pairs are computed in output order: the graph returns the final add, not a restacked copy
    (out,) = next(n for n in lowered.graph.nodes if n.op == "output").args[0:1]
    assert out.target == torch.ops.aten.add.Tensor, out.target
    assert max_rel_error(lowered(x), torch.fft.rfft2(x)) < 1e-5


def test_rfft2_compiles_to_one_elementwise_kernel() -> None:
    from torch._inductor import metrics

    x = torch.randn(2, 3, 16, 16)
    lowered = lower(torch.fft.rfft2, x)
    torch._dynamo.reset()
    compiled = torch.compile(lowered, backend="inductor", dynamic=False)
    metrics.reset()
    out = compiled(x)
    assert metrics.generated_kernel_count == 1  # the gather; both matmuls are library calls
    assert max_rel_error(out, torch.fft.rfft2(x)) < 1e-5


class _FftDim0(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.fft(x, dim=0)


def test_symbolic_dims_after_the_axis_fall_back_to_transposes() -> None:
    model = _FftDim0()
    x = torch.randn(8, 10, dtype=torch.complex64)
    # torch's own fft guards cols != 8 (the transform length), hence the range
    ep = torch.export.export(model, (x,), dynamic_shapes=({1: torch.export.Dim("cols", min=9, max=64)},))
    gm = realify.lower(ep).module()
    assert not any(name.endswith("half_left") for name in constant_names(gm))
    for cols in (9, 13):
        y = torch.randn(8, cols, dtype=torch.complex64)
        assert max_rel_error(gm(torch.view_as_real(y)), model(y)) < 1e-5


@pytest.mark.parametrize("n", [6, 7, 64])
def test_packed_inverse_ignores_imaginary_dc_and_nyquist(n: int) -> None:
    m = n // 2 + 1
    spec = torch.randn(4, m, dtype=torch.complex64)  # Im X[0] (and Im X[n/2] for even n) are not Hermitian
    assert spec[:, 0].imag.abs().min() > 0
    lowered = lower(lambda s: torch.fft.irfft(s, n=n), spec)
    assert any(name.endswith((f"irdft{n}_packed", f"irdft{n}_packed_scaled")) for name in constant_names(lowered))
    ref = torch.fft.irfft(spec, n=n)
    assert max_rel_error(lowered(torch.view_as_real(spec)), ref) < 1e-5
