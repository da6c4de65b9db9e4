"""Complex matrix products as one real product on the packed layout (src/rules/linalg.c).

mm, bmm and matmul of complex matrices run as one real product: the left operand's (re, im) pairs, interleaved
along k, times the 2x2 real embedding of the right operand; a real left operand multiplies the right one's pairs
directly. Checked against eager on the shapes users write (batches, broadcasting, FNO's channel mixing) and on
the graphs: one real product per complex one."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import realify
import torch
from torch.fx.experimental.proxy_tensor import make_fx

C64, C128 = torch.complex64, torch.complex128


def _randn(*shape: int, dtype: torch.dtype = C64, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


CASES: dict[str, tuple[Callable[..., torch.Tensor], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "mm": (torch.mm, lambda: (_randn(5, 7), _randn(7, 3, seed=1))),
    "bmm": (torch.bmm, lambda: (_randn(4, 5, 7), _randn(4, 7, 3, seed=1))),
    "matmul_broadcast_left": (torch.matmul, lambda: (_randn(2, 3, 5, 7), _randn(7, 4, seed=1))),
    "matmul_broadcast_right": (torch.matmul, lambda: (_randn(5, 7), _randn(2, 7, 4, seed=1))),
    "matmul_c128": (torch.matmul, lambda: (_randn(3, 6, 5, dtype=C128), _randn(3, 5, 2, dtype=C128, seed=1))),
    # eager takes no mixed dtypes: a real operand is promoted, and the lowering knows its imaginary part is zero
    "real_times_complex": (lambda r, b: r.to(C64) @ b, lambda: (torch.randn(4, 6), _randn(6, 3, seed=1))),
    "complex_times_real": (lambda a, r: torch.mm(a, r.to(C64)), lambda: (_randn(4, 6), torch.randn(6, 3))),
    "conj_left": (lambda a, b: a.conj() @ b, lambda: (_randn(4, 6), _randn(6, 3, seed=1))),
    "adjoint_right": (lambda a, b: a @ b.mH, lambda: (_randn(4, 6), _randn(3, 6, seed=1))),
    "fno_channel_mixing": (
        lambda x, w: torch.einsum("bixy,ioxy->boxy", x, w),
        lambda: (_randn(2, 4, 3, 5), _randn(4, 6, 3, 5, seed=1)),
    ),
}


def _lowered(fn: Callable[..., torch.Tensor], args: tuple[torch.Tensor, ...], **kw: object) -> torch.fx.GraphModule:
    return realify.lower(make_fx(fn)(*args), **kw)


def _run(low: torch.fx.GraphModule, args: tuple[torch.Tensor, ...]) -> torch.Tensor:
    out = low(*[torch.view_as_real(a) if a.is_complex() else a for a in args])
    return torch.view_as_complex(out) if out.shape[-1:] == (2,) and out.dtype.is_floating_point else out


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_eager(name: str) -> None:
    fn, make = CASES[name]
    args = make()
    ref = fn(*args)
    got = _run(_lowered(fn, args), args)
    tol = 1e-12 if ref.dtype == C128 else 2e-6
    torch.testing.assert_close(got, ref, rtol=tol, atol=tol)


def _products(gm: torch.fx.GraphModule) -> list[str]:
    names = ("aten.mm.default", "aten.bmm.default", "aten.matmul.default")
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function" and str(n.target) in names]


@pytest.mark.parametrize("name", ["mm", "bmm", "matmul_broadcast_left", "real_times_complex", "fno_channel_mixing"])
def test_one_real_product_per_complex_product(name: str) -> None:
    fn, make = CASES[name]
    args = make()
    assert len(_products(make_fx(fn)(*args))) == len(_products(_lowered(fn, args))) == 1


def test_complex_times_real_keeps_two_products() -> None:
    fn, make = CASES["complex_times_real"]
    assert len(_products(_lowered(fn, make()))) == 2  # re and im of the left operand, each times the real one


def test_truncate_double_narrows_the_product() -> None:
    a, b = _randn(3, 4, dtype=C128), _randn(4, 5, dtype=C128, seed=1)
    low = _lowered(torch.mm, (a, b), truncate_double=True)
    got = torch.view_as_complex(low(torch.view_as_real(a).float(), torch.view_as_real(b).float()))
    torch.testing.assert_close(got, (a @ b).to(C64), rtol=1e-5, atol=1e-5)


def test_exported_program_with_dynamic_batch() -> None:
    class Mix(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(_randn(6, 4, seed=2), requires_grad=False)

        def forward(self, z: torch.Tensor) -> torch.Tensor:
            return z @ self.w

    z = _randn(3, 5, 6)
    ep = torch.export.export(Mix(), (z,), dynamic_shapes={"z": {0: torch.export.Dim("b")}})
    low = realify.lower(ep)
    z7 = _randn(7, 5, 6, seed=3)
    got = torch.view_as_complex(low.module()(torch.view_as_real(z7)))
    torch.testing.assert_close(got, Mix()(z7), rtol=2e-6, atol=2e-6)


ACCUMULATING: dict[str, tuple[Callable[..., torch.Tensor], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "complex_linear": (
        lambda x, w, b: torch.nn.functional.linear(x, w, b),
        lambda: (_randn(5, 6), _randn(3, 6, seed=1), _randn(3, seed=2)),
    ),
    "addmm_scaled": (
        lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2 - 1j),
        lambda: (_randn(4, 3), _randn(4, 6, seed=1), _randn(6, 3, seed=2)),
    ),
}


@pytest.mark.parametrize("name", sorted(ACCUMULATING))
def test_accumulating_products_take_one_real_product(name: str) -> None:
    """addmm (a complex nn.Linear with bias): one real product, then beta * self added per part."""
    fn, make = ACCUMULATING[name]
    args = make()
    low = _lowered(fn, args)
    assert len(_products(low)) == 1
    torch.testing.assert_close(_run(low, args), fn(*args), rtol=2e-6, atol=2e-6)
