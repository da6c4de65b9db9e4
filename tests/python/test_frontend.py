"""What users write and send, through torch.export and realify.lower, compared with eager (issue 13's front end)."""

from __future__ import annotations

from typing import Any

import pytest
import realify
import torch
import torch.fx as fx
from harness import assert_real_only, compare, to_real
from realify.lower import module_check_guards_kwargs
from torch.fx.experimental.proxy_tensor import make_fx

TOL = dict(rtol=1e-5, atol=1e-5)


def z(*shape: int, dtype: torch.dtype = torch.complex64, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


def export_and_compare(model: torch.nn.Module, args: tuple[Any, ...], truncate_double: bool = False) -> Any:
    """export -> realify.lower(ExportedProgram) -> run on real args; compare with eager. Returns the new program."""
    ep = torch.export.export(model, args)
    ep2 = realify.lower(ep, truncate_double=truncate_double)
    assert_real_only(ep2.module(**module_check_guards_kwargs()))
    out = ep2.module()(*[to_real(a, truncate_double) for a in args])
    compare(out, model(*args), TOL)
    return ep2


def asserts_of(gm: fx.GraphModule) -> list[fx.Node]:
    return [n for n in gm.graph.nodes if n.target is torch.ops.aten._assert_tensor_metadata.default]


# ---- 1. _assert_tensor_metadata (x.to(same dtype) under torch.export) ----


class ToSame(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.to(torch.complex64) * 2


class AbsToDouble(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x.abs().to(torch.float64) + 1, (x * x).to(torch.complex128)


def test_to_same_complex_dtype_lowers() -> None:
    ep = torch.export.export(ToSame(), (z(3, 4),))
    assert asserts_of(ep.graph_module), "export no longer emits the metadata check this test is about"
    export_and_compare(ToSame(), (z(3, 4),))


@pytest.mark.parametrize("truncate", [False, True])
def test_metadata_checks_under_truncate_double(truncate: bool) -> None:
    x = z(5, dtype=torch.complex128)
    gm = torch.export.export(AbsToDouble(), (x,)).module()
    lowered, _ = realify.lower_graph_module(gm, truncate_double=truncate)
    dtypes = [n.kwargs.get("dtype") for n in asserts_of(lowered)]
    # the complex check goes; the float64 check of a real value stays unless complex128 parts became float32
    assert dtypes == ([] if truncate else [torch.float64])
    out = lowered(to_real(x, truncate))
    want = AbsToDouble()(x)
    torch.testing.assert_close(out[0].double(), want[0], rtol=1e-5, atol=1e-5)
    assert out[1].dtype == (torch.float32 if truncate else torch.float64)
    torch.testing.assert_close(torch.view_as_complex(out[1].double()), want[1], rtol=1e-5, atol=1e-5)


def test_error_on_a_node_without_outputs_names_it_and_its_line() -> None:
    g = fx.Graph()
    x = g.placeholder("x")
    x.meta["val"] = z(3)
    check = g.call_function(torch.ops.aten._assert_async.msg, (x, "nonzero"))
    check.meta["val"] = None
    check.meta["stack_trace"] = 'File "/user/model.py", line 7, in forward\n    torch._assert_async(x, "nonzero")\n'
    g.output((x,))
    with pytest.raises(realify.UnsupportedOpError) as info:
        realify.lower(fx.GraphModule(torch.nn.Module(), g))
    assert info.value.node == check.name and info.value.node != ""
    assert info.value.source == '/user/model.py:7 in forward: torch._assert_async(x, "nonzero")'


# ---- 2. complex parameters, buffers and constants returned as they are ----


class ReturnsState(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("freqs", z(3, seed=1))
        self.w = torch.nn.Parameter(z(3, seed=2))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.freqs, self.w, x * self.freqs


class ReturnsConstant(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x + 1, torch.tensor([1 + 2j, -3j])


def test_buffer_and_parameter_returned_unchanged() -> None:
    ep2 = export_and_compare(ReturnsState(), (z(3),))
    sig = ep2.graph_module.meta["realify_report"].signature
    assert [b.position for b in sig.outputs] == [0, 1, 2]


def test_complex_constant_returned() -> None:
    export_and_compare(ReturnsConstant(), (z(2),))
    gm = make_fx(lambda x: (x * 2, torch.tensor([0.5j, 2 + 0j])))(z(2))
    lowered = realify.lower(gm)
    assert_real_only(lowered)
    compare(lowered(to_real(z(2))), (z(2) * 2, torch.tensor([0.5j, 2 + 0j])), TOL)


# ---- 3. a clear error when a lowered graph or the adapter gets the wrong arguments ----


def test_lowered_graph_names_the_wrong_argument() -> None:
    x, w = z(3, 4), torch.randn(3, 4)
    lowered = realify.lower(make_fx(lambda a, b: a * b)(x, w))
    torch.testing.assert_close(torch.view_as_complex(lowered(to_real(x), w)), x * w)
    with pytest.raises(
        realify.RealifyError,
        match=r"argument 0 \(a_1\).*torch.float32 tensor of shape \(3, 4, 2\).*"
        r"got a torch.complex64 tensor of shape \(3, 4\)",
    ):
        lowered(x, w)
    with pytest.raises(
        realify.RealifyError,
        match=r"expected a torch.float32 tensor of shape \(3, 4, 2\), got a "
        r"torch.float64 tensor",
    ):
        lowered(to_real(x).double(), w)
    with pytest.raises(realify.RealifyError, match=r"argument 1 \(b_1\) of the lowered graph is real"):
        lowered(to_real(x), x)
    wrong_shape = r"shape \(3, 4, 2\), got a torch.float32 tensor of shape \(3, 5, 2\)"
    with pytest.raises(realify.RealifyError, match=wrong_shape):
        lowered(torch.randn(3, 5, 2), w)


def test_adapter_names_the_wrong_argument() -> None:
    from realify.backend import compile_lowered

    x = z(4)
    fn = compile_lowered(make_fx(lambda a: a.exp())(x), [x], inner="eager")
    torch.testing.assert_close(fn(x), x.exp())
    with pytest.raises(realify.RealifyError, match=r"argument 0 must be a complex tensor .*got a torch.float32"):
        fn(to_real(x))


# ---- 4. sizes, strides and numel of complex values under dynamic shapes ----


class RopeComplexIn(torch.nn.Module):
    """RoPE whose activations arrive complex: the sequence length is read off the complex tensor."""

    def forward(self, xc: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
        f = freqs[: xc.shape[1]].view(1, xc.shape[1], 1, xc.shape[-1])
        return (xc * f).reshape(xc.shape[0], xc.shape[1], -1)


def test_rope_with_dynamic_batch_and_sequence() -> None:
    from torch.export import Dim

    xc, freqs = z(2, 8, 4, 4), torch.polar(torch.ones(16, 4), torch.randn(16, 4))
    dims = ({0: Dim("batch", min=1, max=32), 1: Dim("seq", min=2, max=16)}, None)
    ep = torch.export.export(RopeComplexIn(), (xc, freqs), dynamic_shapes=dims)
    assert any(n.target is torch.ops.aten.sym_size.int for n in ep.graph.nodes)
    ep2 = realify.lower(ep)
    for b, s in ((2, 8), (3, 5), (1, 16)):
        x = z(b, s, 4, 4, seed=b + s)
        compare(ep2.module()(to_real(x), to_real(freqs)), RopeComplexIn()(x, freqs), TOL)


def test_numel_and_stride_of_complex_inputs() -> None:
    def f(x: torch.Tensor) -> torch.Tensor:
        return x.reshape(x.numel() // x.stride(0), x.stride(0)) * 2

    x = z(6, 4)
    gm = make_fx(f, tracing_mode="symbolic")(x)
    traced = {n.target for n in gm.graph.nodes}
    assert {torch.ops.aten.sym_numel.default, torch.ops.aten.sym_stride.int} & traced, traced
    lowered = realify.lower(gm)
    for shape in ((6, 4), (3, 5)):
        x = z(*shape, seed=shape[0])
        compare(lowered(to_real(x)), f(x), TOL)


def test_stride_of_an_intermediate_complex_value_is_refused() -> None:
    from realify import _core

    text = (
        "graph {\n  input %x: c64[s0, 4]\n  %y: c64[s0, 4] = aten.mul.Tensor(self=%x, other=%x)\n"
        "  %s: symint = aten.sym_stride.int(self=%y, dim=0)\n  %k: symint = aten.sym_stride.int(self=%x, dim=0)\n"
        "  output (%y, %k)\n}\n"
    )
    with pytest.raises(_core.LowerError, match="not a graph input"):
        _core.lower(text)
    ok = _core.lower(text.replace("  %s: symint = aten.sym_stride.int(self=%y, dim=0)\n", ""))
    assert "aten.sym_stride.int(self=%x" in ok and "py:_operator.floordiv" in ok


# ---- 5. where with a scalar operand, mT and the conjugate transposes, as torch.export keeps them ----


class WhereAndTransposes(torch.nn.Module):
    def forward(self, c: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return torch.where(c, x, 0), torch.where(c, 1j, x), x.mT, x.mH, x.adjoint(), x[0].H


def test_where_scalar_and_transposes_through_export() -> None:
    c, x = torch.randn(2, 3, 4) > 0, z(2, 3, 4)
    ep = torch.export.export(WhereAndTransposes(), (c, x))
    kept = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert {"aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.mT.default", "aten.mH.default"} <= kept, kept
    ep2 = export_and_compare(WhereAndTransposes(), (c, x))
    ops = {str(n.target) for n in ep2.graph.nodes if n.op == "call_function"}
    assert not {"aten.mT.default", "aten.mH.default", "aten.adjoint.default", "aten.matrix_H.default"} & ops


# ---- 6. in-place ops: an ExportedProgram is functionalized before lowering ----


class SpectralConv(torch.nn.Module):
    """The Fourier neural operator's spectral layer: slice assignment into complex zeros."""

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(z(4, 4, 3, 3, seed=3) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = torch.fft.rfft2(x)
        out = torch.zeros(x.shape[0], 4, x.shape[-2], x.shape[-1] // 2 + 1, dtype=torch.cfloat)
        out[:, :, :3, :3] = torch.einsum("bixy,ioxy->boxy", xf[:, :, :3, :3], self.w)
        return torch.fft.irfft2(out, s=(x.shape[-2], x.shape[-1]))


class InPlaceOps(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        y.add_(1).mul_(x).div_(2)
        t = torch.zeros_like(x)
        t.copy_(y)
        u = x * 1
        u.zero_()
        u.fill_(2j)
        y[0] = 3j
        y[torch.tensor([1, 2])] = x[:2]
        y.masked_fill_(x.real > 0, -1j)
        return y + t + u


class KVCache(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(4, 3, dtype=torch.complex64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.cache[1:3] = x
        self.cache.mul_(1j)
        return self.cache * 2


class ScalesInput(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x.mul_(2)
        return x + 1


def _kept_code(model: torch.nn.Module, args: tuple[Any, ...]) -> tuple[torch.export.ExportedProgram, str]:
    ep = torch.export.export(model, args)
    return ep, ep.graph_module.code


def test_fno_slice_assignment_into_complex_zeros() -> None:
    x = torch.randn(2, 4, 8, 8)
    ep, code = _kept_code(SpectralConv(), (x,))
    assert any(n.target is torch.ops.aten.copy_.default for n in ep.graph.nodes)
    ep2 = realify.lower(ep)
    assert ep.graph_module.code == code, "the given program was changed"
    torch.testing.assert_close(ep2.module()(x), SpectralConv()(x), rtol=1e-4, atol=1e-4)


def test_in_place_ops_on_complex_values() -> None:
    x = z(3, 2, seed=4)
    ep, code = _kept_code(InPlaceOps(), (x,))
    kept = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert {"aten.add_.Tensor", "aten.mul_.Tensor", "aten.copy_.default", "aten.zero_.default"} <= kept, kept
    ep2 = realify.lower(ep)
    assert ep.graph_module.code == code
    compare(ep2.module()(to_real(x)), InPlaceOps()(x.clone()), TOL)


def test_mutated_complex_buffer_is_written_back_as_the_real_buffer() -> None:
    x = z(2, 3, seed=5)
    ep2 = realify.lower(torch.export.export(KVCache(), (x,)))
    mutations = {s.target for s in ep2.graph_signature.output_specs if s.kind.name == "BUFFER_MUTATION"}
    assert mutations == {"cache"}
    lowered, eager = ep2.module(), KVCache()
    for step in range(2):  # the state carries over from one call to the next
        compare(lowered(to_real(x)), eager(x), TOL)
        torch.testing.assert_close(torch.view_as_complex(lowered.cache), eager.cache, msg=f"call {step}")


def test_mutated_complex_input_keeps_its_mutation() -> None:
    x = z(3, seed=6)
    ep2 = realify.lower(torch.export.export(ScalesInput(), (x.clone(),)))
    kinds = [s.kind.name for s in ep2.graph_signature.output_specs]
    assert kinds == ["USER_INPUT_MUTATION", "USER_OUTPUT"]
    xr = to_real(x.clone())
    out = ep2.module()(xr)
    torch.testing.assert_close(torch.view_as_complex(xr), 2 * x)
    torch.testing.assert_close(torch.view_as_complex(out), 2 * x + 1)


def test_copy_into_an_intermediate_value_is_functionalized() -> None:
    """realify.lower functionalizes a plain graph with in-place ops (more in test_functionalize.py)."""

    def f(x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y.copy_(x)
        return y

    x = z(3)
    gm = make_fx(f, pre_dispatch=True)(x)
    low = realify.lower(gm)
    assert "aten.copy_.default" in {str(n.target) for n in gm.graph.nodes}
    torch.testing.assert_close(torch.view_as_complex(low(to_real(x))), f(x), rtol=0, atol=0)
