"""Training through the backend: complex models (complex Parameters, conj, FFTs with a complex filter, RoPE, complex
Python scalars) take two SGD steps under torch.compile(backend="realify", fullgraph=True). The loss, every gradient
(complex Parameters, real ones and the input's) and the second step's loss match eager PyTorch on the original complex
model. The backward graphs hold what inference never does: tanh_backward, slice_backward, and _conj of a number."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import nn

TOL = dict(rtol=2e-5, atol=2e-5)


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def cparam(*shape: int, seed: int, scale: float = 0.4) -> nn.Parameter:
    return nn.Parameter(torch.randn(*shape, dtype=torch.complex64, generator=_gen(seed)) * scale)


class ConjMLP(nn.Module):
    """Complex weights, modReLU relu(|z| + b) * z / |z|, and conj() of a matmul."""

    def __init__(self, d: int = 6, h: int = 8) -> None:
        super().__init__()
        self.w1, self.w2 = cparam(d, h, seed=1), cparam(h, d, seed=2)
        self.b = nn.Parameter(torch.full((h,), -0.1))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        u = z @ self.w1
        mag = u.abs()
        u = F.relu(mag + self.b) * (u / mag)
        return (u @ self.w2).conj()


class ComplexLinear(nn.Module):
    """nn.Linear with complex weights and biases, as complex-valued network packages build them."""

    def __init__(self, d: int = 6, h: int = 8) -> None:
        super().__init__()
        torch.manual_seed(3)
        self.l1 = nn.Linear(d, h, dtype=torch.complex64)
        self.l2 = nn.Linear(h, d, dtype=torch.complex64)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.l2(torch.tanh(self.l1(z)))


class FFTFilter(nn.Module):
    """A learned complex filter on the rfft spectrum of a real signal."""

    def __init__(self, channels: int = 3, n: int = 16) -> None:
        super().__init__()
        self.filt = cparam(channels, n // 2 + 1, seed=4, scale=1.0)
        self.gain = nn.Parameter(torch.ones(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        spec = torch.fft.rfft(x, dim=-1) * self.filt
        return torch.fft.irfft(spec, n=x.shape[-1], dim=-1) * self.gain[:, None]


class RopeAttention(nn.Module):
    """Llama-style attention: real projections, RoPE through view_as_complex and a complex freqs_cis buffer."""

    def __init__(self, dim: int = 16, heads: int = 2, seq: int = 6) -> None:
        super().__init__()
        torch.manual_seed(5)
        self.heads, self.hd = heads, dim // heads
        self.wq, self.wk = nn.Linear(dim, dim, bias=False), nn.Linear(dim, dim, bias=False)
        self.wv, self.wo = nn.Linear(dim, dim, bias=False), nn.Linear(dim, dim, bias=False)
        freqs = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        angles = torch.outer(torch.arange(seq).float(), freqs)
        self.register_buffer("freqs_cis", torch.polar(torch.ones_like(angles), angles))

    def rope(self, x: torch.Tensor) -> torch.Tensor:
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * self.freqs_cis[None, :, None, :]).flatten(3).type_as(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q = self.rope(self.wq(x).view(b, s, self.heads, self.hd)).transpose(1, 2)
        k = self.rope(self.wk(x).view(b, s, self.heads, self.hd)).transpose(1, 2)
        v = self.wv(x).view(b, s, self.heads, self.hd).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-1, -2) / self.hd**0.5, dim=-1)
        return self.wo((att @ v).transpose(1, 2).reshape(b, s, -1))


class ConjForms(nn.Module):
    """conj_physical, resolve_conj, .conj() of a view, torch.vdot and .mH on complex Parameters."""

    def __init__(self, d: int = 6) -> None:
        super().__init__()
        self.w = cparam(d, d, seed=6)
        self.v = cparam(d, seed=7)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        a = torch.conj_physical(z @ self.w)
        b = (z @ self.w.mH).conj().resolve_conj()
        c = z[:, 1:].conj() * self.v[:-1]
        d = torch.vdot(self.v, z[0])
        return a.sum(0) + b.sum(0) + F.pad(c.sum(0), (0, 1)) + d


class ScalarPhases(nn.Module):
    """Complex Python scalars: the backward graph conjugates each (grad * conj(1j)) as a number, not a tensor."""

    def __init__(self, d: int = 6) -> None:
        super().__init__()
        self.w = cparam(d, d, seed=8)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        u = (z @ self.w) * (0.6 + 0.8j)
        return torch.exp(1j * u.abs()) * u / (1 + 2j) - 0.5j * u.conj()


def abs_loss(out: torch.Tensor) -> torch.Tensor:
    return out.abs().sum()


def real_view_loss(out: torch.Tensor) -> torch.Tensor:
    return torch.view_as_real(out.resolve_conj()).pow(2).sum() if out.is_complex() else out.pow(2).sum()


def cz(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, dtype=torch.complex64, generator=_gen(11))


def rx(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=_gen(12))


CASES: dict[str, tuple[Callable[[], nn.Module], Callable[[], torch.Tensor], Callable[..., torch.Tensor]]] = {
    "conj_mlp_abs": (ConjMLP, lambda: cz(4, 6), abs_loss),
    "conj_mlp_view_as_real": (ConjMLP, lambda: cz(4, 6), real_view_loss),
    "complex_linear": (ComplexLinear, lambda: cz(4, 6), real_view_loss),
    "fft_filter": (FFTFilter, lambda: rx(2, 3, 16), real_view_loss),
    "rope_attention": (RopeAttention, lambda: rx(2, 6, 16), real_view_loss),
    "conj_forms": (ConjForms, lambda: cz(3, 6), abs_loss),
    "scalar_phases": (ScalarPhases, lambda: cz(4, 6), abs_loss),
}


def train_step_matches_eager(name: str, inner: str) -> None:
    make, make_input, loss_fn = CASES[name]
    model = make()
    ref = copy.deepcopy(model)
    compiled = torch.compile(model, backend="realify", fullgraph=True, options={"backend": inner})
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.05)
    for step in range(2):  # the second step runs on the updated Parameters
        x = make_input().requires_grad_()
        x_ref = x.detach().clone().requires_grad_()
        loss, ref_loss = loss_fn(compiled(x)), loss_fn(ref(x_ref))
        torch.testing.assert_close(loss, ref_loss, **TOL, msg=lambda m, s=step: f"{name} step {s} loss: {m}")
        loss.backward()
        ref_loss.backward()
        torch.testing.assert_close(x.grad, x_ref.grad, **TOL)
        grads = dict(ref.named_parameters())
        for pname, p in model.named_parameters():
            assert p.grad is not None, f"{name}: no gradient for {pname}"
            assert p.grad.dtype == p.dtype
            torch.testing.assert_close(p.grad, grads[pname].grad, **TOL, msg=lambda m, k=pname: f"{name} {k}: {m}")
        opt.step()
        ref_opt.step()
        opt.zero_grad()
        ref_opt.zero_grad()


@pytest.mark.parametrize("name", list(CASES))
def test_training_step_matches_eager(name: str) -> None:
    torch._dynamo.reset()
    train_step_matches_eager(name, "eager")


@pytest.mark.parametrize("name", ["conj_mlp_abs", "scalar_phases", "rope_attention"])
def test_training_step_with_inductor(name: str) -> None:
    torch._dynamo.reset()
    train_step_matches_eager(name, "inductor")
