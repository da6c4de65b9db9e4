"""A zoo of small real-world complex-valued models, each with deterministic weights and example inputs.

Every entry is the shape of computation a deployer meets in practice (RoPE variants, spectral layers, audio
front ends, complex-valued networks, MRI reconstruction, double-precision phase math), small enough that the
deploy tests can push each one through every deployment compiler within the CI budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from . import llama3

__all__ = ["ZOO", "ZooEntry", "entry", "max_rel_error", "names", "real_inputs"]


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _rope(x: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    """Rotate interleaved pairs of the last dim of x (b, s, h, d) by complex freqs (s, d/2)."""
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    out = torch.view_as_real(xc * freqs[None, :, None, :]).flatten(3)
    return out.type_as(x)


class RopeBuffer(nn.Module):
    """Llama 3 attention input projection + RoPE, freqs_cis a complex buffer (Meta's layout)."""

    def __init__(self, dim: int = 32, heads: int = 4, seq: int = 8) -> None:
        super().__init__()
        self.heads = heads
        self.wq = nn.Linear(dim, dim, bias=False)
        nn.init.normal_(self.wq.weight, std=0.2, generator=_gen(10))
        self.register_buffer("freqs_cis", llama3.precompute_freqs_cis(dim // heads, seq, 500000.0, True))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q = self.wq(x).view(b, s, self.heads, d // self.heads)
        return _rope(q, self.freqs_cis[:s])


class RopeInput(nn.Module):
    """Llama 3 RoPE with freqs_cis passed in as a complex graph input."""

    def forward(self, x: torch.Tensor, freqs_cis: torch.Tensor) -> torch.Tensor:
        return _rope(x, freqs_cis)


class AxialRope2d(nn.Module):
    """2-D axial RoPE (vision transformers): half the pairs rotate by row position, half by column."""

    def __init__(self, rows: int = 4, cols: int = 4, head_dim: int = 16, theta: float = 100.0) -> None:
        super().__init__()
        quarter = head_dim // 4
        freqs = 1.0 / theta ** (torch.arange(quarter, dtype=torch.float32) / quarter)
        r = torch.outer(torch.arange(rows, dtype=torch.float32), freqs)  # (rows, d/4)
        c = torch.outer(torch.arange(cols, dtype=torch.float32), freqs)  # (cols, d/4)
        angles = torch.cat([r[:, None, :].expand(rows, cols, quarter), c[None, :, :].expand(rows, cols, quarter)], -1)
        self.register_buffer("freqs_cis", torch.polar(torch.ones_like(angles), angles).reshape(rows * cols, -1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (b, rows*cols, h, d)
        return _rope(x, self.freqs_cis)


class YarnRopeBf16(nn.Module):
    """YaRN-scaled RoPE (per-band interpolation ramp and attention temperature) on bfloat16 activations."""

    def __init__(self, head_dim: int = 16, seq: int = 8, scale: float = 4.0, orig_ctx: int = 4) -> None:
        super().__init__()
        half = head_dim // 2
        base = 1.0 / 10000.0 ** (torch.arange(half, dtype=torch.float32) * 2 / head_dim)
        wavelen = 2 * math.pi / base
        ramp = ((orig_ctx / wavelen) - 1.0) / (32.0 - 1.0)
        ramp = ramp.clamp(0.0, 1.0)
        freqs = base / scale * (1 - ramp) + base * ramp
        mscale = 0.1 * math.log(scale) + 1.0
        angles = torch.outer(torch.arange(seq, dtype=torch.float32), freqs)
        self.register_buffer("freqs_cis", torch.polar(torch.full_like(angles, mscale), angles))

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x bf16 (b, s, h, d)
        return _rope(x, self.freqs_cis[: x.shape[1]])


class FNOSpectral1d(nn.Module):
    """Fourier neural operator spectral layer: rfft, complex weights on the lowest modes written by slice
    assignment into a complex zeros tensor, irfft."""

    def __init__(self, channels: int = 4, modes: int = 5) -> None:
        super().__init__()
        self.modes = modes
        scale = 1.0 / channels
        w = torch.randn(channels, channels, modes, dtype=torch.complex64, generator=_gen(11))
        self.weight = nn.Parameter(scale * w)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (b, c, n)
        xf = torch.fft.rfft(x)
        out = torch.zeros(x.shape[0], x.shape[1], x.shape[-1] // 2 + 1, dtype=torch.complex64, device=x.device)
        out[:, :, : self.modes] = torch.einsum("bix,iox->box", xf[:, :, : self.modes], self.weight)
        return torch.fft.irfft(out, n=x.shape[-1])


class FNOSpectral2d(nn.Module):
    """A 2-D Fourier layer as the FNO reference code writes it: rfft2, two corner blocks of modes mixed by
    complex weights and written into a zeros spectrum, irfft2."""

    def __init__(self, channels: int = 4, m1: int = 4, m2: int = 5, dtype: torch.dtype = torch.complex64) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.m1, self.m2 = m1, m2
        scale = 1.0 / channels
        self.w1 = nn.Parameter(scale * torch.randn(channels, channels, m1, m2, dtype=dtype, generator=g))
        self.w2 = nn.Parameter(scale * torch.randn(channels, channels, m1, m2, dtype=dtype, generator=g))

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (b, c, h, w)
        b, c, h, w = x.shape
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(b, c, h, w // 2 + 1, dtype=self.w1.dtype, device=x.device)
        out_ft[:, :, : self.m1, : self.m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, : self.m1, : self.m2], self.w1)
        out_ft[:, :, -self.m1 :, : self.m2] = torch.einsum(
            "bixy,ioxy->boxy", x_ft[:, :, -self.m1 :, : self.m2], self.w2
        )
        return torch.fft.irfft2(out_ft, s=(h, w))


class FNet(nn.Module):
    """FNet token mixing: real part of a 2-D FFT over (sequence, hidden), then a residual feed-forward."""

    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        for p in self.ff.parameters():
            nn.init.normal_(p, std=0.2, generator=_gen(12))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x + torch.fft.fft2(x).real)
        return h + self.ff(h)


class LogMel(nn.Module):
    """Log-mel spectrogram: Hann-windowed stft, |X|^2 from abs, mel projection, log."""

    def __init__(self, n_fft: int = 32, hop: int = 8, n_mels: int = 6) -> None:
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        mel = torch.rand(n_mels, n_fft // 2 + 1, generator=_gen(13))
        self.register_buffer("mel", mel / mel.sum(-1, keepdim=True))

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, center=False, return_complex=True)
        power = spec.abs() ** 2
        return torch.log(torch.matmul(self.mel, power) + 1e-6)


class HyenaFFTConv(nn.Module):
    """Hyena's long convolution: implicit filter, zero-padded rfft of input and filter, product, irfft, crop."""

    def __init__(self, channels: int = 4, seq: int = 16) -> None:
        super().__init__()
        self.filter = nn.Parameter(torch.randn(channels, seq, generator=_gen(14)) * 0.3)
        self.bias = nn.Parameter(torch.randn(channels, generator=_gen(15)) * 0.1)

    def forward(self, u: torch.Tensor) -> torch.Tensor:  # u: (b, c, l)
        n = u.shape[-1]
        k_f = torch.fft.rfft(self.filter, n=2 * n) / (2 * n)
        u_f = torch.fft.rfft(u, n=2 * n)
        y = torch.fft.irfft(u_f * k_f, n=2 * n, norm="forward")[..., :n]
        return y + u * self.bias[:, None]


class ComplexMLP(nn.Module):
    """A complex-valued network: complex weights and biases, modReLU on |z|, complex in and out."""

    def __init__(self, d_in: int = 6, d_hidden: int = 8, d_out: int = 4) -> None:
        super().__init__()
        g = _gen(16)
        self.w1 = nn.Parameter(torch.randn(d_hidden, d_in, dtype=torch.complex64, generator=g) / d_in**0.5)
        self.b1 = nn.Parameter(torch.randn(d_hidden, dtype=torch.complex64, generator=g) * 0.1)
        self.w2 = nn.Parameter(torch.randn(d_out, d_hidden, dtype=torch.complex64, generator=g) / d_hidden**0.5)
        self.threshold = nn.Parameter(torch.full((d_hidden,), -0.1))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        h = z @ self.w1.T + self.b1
        mag = h.abs()
        h = F.relu(mag + self.threshold) * (h / (mag + 1e-6))  # modReLU
        return h @ self.w2.T


class MRIRecon(nn.Module):
    """MRI: centred 2-D inverse FFT of masked k-space, a data-consistency step with where, complex in and out."""

    def forward(self, kspace: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        img = torch.fft.fftshift(torch.fft.ifft2(torch.fft.ifftshift(kspace, dim=(-2, -1))), dim=(-2, -1))
        img = img * (img.abs() > 0.01)  # soft background suppression
        k2 = torch.fft.fftshift(torch.fft.fft2(torch.fft.ifftshift(img, dim=(-2, -1))), dim=(-2, -1))
        k2 = torch.where(mask, kspace, k2)
        return torch.fft.fftshift(torch.fft.ifft2(torch.fft.ifftshift(k2, dim=(-2, -1))), dim=(-2, -1))


class PhaseMath128(nn.Module):
    """Interferometric phase in complex128: conjugate product, angle, unit phasor, magnitude."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        cross = a * torch.conj(b)
        phase = torch.angle(cross)
        unit = torch.exp(1j * phase)
        return unit * torch.abs(a), phase


class SteeringVector128(nn.Module):
    """Beamforming in double precision: float64 sensor phases cast to a complex128 steering vector, applied to
    complex128 snapshots; the explicit dtype casts (aten.to) are what torch.export guards with metadata asserts."""

    def forward(self, z: torch.Tensor, phase: torch.Tensor) -> torch.Tensor:
        steer = torch.polar(torch.ones_like(phase), phase).to(torch.complex128)
        beam = (z * steer.conj()).sum(-1)
        return beam.abs().to(torch.float64)


@dataclass(frozen=True)
class ZooEntry:
    name: str
    make: Callable[[], nn.Module]
    inputs: Callable[[], tuple[torch.Tensor, ...]]
    truncate_double: bool = False
    rtol: float = 1e-4  # largest error allowed, relative to the largest |reference| value
    # A known failure of realify.lower today: (exception type, reason). Tests mark it xfail(strict=True).
    known_failure: tuple[type[BaseException], str] | None = None


def _randn(*shape: int, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, generator=_gen(seed), dtype=dtype)


def _freqs_input() -> torch.Tensor:
    return llama3.precompute_freqs_cis(8, 6, 500000.0, True)


def _mri_inputs() -> tuple[torch.Tensor, torch.Tensor]:
    k = _randn(8, 8, seed=26, dtype=torch.complex64)
    mask = torch.zeros(8, 8, dtype=torch.bool)
    mask[:, ::2] = True
    mask[:, 3:5] = True
    return k, mask


ZOO: tuple[ZooEntry, ...] = (
    ZooEntry("llama3_rope_buffer", RopeBuffer, lambda: (_randn(2, 8, 32, seed=20),)),
    ZooEntry("llama3_rope_input", RopeInput, lambda: (_randn(2, 6, 4, 8, seed=21), _freqs_input())),
    ZooEntry("axial_rope_2d", AxialRope2d, lambda: (_randn(2, 16, 2, 16, seed=22),)),
    ZooEntry("yarn_rope_bf16", YarnRopeBf16, lambda: (_randn(2, 8, 2, 16, seed=23).to(torch.bfloat16),), rtol=2e-2),
    ZooEntry(
        "fno_spectral",
        FNOSpectral1d,
        lambda: (_randn(2, 4, 16, seed=24),),
    ),
    ZooEntry("fnet", FNet, lambda: (_randn(2, 8, 16, seed=25),)),
    ZooEntry("log_mel", LogMel, lambda: (_randn(2, 96, seed=27),)),
    ZooEntry("hyena_fft_conv", HyenaFFTConv, lambda: (_randn(2, 4, 16, seed=28),)),
    ZooEntry("complex_mlp", ComplexMLP, lambda: (_randn(3, 6, seed=29, dtype=torch.complex64),)),
    ZooEntry("mri_recon", MRIRecon, _mri_inputs),
    ZooEntry(
        "phase_math_c128",
        PhaseMath128,
        lambda: (_randn(5, seed=30, dtype=torch.complex128), _randn(5, seed=31, dtype=torch.complex128)),
        rtol=1e-10,
    ),
    ZooEntry(
        "phase_math_c128_truncated",
        PhaseMath128,
        lambda: (_randn(5, seed=30, dtype=torch.complex128), _randn(5, seed=31, dtype=torch.complex128)),
        truncate_double=True,
        rtol=1e-5,
    ),
    ZooEntry(
        "steering_c128_truncated",
        SteeringVector128,
        lambda: (_randn(3, 4, seed=32, dtype=torch.complex128), _randn(4, seed=33, dtype=torch.float64)),
        truncate_double=True,
        rtol=1e-5,
    ),
)


def names() -> list[str]:
    return [e.name for e in ZOO]


def entry(name: str) -> ZooEntry:
    for e in ZOO:
        if e.name == name:
            return e
    raise KeyError(f"no zoo model named {name!r}; known: {', '.join(names())}")


def real_inputs(e: ZooEntry, args: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """The arguments a lowered model takes: complex ones as view_as_real, and under truncate_double every float64
    (complex128's parts, real float64 inputs) as float32, as the lowering narrowed them."""
    out = []
    for a in args:
        r = torch.view_as_real(a) if a.is_complex() else a
        out.append(r.float() if e.truncate_double and r.dtype == torch.float64 else r)
    return tuple(out)


def max_rel_error(ref: object, got: object) -> float:
    """Largest |got - ref| over the largest |ref|, across all outputs; complex references compare as
    view_as_real (the lowered model's layout)."""
    refs = ref if isinstance(ref, (tuple, list)) else (ref,)
    gots = got if isinstance(got, (tuple, list)) else (got,)
    if len(refs) != len(gots):
        raise ValueError(f"{len(gots)} outputs, expected {len(refs)}")
    worst = 0.0
    for r, g in zip(refs, gots, strict=True):
        r = torch.view_as_real(r) if r.is_complex() else r
        g = torch.as_tensor(g)
        if tuple(g.shape) != tuple(r.shape):
            raise ValueError(f"output shape {tuple(g.shape)}, expected {tuple(r.shape)}")
        r64, g64 = r.detach().double(), g.detach().double()
        scale = max(r64.abs().max().item(), 1e-30)
        worst = max(worst, (g64 - r64).abs().max().item() / scale)
    return worst
