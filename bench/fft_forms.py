"""Dense transforms written by hand as real code in several forms, each compiled by Inductor, next to cuFFT and
realify's matmul plan: which form of a DFT stage does Inductor turn into the fewest, fastest kernels?

Forms (issue 14's dense cases: rfft2 64x64 on the FNO shape, rfft 4096, fft 65536):
- cufft: torch.fft in eager;
- realify: realify's matmul plan under Inductor (GEMM stages, transposes between them);
- reduce-F: radix stages as broadcast multiply + sum over the stage's axis (one Inductor reduction kernel per
  stage, the twiddle in its epilogue, no transposes: each stage writes its digit before the earlier ones, so the
  last writes the spectrum in order). F lists the radices per transformed dim.
- gemm-F: the same stage order with each stage one matmul from the left against its block DFT matrix (the
  transformed axis outermost, so no transposes around the GEMMs), the twiddle and the digit move in one pointwise
  kernel; the batch axis first, or last with "-binner" (one 2-D GEMM per stage instead of a batched one).

    python bench/fft_forms.py [--cases rfft2,rfft,fft] [--profile]
    python bench/fft_forms.py --small      # tiny CPU shapes: every form must match torch.fft (CI)
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from _util import env_info, graph_time_ms, kernel_count, print_table, time_ms, write_json  # noqa: E402
from fft_profile import kernel_table  # noqa: E402

Planar = tuple[torch.Tensor, torch.Tensor | None]


_ROOTS: dict[tuple[int, int, int, int, str], tuple[torch.Tensor, torch.Tensor]] = {}


def roots(rows: int, cols: int, n: int, sign: int, dev: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sign*sin of 2*pi*j*k/n for j < rows, k < cols, in float32 (computed in float64). Cached: an eager
    call before compiling fills the cache, so the compiled form reads them as constants."""
    key = (rows, cols, n, sign, str(dev))
    if key not in _ROOTS:
        _ROOTS[key] = _roots(rows, cols, n, sign, dev)
    return _ROOTS[key]


def _roots(rows: int, cols: int, n: int, sign: int, dev: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    jk = torch.outer(torch.arange(rows, dtype=torch.float64), torch.arange(cols, dtype=torch.float64))
    ang = 2 * math.pi * torch.remainder(jk, n) / n
    return torch.cos(ang).float().to(dev), (sign * torch.sin(ang)).float().to(dev)


def reduce_dft(x: Planar, b: int, n: int, t: int, radices: list[int], sign: int, keep: int = 0) -> Planar:
    """DFT of length n along the middle axis of [b, n, t] planar data (im None: a real signal), by stages of the
    given radices; keep > 0 keeps the first `keep` outputs (a real input's half spectrum). Planar [b, k, t] out."""
    re, im = x
    dev = re.device
    rest, done = n, 1  # the digits still to reduce, and the product of the computed ones
    for s, p in enumerate(radices):
        rest //= p
        last = s == len(radices) - 1
        kk = p // 2 + 1 if (last and keep) else p
        c, sn = roots(p, kk, p, sign, dev)
        c, sn = c.view(p, 1, kk, 1, 1), sn.view(p, 1, kk, 1, 1)
        xr = re.reshape(b, p, rest, 1, done, t)
        yr, yi = (xr * c).sum(1), (xr * sn).sum(1)
        if im is not None:
            xi = im.reshape(b, p, rest, 1, done, t)
            yr, yi = yr - (xi * sn).sum(1), yi + (xi * c).sum(1)
        if not last:  # twiddle w_m^(r k), m = p * rest
            tc, ts = roots(rest, p, p * rest, sign, dev)
            tc, ts = tc.view(rest, p, 1, 1), ts.view(rest, p, 1, 1)
            yr, yi = yr * tc - yi * ts, yr * ts + yi * tc
        done *= kk
        re, im = yr.reshape(b, rest * done, t), yi.reshape(b, rest * done, t)
    if keep:
        re, im = re[:, :keep], im[:, :keep]
    return re, im


def stage_matrix(p: int, kk: int, cin: int, sign: int, dev: torch.device) -> torch.Tensor:
    """[2*kk, cin*p]: rows (c', k), columns (c, j) of the size-p DFT's real block form (cin 1: a real input)."""
    key = (p, kk, cin, sign, "matrix", str(dev))
    if key not in _ROOTS:
        c, s = _roots(kk, p, p, sign, dev)
        w = torch.cat([torch.cat([c, -s], 1), torch.cat([s, c], 1)]) if cin == 2 else torch.cat([c, s])
        _ROOTS[key] = (w.contiguous(), w)
    return _ROOTS[key][0]


def gemm_dft(z: torch.Tensor, radices: list[int], sign: int, keep: int, batch_inner: bool) -> torch.Tensor:
    """DFT of z by GEMM stages with the transformed axis outermost: z is [B, C, n] (batch_inner: [C, n, B]),
    C = 1 for a real signal, 2 for planar (re, im). Each stage is one matmul from the left against its block DFT
    matrix, then the twiddle and the move of the new digit behind the remaining ones in one pointwise kernel.
    Returns [B, keep or n, 2] interleaved."""
    if batch_inner:
        cin, n, b = z.shape
    else:
        b, cin, n = z.shape
    rest, done = n, 1
    for s, p in enumerate(radices):
        rest //= p
        last = s == len(radices) - 1
        kk = p // 2 + 1 if (last and keep) else p
        w = stage_matrix(p, kk, cin, sign, z.device)
        if batch_inner:
            y = (w @ z.reshape(cin * p, rest * done * b)).view(2, kk, rest, done, b)
        else:
            y = (w @ z.reshape(b, cin * p, rest * done)).view(b, 2, kk, rest, done)
        cin = 2
        if not last:
            tc, ts = roots(p, rest, p * rest, sign, z.device)
            shape = (p, rest, 1, 1) if batch_inner else (p, rest, 1)
            tc, ts = tc.view(shape), ts.view(shape)
            yr, yi = (y[0], y[1]) if batch_inner else (y[:, 0], y[:, 1])
            zr, zi = yr * tc - yi * ts, yr * ts + yi * tc
            if batch_inner:
                z = torch.stack([zr, zi]).permute(0, 2, 1, 3, 4).reshape(2, rest * kk * done, b)
            else:
                z = torch.stack([zr, zi], 1).permute(0, 1, 3, 2, 4).reshape(b, 2, rest * kk * done)
        done *= kk
    if batch_inner:
        out = y.reshape(2, done, b).permute(2, 1, 0)
    else:
        out = y.reshape(b, 2, done).transpose(1, 2)
    return out[:, :keep] if keep else out


def rfft_gemm(radices: list[int], batch_inner: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    def f(x: torch.Tensor) -> torch.Tensor:
        b, n = x.shape
        z = x.t().reshape(1, n, b) if batch_inner else x.reshape(b, 1, n)
        return gemm_dft(z, radices, -1, n // 2 + 1, batch_inner).contiguous()

    return f


def fft_gemm(radices: list[int], batch_inner: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    def f(x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        z = x.permute(2, 1, 0) if batch_inner else x.transpose(1, 2)
        return gemm_dft(z, radices, -1, 0, batch_inner).contiguous()

    return f


def rfft_packed_left(n1: int, n2: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """realify's rfft plan (the half-length complex DFT of the even/odd pairs, then the real-FFT packing) with both
    stages from the left: the second reads [.., 2, j2, k1] and writes the half spectrum in order, so the packing
    reads it contiguously (realify's plan runs the second stage from the right and reads it back transposed)."""

    def f(x: torch.Tensor) -> torch.Tensor:
        b, n = x.shape
        h = n // 2
        z = x.view(b, h, 2).transpose(1, 2).reshape(b, 2 * n1, n2)
        y = (stage_matrix(n1, n1, 2, -1, x.device) @ z).view(b, 2, n1, n2)
        tc, ts = roots(n1, n2, h, -1, x.device)
        yr, yi = y[:, 0], y[:, 1]
        y = torch.stack([yr * tc - yi * ts, yr * ts + yi * tc], 1).transpose(2, 3).reshape(b, 2 * n2, n1)
        zz = (stage_matrix(n2, n2, 2, -1, x.device) @ y).view(b, 2, h)
        ze = torch.cat([zz, zz[..., :1]], -1)
        zf = ze.flip(-1)
        ar, ai, br, bi = packing_constants(n, x.device)
        zr, zi, fr, fi = ze[:, 0], ze[:, 1], zf[:, 0], -zf[:, 1]
        out_r = ar * zr - ai * zi + br * fr - bi * fi
        out_i = ar * zi + ai * zr + br * fi + bi * fr
        return torch.stack([out_r, out_i], -1)

    return f


def packing_constants(n: int, dev: torch.device) -> tuple[torch.Tensor, ...]:
    """A = (1 - i w^k)/2, B = (1 + i w^k)/2 for k <= n/2, w = exp(-2 pi i/n): X = A Z + B conj(Z[h-k])."""
    key = (n, 0, 0, 0, "packing", str(dev))
    if key not in _ROOTS:
        c, s = _roots(2, n // 2 + 1, n, 1, dev)  # row 1: cos and sin of 2 pi k/n
        c, s = c[1], s[1]
        _ROOTS[key] = (torch.stack([0.5 - 0.5 * s, -0.5 * c, 0.5 + 0.5 * s, 0.5 * c]), c)
    return tuple(_ROOTS[key][0])


def rfft2_form(radices: tuple[list[int], list[int]]) -> Callable[[torch.Tensor], torch.Tensor]:
    rows, cols = radices

    def f(x: torch.Tensor) -> torch.Tensor:
        *lead, h, w = x.shape
        b = math.prod(lead)
        re, im = reduce_dft((x.reshape(b * h, w, 1), None), b * h, w, 1, cols, -1, keep=w // 2 + 1)
        wk = w // 2 + 1
        re, im = reduce_dft((re.reshape(b, h, wk), im.reshape(b, h, wk)), b, h, wk, rows, -1)
        return torch.stack([re, im], -1).reshape(*lead, h, wk, 2)

    return f


def rfft_form(radices: list[int]) -> Callable[[torch.Tensor], torch.Tensor]:
    def f(x: torch.Tensor) -> torch.Tensor:
        b, n = x.shape
        re, im = reduce_dft((x.reshape(b, n, 1), None), b, n, 1, radices, -1, keep=n // 2 + 1)
        return torch.stack([re, im], -1).reshape(b, n // 2 + 1, 2)

    return f


def fft_form(radices: list[int]) -> Callable[[torch.Tensor], torch.Tensor]:
    def f(x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        re, im = reduce_dft((x[..., 0].reshape(b, n, 1), x[..., 1].reshape(b, n, 1)), b, n, 1, radices, -1)
        return torch.stack([re, im], -1).reshape(b, n, 2)

    return f


class Eager(torch.nn.Module):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.kind == "rfft2":
            return torch.view_as_real(torch.fft.rfft2(x))
        if self.kind == "rfft":
            return torch.view_as_real(torch.fft.rfft(x))
        return torch.view_as_real(torch.fft.fft(torch.view_as_complex(x)))  # fft, fft4k


Form = tuple[str, Callable[[torch.Tensor], torch.Tensor]]


def cases(small: bool) -> dict[str, tuple[tuple[int, ...], list[Form]]]:
    if small:
        return {
            "rfft2": ((2, 3, 16, 16), [("reduce-4x4,4x4", rfft2_form(([4, 4], [4, 4])))]),
            "rfft": (
                (4, 256),
                [
                    ("packed-left-8x16", rfft_packed_left(8, 16)),
                    ("reduce-16x16", rfft_form([16, 16])),
                    ("gemm-4x8x8", rfft_gemm([4, 8, 8], False)),
                    ("gemm-16x16-binner", rfft_gemm([16, 16], True)),
                ],
            ),
            "fft": (
                (2, 512, 2),
                [
                    ("reduce-8x8x8", fft_form([8, 8, 8])),
                    ("gemm-8x8x8", fft_gemm([8, 8, 8], False)),
                    ("gemm-32x16-binner", fft_gemm([32, 16], True)),
                ],
            ),
        }
    return {
        "rfft2": ((32, 64, 64, 64), [("reduce-8x8,8x8", rfft2_form(([8, 8], [8, 8])))]),
        "rfft": (
            (256, 4096),
            [
                ("reduce-8x8x8x8", rfft_form([8, 8, 8, 8])),
                ("packed-left-32x64", rfft_packed_left(32, 64)),
                ("gemm-16x16x16", rfft_gemm([16, 16, 16], False)),
                ("gemm-16x16x16-binner", rfft_gemm([16, 16, 16], True)),
                ("gemm-64x64", rfft_gemm([64, 64], False)),
                ("gemm-64x64-binner", rfft_gemm([64, 64], True)),
            ],
        ),
        "fft4k": ((256, 4096, 2), []),
        "fft": (
            (16, 65536, 2),
            [
                ("reduce-16x16x16x16", fft_form([16, 16, 16, 16])),
                ("gemm-16x16x16x16", fft_gemm([16, 16, 16, 16], False)),
                ("gemm-16x16x16x16-binner", fft_gemm([16, 16, 16, 16], True)),
                ("gemm-64x64x16", fft_gemm([64, 64, 16], False)),
                ("gemm-64x64x16-binner", fft_gemm([64, 64, 16], True)),
            ],
        ),
    }


def compiled(name: str, fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> Callable[..., torch.Tensor]:
    torch._dynamo.reset()
    if name == "cufft":
        return fn
    if name == "realify":
        opts = {"backend": "inductor", "fft": "matmul"}
        return torch.compile(fn, backend="realify", options=opts, fullgraph=True)
    fn(x)  # fills the constant cache
    return torch.compile(fn, fullgraph=True)


def measure(kind: str, name: str, run: Callable[[], torch.Tensor], ref: torch.Tensor, a: argparse.Namespace) -> dict:
    dev = ref.device
    kernels = 0 if name == "cufft" else kernel_count(run)
    err = float((run() - ref).abs().max() / ref.abs().max())
    assert err < 2e-6, f"{kind} {name}: relative error {err}"
    iters = 1 if a.small else a.iters
    launched = time_ms(run, dev, warmup=1 if a.small else 5, iters=iters)
    graph = graph_time_ms(run, dev, iters=iters)
    if a.profile:
        table = kernel_table(run, dev, 1 if a.small else 20)
        print(f"## {kind} {name}: {sum(us for _, us, _ in table):.1f} us per call")
        for key, us, count in table[:12]:
            print(f"  {us:8.1f} us  x{count}  {key[:100]}")
    return {"case": kind, "form": name, "kernels": kernels, "launched_ms": launched, "graph_ms": graph, "rel_err": err}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true")
    p.add_argument("--cases", default="rfft2,rfft,fft4k,fft")
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--json")
    p.add_argument("--profile", action="store_true", help="print each form's kernels (torch.profiler)")
    a = p.parse_args()
    dev = torch.device("cpu" if a.small or not torch.cuda.is_available() else "cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = []
    for kind, (shape, forms) in cases(a.small).items():
        if kind not in a.cases.split(","):
            continue
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(0)).to(dev)
        eager = Eager(kind)
        with torch.no_grad():
            ref = eager(x)
            for name, fn in [("cufft", eager), ("realify", eager), *forms]:
                run = compiled(name, fn, x)
                rows.append(measure(kind, name, lambda run=run, x=x: run(x), ref, a))
    table = [[r["case"], r["form"], r["kernels"], r["launched_ms"], r["graph_ms"] or "-", r["rel_err"]] for r in rows]
    print_table(["case", "form", "kernels", "launched ms", "graph ms", "rel err"], table)
    write_json(a.json, {"env": env_info(dev), "results": rows})


if __name__ == "__main__":
    main()
