"""fft="native": transforms become realify.fft_* operators over the platform FFT, with no complex dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import realify
import torch
from harness import call_argument
from realify import native_fft
from realify.backend import CompileEvent
from torch.fx.experimental.proxy_tensor import make_fx

CASES: dict[str, tuple[Callable[..., Any], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "rfft_irfft": (lambda x: torch.fft.irfft(torch.fft.rfft(x) * 2, n=9), lambda: (torch.randn(3, 9),)),
    "fft_ortho": (lambda z: torch.fft.fft(z, norm="ortho"), lambda: (torch.randn(4, 10, dtype=torch.complex64),)),
    "ifft2": (lambda z: torch.fft.ifft2(z), lambda: (torch.randn(2, 6, 5, dtype=torch.complex64),)),
    "rfft2_modes": (lambda x: torch.fft.rfft2(x)[..., :3, :2], lambda: (torch.randn(2, 8, 8),)),
    "irfftn": (lambda z: torch.fft.irfftn(z, s=(6, 10)), lambda: (torch.randn(2, 6, 6, dtype=torch.complex64),)),
    "fft_c128": (lambda z: torch.fft.fft(z, dim=0), lambda: (torch.randn(7, 3, dtype=torch.complex128),)),
    "hfft": (lambda z: torch.fft.hfft(z, n=10), lambda: (torch.randn(3, 6, dtype=torch.complex64),)),
}


def _real_args(args: tuple[torch.Tensor, ...]) -> list[torch.Tensor]:
    return [torch.view_as_real(a) if a.is_complex() else a for a in args]


def _fft_ops(gm: torch.fx.GraphModule) -> set[str]:
    return {str(n.target) for n in gm.graph.nodes if n.op == "call_function" and "fft" in str(n.target)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_native_matches_eager(name: str) -> None:
    fn, make = CASES[name]
    args = make()
    gm = make_fx(fn)(*args)
    low = realify.lower(gm, fft="native")
    ops = _fft_ops(low)
    assert ops and all(op.startswith("realify.fft_") for op in ops), ops
    for node in low.graph.nodes:
        val = node.meta.get("val")
        assert not (isinstance(val, torch.Tensor) and val.is_complex()), node.format_node()
    out = low(*_real_args(args))
    ref = fn(*args)
    got = torch.view_as_complex(out) if ref.is_complex() else out
    torch.testing.assert_close(got, ref, rtol=1e-6, atol=1e-6)


def test_matmul_is_the_default_of_lower() -> None:
    fn, make = CASES["rfft_irfft"]
    low = realify.lower(make_fx(fn)(*make()))
    assert not _fft_ops(low)  # DFT matmuls: nothing but real aten ops


def test_native_in_exported_program_with_dynamic_batch() -> None:
    class M(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.fft.irfft(torch.fft.rfft(x) * 0.5, n=16)

    x = torch.randn(3, 16)
    ep = torch.export.export(M(), (x,), dynamic_shapes={"x": {0: torch.export.Dim("b")}})
    low = realify.lower(ep, fft="native")
    assert {"realify.fft_r2c.default", "realify.fft_c2r.default"} <= _fft_ops(low.graph_module)
    x5 = torch.randn(5, 16)
    torch.testing.assert_close(low.module()(x5), M()(x5), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("inner", ["eager", "inductor"])
def test_backend_auto_uses_native_for_inner(inner: str) -> None:
    events: list[CompileEvent] = []

    def f(z: torch.Tensor) -> torch.Tensor:
        return torch.fft.ifft(torch.fft.fft(z) * z)

    compiled = torch.compile(f, backend="realify", options={"backend": inner, "on_lowered": events.append})
    z = torch.randn(4, 12, dtype=torch.complex64)
    torch.testing.assert_close(compiled(z), f(z), rtol=1e-5, atol=1e-5)
    assert events and "realify.fft_c2c.default" in _fft_ops(events[0].graph_after)


def test_auto_resolution_and_bad_values() -> None:
    assert native_fft.resolve("auto", "inductor") == "native"
    assert native_fft.resolve("auto", "eager") == "native"
    assert native_fft.resolve("auto", "onnxrt") == "matmul"
    assert native_fft.resolve("auto", None) == "matmul"
    assert native_fft.resolve("matmul", "inductor") == "matmul"
    with pytest.raises(ValueError, match="fft must be one of"):
        native_fft.resolve("cufft", None)
    with pytest.raises(ValueError, match="fft must be one of"):
        realify.lower(make_fx(lambda x: x * 2)(torch.randn(2)), fft="dft")


def test_half_precision_kernel_computes_in_float() -> None:
    x = torch.randn(2, 12)
    ref = torch.view_as_real(torch.fft.rfft(x))
    got = torch.ops.realify.fft_r2c(x.to(torch.bfloat16), [1], True)
    assert got.dtype == torch.bfloat16 and got.shape == ref.shape
    torch.testing.assert_close(got.float(), ref, rtol=2e-2, atol=5e-2)


OP_SAMPLES: dict[str, Callable[[], tuple[Any, ...]]] = {
    "fft_c2c": lambda: (torch.randn(3, 8, 2), [1], True),
    "fft_r2c": lambda: (torch.randn(3, 10), [1], True),
    "fft_c2r": lambda: (torch.randn(3, 6, 2), [1], 10),
    "dft": lambda: (torch.randn(4, 6, 2), 1, False),
}


@pytest.mark.parametrize("name", sorted(OP_SAMPLES))
def test_operator_registration_passes_opcheck(name: str) -> None:
    """Schema, fake kernel, autograd registration and dispatch of each operator, as torch.library checks them."""
    torch.library.opcheck(getattr(torch.ops.realify, name).default, OP_SAMPLES[name]())


@pytest.mark.parametrize("name", sorted(OP_SAMPLES))
def test_gradients_through_operators_match_torch_fft(name: str) -> None:
    """Where a gradient is wanted the operator runs its aten calls under autograd: the same gradient as the
    complex transform it stands for, not a silent zero."""
    args = OP_SAMPLES[name]()
    x = args[0].clone().requires_grad_(True)
    out = getattr(torch.ops.realify, name).default(x, *args[1:])
    weight = torch.randn_like(out)
    (out * weight).sum().backward()
    x_ref = args[0].clone().requires_grad_(True)
    dim, last = args[1], args[2]
    z = torch.view_as_complex(x_ref) if name in ("fft_c2c", "fft_c2r", "dft") else x_ref
    ref = {
        "fft_c2c": lambda: torch.view_as_real(torch.fft.fft(z, dim=dim[0])),
        "fft_r2c": lambda: torch.view_as_real(torch.fft.rfft(z, dim=dim[0])),
        "fft_c2r": lambda: torch.fft.irfft(z, n=last, dim=dim[0]) * last,
        "dft": lambda: torch.view_as_real(torch.fft.fft(z, dim=dim)),
    }[name]()
    (ref * weight).sum().backward()
    assert x.grad is not None and x_ref.grad is not None
    torch.testing.assert_close(x.grad, x_ref.grad, rtol=1e-5, atol=1e-5)


def _native_inductor_code() -> str:
    """The code Inductor generates, as the realify backend's inner compiler with fft="native", for
    irfft(rfft(x) * 2) on x of shape [3, 16], after checking its result against eager's."""
    from torch._inductor.utils import run_and_get_code

    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.fft.rfft(x) * 2, n=16)

    torch._dynamo.reset()
    compiled = torch.compile(f, backend="realify", options={"backend": "inductor", "fft": "native"})
    x = torch.randn(3, 16)
    with torch._inductor.config.patch(force_disable_caches=True):
        out, code = run_and_get_code(compiled, x)
    torch.testing.assert_close(out, f(x), rtol=1e-6, atol=1e-6)
    return "\n".join(code)


def test_inductor_calls_the_platform_fft_without_our_python_kernel() -> None:
    """The inner Inductor gets each operator's aten calls as its decomposition, so the generated code calls
    aten._fft_* directly (the host cost of a Python kernel per call is gone) and still matches eager."""
    from torch._inductor.decomposition import select_decomp_table

    text = _native_inductor_code()
    assert "aten._fft_r2c" in text and "aten._fft_c2r" in text, text
    assert "realify.fft_" not in text.replace("Original ATen: [realify.fft_", ""), text
    table = select_decomp_table()  # registered in Inductor's own table, so its FX-graph cache stays usable
    for name in ("fft_c2c", "fft_r2c", "fft_c2r", "dft"):
        assert getattr(torch.ops.realify, name).default in table


def test_inner_inductor_keeps_its_graph_cache() -> None:
    """The decompositions must not make Inductor bypass its FX-graph cache (a decomposition table passed to
    compile_fx does: warm starts then compile from scratch)."""
    from torch._dynamo.utils import counters

    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.fft.rfft(x) * 5, n=10)

    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(f, backend="realify", options={"backend": "inductor", "fft": "native"})
    x = torch.randn(2, 10)
    torch.testing.assert_close(compiled(x), f(x), rtol=1e-6, atol=1e-6)
    assert counters["inductor"]["fxgraph_cache_bypass"] == 0, dict(counters["inductor"])


def test_lowered_module_compiled_by_inductor_calls_the_platform_fft() -> None:
    """Lowering with fft="native" adds the operators' aten calls to Inductor's own decomposition table, so a
    lowered module compiled with plain torch.compile also calls aten._fft_* instead of our Python kernel."""
    from torch._inductor.utils import run_and_get_code

    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.fft.rfft(x) * 3, n=12)

    x = torch.randn(2, 12)
    low = realify.lower(make_fx(f)(x), fft="native")
    torch._dynamo.reset()
    with torch._inductor.config.patch(force_disable_caches=True):
        out, code = run_and_get_code(torch.compile(low), x)
    torch.testing.assert_close(out, f(x), rtol=1e-6, atol=1e-6)
    text = "\n".join(code)
    assert "aten._fft_r2c" in text and "aten._fft_c2r" in text, text


NORMALIZED: dict[str, tuple[Callable[[torch.Tensor], torch.Tensor], bool]] = {
    "irfft": (lambda x: torch.fft.irfft(torch.fft.rfft(x), n=12), False),
    "ifft_ortho": (lambda z: torch.fft.ifft(z, norm="ortho"), True),
    "rfft_forward": (lambda x: torch.fft.rfft(x, norm="forward"), False),
    "fft2_ortho": (lambda z: torch.fft.fft2(z, norm="ortho"), True),
    "irfft2": (lambda z: torch.fft.irfft2(z, s=(6, 10)), True),
}


@pytest.mark.parametrize("name", sorted(NORMALIZED))
def test_normalization_rides_in_the_call(name: str) -> None:
    """A whole transform's 1/n or 1/sqrt(n) is the operator's `normalization` (aten's), not a multiply after it:
    one kernel less under Inductor, and the platform applies it as eager does, so the result is eager's bit for
    bit."""
    fn, complex_input = NORMALIZED[name]
    x = torch.randn(3, 6, 12, dtype=torch.complex64 if complex_input else torch.float32)
    low = realify.lower(make_fx(fn)(x), fft="native")
    calls = [n for n in low.graph.nodes if str(n.target).startswith("realify.fft_")]
    modes = [call_argument(n, "normalization", 0) for n in calls]
    assert any(m in (1, 2) for m in modes), modes
    assert not [n for n in low.graph.nodes if n.target == torch.ops.aten.mul.Tensor], low.code
    out = low(*_real_args((x,)))
    ref = fn(x)
    assert torch.equal(torch.view_as_complex(out) if ref.is_complex() else out, ref)


def test_normalized_operators_pass_opcheck() -> None:
    torch.library.opcheck(native_fft.fft_c2r, (torch.randn(3, 6, 2), [1], 10, 2))
    torch.library.opcheck(native_fft.fft_c2c, (torch.randn(3, 6, 2), [1], False, 1))
    torch.library.opcheck(native_fft.fft_r2c, (torch.randn(3, 10), [1], True, 2))


def test_inductor_passes_the_normalization_to_the_platform_fft() -> None:
    """Under Inductor, irfft's 1/n is the extern call's normalization argument: no scaling kernel after it."""
    text = _native_inductor_code()
    assert "aten._fft_c2r.default(" in text and ", [1], 2, 16)" in text, text
    after = text[text.index("aten._fft_c2r.default("):]
    assert "cpp_fused" not in after.split("return")[0], after


# (shape, dim, normalization): one non-last dim, the last, several dims with each normalization
R2C_CASES = [((4, 8, 8), [1], 0), ((4, 8, 8), [1], 2), ((3, 6, 5), [2], 1), ((3, 6, 5), [0, 2], 1),
             ((2, 6, 4, 5), [1, 2], 2), ((2, 6, 4, 5), [3, 1], 0)]


@pytest.mark.parametrize(("shape", "dim", "normalization"), R2C_CASES)
def test_r2c_along_the_last_dim_matches_the_platform_fft(
    monkeypatch: pytest.MonkeyPatch, shape: tuple[int, ...], dim: list[int], normalization: int
) -> None:
    """torch 2.11's fake kernel of aten._fft_r2c gives a contiguous result where the CPU kernel's is strided for a
    non-last dim, and Inductor's stride check after the call fails. Where the probe finds that, realify's CPU
    kernel moves the one-sided dim last first. Forced on here (this torch's fake kernel agrees): the same numbers
    as the platform FFT, and Inductor's generated code runs."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    probe = torch.zeros(4, 8, 8)  # Autoformer's shape: the probe's verdict holds for it too
    with FakeTensorMode():
        fake = torch._fft_r2c(torch.zeros(4, 8, 8), [1], 0, True).stride()
    assert native_fft._R2C_LAST_DIM_ONLY is (torch._fft_r2c(probe, [1], 0, True).stride() != fake)
    monkeypatch.setattr(native_fft, "_R2C_LAST_DIM_ONLY", True)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(len(shape) + normalization), dtype=torch.float64)
    got = native_fft.fft_r2c(x, dim, True, normalization)
    want = torch.view_as_real(torch._fft_r2c(x, dim, normalization, True))
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    assert got.is_contiguous()

    def f(v: torch.Tensor) -> torch.Tensor:
        return torch.fft.rfftn(v, dim=dim, norm=("backward", "ortho", "forward")[normalization]).abs()

    torch._dynamo.reset()
    compiled = torch.compile(f, backend="realify", options={"backend": "inductor", "fft": "native"})
    with torch._inductor.config.patch(force_disable_caches=True):
        torch.testing.assert_close(compiled(x.float()), f(x.float()), rtol=1e-5, atol=1e-5)
