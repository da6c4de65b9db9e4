"""fft="native" on PyTorch's OpInfo samples of every FFT op (the matmul plans have the same in test_fft.py), and the
one-sided form of real-input transforms: fft2/fftn of a real tensor trace as c2c of x + 0i, which both strategies
compute as a one-sided transform plus the Hermitian mirror."""

from __future__ import annotations

from typing import Any

import pytest
import realify
import torch
from harness import assert_real_only, to_real
from realify.backend import CompileEvent
from realify_examples import zoo
from test_fft import FFT_OPS, OPINFO_DTYPES, TOL, max_rel_error, real_dtype, sample_fn, trace
from torch.utils import _pytree as pytree


def fft_targets(gm: torch.fx.GraphModule) -> list[str]:
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function" and "fft" in str(n.target)]


@pytest.mark.parametrize(
    "op,dtype",
    [pytest.param(op, dt, id=f"{op.name}-{str(dt)[6:]}") for op in FFT_OPS for dt in OPINFO_DTYPES],
)
def test_opinfo_native(op: Any, dtype: torch.dtype) -> None:
    if dtype not in op.supported_dtypes("cpu"):
        pytest.skip(f"{op.name} does not support {dtype}")
    samples = list(op.sample_inputs("cpu", dtype))
    assert len(samples) >= 3
    for s in samples:
        fn, args = sample_fn(op, s.kwargs), (s.input, *s.args)
        lowered = realify.lower(trace(fn, args), fft="native")
        assert_real_only(lowered)
        assert all(t.startswith("realify.fft_") for t in fft_targets(lowered)), fft_targets(lowered)
        outs, refs = pytree.tree_leaves(lowered(*[to_real(a) for a in args])), pytree.tree_leaves(fn(*args))
        assert len(outs) == len(refs)
        for o, r in zip(outs, refs, strict=True):
            err = max_rel_error(o, r)
            assert err <= TOL[real_dtype(dtype)], f"{op.name} {s}: max relative error {err:.3g}"


REAL_INPUT_CASES = {
    "fft2": (lambda x: torch.fft.fft2(x), (3, 8, 12)),
    "fft2_odd": (lambda x: torch.fft.fft2(x), (2, 7, 9)),
    "fftn_3d": (lambda x: torch.fft.fftn(x, dim=(0, 1, 2)), (5, 6, 4)),
    "fft2_dims_reversed": (lambda x: torch.fft.fft2(x, dim=(-1, -2)), (2, 6, 10)),
    "fft2_ortho_real_part": (lambda x: torch.fft.fft2(x, norm="ortho").real, (4, 16, 10)),
    "fft_of_complex_cast": (lambda x: torch.fft.fft(x.to(torch.complex64)), (3, 11)),
    "fftn_sizes_1_and_2": (lambda x: torch.fft.fftn(x, dim=(1, 2)), (3, 1, 2)),
}


@pytest.mark.parametrize("name", sorted(REAL_INPUT_CASES))
def test_real_input_transform_is_one_sided_and_matches_eager(name: str) -> None:
    fn, shape = REAL_INPUT_CASES[name]
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(5))
    lowered = realify.lower(trace(fn, (x,)), fft="native")
    assert fft_targets(lowered) == ["realify.fft_r2c.default"]  # no c2c of a zero imaginary plane
    ref = fn(x)
    out = lowered(x)
    got = torch.view_as_complex(out.contiguous()) if ref.is_complex() else out
    torch.testing.assert_close(got, ref, rtol=2e-6, atol=2e-6)
    # the first half along the last transformed dim is the one-sided transform itself: eager's rfftn, to the bit
    if ref.is_complex() and name.startswith("fft2"):
        dims = (-1, -2) if name == "fft2_dims_reversed" else (-2, -1)
        half = torch.fft.rfftn(x, dim=dims)
        d = dims[-1]
        torch.testing.assert_close(got.narrow(d, 0, half.shape[d]), half, rtol=0, atol=0)


@pytest.mark.parametrize("name", ["fft2", "fft2_odd", "fftn_3d", "fft2_ortho_real_part"])
def test_matmul_plan_of_a_real_input_is_one_sided_too(name: str) -> None:
    """fft="matmul" (TensorRT and the deploy targets) takes the same one-sided route: the rest of the spectrum is
    the Hermitian mirror (flips) of a half-size plan; a complex input of the same shape keeps the two-sided plan."""
    fn, shape = REAL_INPUT_CASES[name]
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(6))
    flips = {}
    for kind, arg in (("real", x), ("complex", torch.complex(x, x.flip(-1)))):
        lowered = realify.lower(trace(fn, (arg,)))
        assert not fft_targets(lowered)
        flips[kind] = sum(n.target is torch.ops.aten.flip.default for n in lowered.graph.nodes)
        ref = fn(arg)
        out = lowered(to_real(arg))
        got = torch.view_as_complex(out.contiguous()) if ref.is_complex() else out
        torch.testing.assert_close(got, ref, rtol=2e-6, atol=2e-6)
    assert flips["real"] > flips["complex"], flips  # the plans flip too; the mirror adds its own


def test_inverse_of_a_real_input_keeps_the_two_sided_transform() -> None:
    """ifft2 of a real tensor: the conjugated mirror would sign zero imaginary parts unlike eager's c2c."""
    x = torch.randn(2, 6, 8)
    lowered = realify.lower(trace(torch.fft.ifft2, (x,)), fft="native")
    assert fft_targets(lowered) == ["realify.fft_c2c.default"]
    torch.testing.assert_close(torch.view_as_complex(lowered(x)), torch.fft.ifft2(x), rtol=2e-6, atol=2e-6)


def test_fnet_block_reads_the_real_part_of_a_one_sided_transform() -> None:
    """The FNet block keeps only the real part: the backend's graph holds one r2c and no imaginary-part work."""
    torch._dynamo.reset()
    model = zoo.FNet(dim=32).eval()
    x = torch.randn(2, 16, 32)
    events: list[CompileEvent] = []
    with torch.no_grad():
        out = torch.compile(model, backend="realify", options={"backend": "eager", "on_lowered": events.append})(x)
        torch.testing.assert_close(out, model(x), rtol=1e-5, atol=1e-5)
    (event,) = events
    assert fft_targets(event.graph_after) == ["realify.fft_r2c.default"]
    assert not [n for n in event.graph_after.graph.nodes if n.target is torch.ops.aten.neg.default]
