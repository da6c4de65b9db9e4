"""Plain GraphModules with in-place ops on complex values (make_fx keeps them; so does ep.module()) are
functionalized by realify.lower and lower exactly; the given graph is left as it was. And resize_, which
functionalization turns into as_strided of a clone: exact where the clone is known contiguous, a clear error where
its layout is not."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import realify
import torch
from harness import assert_real_only
from torch.fx.experimental.proxy_tensor import make_fx


def add_(x: torch.Tensor) -> torch.Tensor:
    y = x * 2
    y.add_(1j)
    return y


def mul_(x: torch.Tensor) -> torch.Tensor:
    y = x + 1
    y.mul_(x)
    return y


def div_(x: torch.Tensor) -> torch.Tensor:
    y = x + 2
    y.div_(x + 1j)
    return y


def slice_assign(x: torch.Tensor) -> torch.Tensor:
    """The Fourier neural operator's pattern: a spectrum written into part of a complex zeros tensor."""
    out = torch.zeros(4, 8, dtype=x.dtype)
    out[:, :6] = x * 1j
    return out


def zero_(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[1].zero_()
    return y


def fill_(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[:, 2].fill_(3 - 1j)
    return y


def index_put_(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y[torch.tensor([0, 2])] = x[1] * 2
    return y


def masked_fill_(x: torch.Tensor) -> torch.Tensor:
    y = x.clone()
    y.masked_fill_(x.real > 0, 1 + 1j)
    return y


def copy_(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    y.copy_(x.conj())
    return y + 1


INPLACE: list[Callable[[torch.Tensor], torch.Tensor]] = [
    add_,
    mul_,
    div_,
    slice_assign,
    zero_,
    fill_,
    index_put_,
    masked_fill_,
    copy_,
]


def lowered_vs_eager(fn: Callable[..., torch.Tensor], z: torch.Tensor) -> None:
    gm = make_fx(fn)(z.clone())
    assert any(n.op == "call_function" and n.target._schema.is_mutable for n in gm.graph.nodes), gm.code
    code, nodes = gm.code, len(gm.graph.nodes)
    low = realify.lower(gm)
    assert gm.code == code and len(gm.graph.nodes) == nodes, "the input graph was changed"
    assert_real_only(low)
    got = torch.view_as_complex(low(torch.view_as_real(z.clone())))
    exact = {} if fn is div_ else {"rtol": 0, "atol": 0}  # division rounds as c10 does, not as eager's kernel
    torch.testing.assert_close(got, fn(z.clone()), **exact)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("fn", INPLACE, ids=[f.__name__ for f in INPLACE])
def test_inplace_on_complex_lowers_exactly(fn: Callable[[torch.Tensor], torch.Tensor], dtype: torch.dtype) -> None:
    torch.manual_seed(0)
    lowered_vs_eager(fn, torch.randn(4, 6, dtype=dtype))


def test_inplace_with_symbolic_shapes() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        y[:, :2] += x[:, 2:4] * 1j
        return y

    z = torch.randn(4, 6, dtype=torch.complex64)
    gm = make_fx(fn, tracing_mode="symbolic")(z.clone())
    low = realify.lower(gm)
    for shape in [(4, 6), (3, 5)]:
        w = torch.randn(*shape, dtype=torch.complex64)
        torch.testing.assert_close(torch.view_as_complex(low(torch.view_as_real(w))), fn(w), rtol=0, atol=0)


def test_mutated_input_is_written_back() -> None:
    """x.mul_(2j) on a graph input: the caller's real [..., 2] tensor is updated as eager updates x."""

    def fn(x: torch.Tensor) -> torch.Tensor:
        x.mul_(2j)
        return x + 1

    z = torch.randn(5, dtype=torch.complex64)
    low = realify.lower(make_fx(fn)(z.clone()))
    packed = torch.view_as_real(z.clone()).clone()
    want_in = z.clone()
    want = fn(want_in)
    got = low(packed)
    torch.testing.assert_close(torch.view_as_complex(got), want, rtol=0, atol=0)
    torch.testing.assert_close(torch.view_as_complex(packed), want_in, rtol=0, atol=0)


class Cache(torch.nn.Module):
    """A KV-cache-style complex buffer written in place."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("kv", torch.zeros(4, 6, dtype=torch.complex64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.kv[1] = x[0] * 1j
        self.kv.mul_(2)
        return self.kv.sum(0) + x


def test_unlifted_module_with_buffer_mutation() -> None:
    """ep.module() keeps add_/mul_ on buffers; lowered as a plain GraphModule, its real buffer is written back."""
    z = torch.randn(4, 6, dtype=torch.complex64)
    gm = torch.export.export(Cache(), (z,)).module()
    kv_before, code = gm.kv.clone(), gm.code
    low = realify.lower(gm)
    ref = Cache()
    for _ in range(2):  # the second call sees the first call's write-back
        got = torch.view_as_complex(low(torch.view_as_real(z)))
        torch.testing.assert_close(got, ref(z), rtol=0, atol=0)
        torch.testing.assert_close(torch.view_as_complex(low.kv), ref.kv, rtol=0, atol=0)
    assert gm.code == code and torch.equal(gm.kv, kv_before), "the input module was changed"


def test_resize_of_a_contiguous_clone_is_exact() -> None:
    """Functionalized x.resize_(...) is as_strided of a clone of x; the trace shows the clone contiguous."""

    def fn(x: torch.Tensor) -> torch.Tensor:
        return torch.as_strided(x.clone(), (3, 8), (8, 1)) * 1j

    z = torch.randn(4, 6, dtype=torch.complex64)
    low = realify.lower(make_fx(fn)(z))
    torch.testing.assert_close(torch.view_as_complex(low(torch.view_as_real(z))), fn(z), rtol=0, atol=0)


def test_as_strided_of_a_non_contiguous_clone_raises() -> None:
    """A clone of a transposed tensor keeps the transposed layout: as_strided on it is refused, not guessed."""

    def fn(x: torch.Tensor) -> torch.Tensor:
        return torch.as_strided((x * 2).t().clone(), (3, 8), (8, 1))

    z = torch.randn(4, 6, dtype=torch.complex64)
    with pytest.raises(realify.UnsupportedOpError, match="not known to be contiguous"):
        realify.lower(make_fx(fn)(z))


class SpectralConv(torch.nn.Module):
    """The Fourier neural operator's layer as its authors write it: complex weight Parameters, and the kept modes'
    product assigned into a slice of a complex zeros spectrum."""

    def __init__(self, channels: int = 3, m1: int = 2, m2: int = 3) -> None:
        super().__init__()
        self.m1, self.m2 = m1, m2
        scale = 1 / channels
        self.w1 = torch.nn.Parameter(scale * torch.randn(channels, channels, m1, m2, dtype=torch.cfloat))
        self.w2 = torch.nn.Parameter(scale * torch.randn(channels, channels, m1, m2, dtype=torch.cfloat))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(b, c, h, w // 2 + 1, dtype=torch.cfloat, device=x.device)
        out_ft[:, :, : self.m1, : self.m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, : self.m1, : self.m2], self.w1)
        out_ft[:, :, -self.m1 :, : self.m2] = torch.einsum(
            "bixy,ioxy->boxy", x_ft[:, :, -self.m1 :, : self.m2], self.w2
        )
        return torch.fft.irfft2(out_ft, s=(h, w))


def test_fno_slice_assignment_through_unlifted_module() -> None:
    """ep.module() keeps the slice assignment (copy_ into a view) and the weights as requires_grad Parameters: the
    retrace rewrites only the mutation, without autograd (which has no complex slice_scatter), and reads the
    module's own Parameters, which the result holds in their real form."""
    torch.manual_seed(0)
    model, x = SpectralConv(), torch.randn(2, 3, 8, 8)
    gm = torch.export.export(model, (x,)).module()
    code = gm.code
    low = realify.lower(gm)
    assert gm.code == code and gm.w1 is not None and gm.w1.is_complex(), "the input module was changed"
    assert_real_only(low)
    torch.testing.assert_close(low(x), model(x), rtol=1e-5, atol=1e-5)
    # the real weights are the module's values, still trainable Parameters
    assert isinstance(low.w1, torch.nn.Parameter) and low.w1.requires_grad
    torch.testing.assert_close(torch.view_as_complex(low.w1), model.w1, rtol=0, atol=0)


def test_functionalize_keeps_parameters() -> None:
    """The functional graph holds the given module's Parameter objects themselves, not copies."""
    from realify._functionalize import functionalize_graph

    model, x = SpectralConv(), torch.randn(2, 3, 8, 8)
    gm = torch.export.export(model, (x,)).module()
    fn = functionalize_graph(gm)
    assert fn is not gm and not any(n.target is torch.ops.aten.copy_.default for n in fn.graph.nodes)
    assert fn.w1 is gm.w1 and fn.w2 is gm.w2
    with torch.no_grad():  # eager autograd has no complex slice_scatter, which the functional form holds
        torch.testing.assert_close(fn(x), model(x), rtol=1e-5, atol=1e-5)


def test_fno_slice_assignment_through_exported_program() -> None:
    torch.manual_seed(0)
    model, x = SpectralConv(), torch.randn(2, 3, 8, 8)
    low = realify.lower(torch.export.export(model, (x,)))
    assert_real_only(low.module())
    torch.testing.assert_close(low.module()(x), model(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("inner", ["eager", "inductor"])
def test_fno_slice_assignment_through_backend(inner: str) -> None:
    """Inference, then a training step whose gradients (complex weights included) match eager's."""
    torch.manual_seed(0)
    model, x = SpectralConv(), torch.randn(2, 3, 8, 8)
    ref = SpectralConv()
    ref.load_state_dict(model.state_dict())
    compiled = torch.compile(model, backend="realify", fullgraph=True, options={"backend": inner})
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), ref(x), rtol=1e-5, atol=1e-5)
    xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
    (compiled(xa) ** 2).sum().backward()
    (ref(xb) ** 2).sum().backward()
    for name, p in model.named_parameters():
        torch.testing.assert_close(p.grad, dict(ref.named_parameters())[name].grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-5, atol=1e-5)
