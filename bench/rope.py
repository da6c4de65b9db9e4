"""RoPE in four cases, each as eager complex, Inductor on complex, realify+inductor, hand-written real + Inductor,
and a copy of the same bytes (the bandwidth ceiling; copy_% = GB/s of a row / GB/s of that copy).

  prefill   Meta's Llama RoPE on q and k (batch 4, seq 4096, 32/8 heads, head dim 128)
  decode    one token at position seq-1: rotate q and k, write k and v into the KV cache
  axial2d   2-D axial RoPE (vision): a 64x64 grid, half the pairs rotate by row, half by column
  yarn      YaRN: frequencies ramp-interpolated, angles computed in the graph from positions, cos/sin scaled

  python bench/rope.py                        # H200 shapes, bf16 and fp32, on CUDA when available
  python bench/rope.py --small                # tiny CPU run (CI keeps the script working; no timing assertions)
  python bench/rope.py --device cpu --cases prefill,decode --dtypes float32
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))  # realify_examples (zoo, llama3)
from _util import env_info, kernel_count, print_table, time_ms, write_json  # noqa: E402
from realify_examples.llama3 import apply_rotary_emb  # noqa: E402

Tensors = tuple[torch.Tensor, ...]


def rot_real(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate interleaved pairs of x's last dim in real arithmetic; cos/sin broadcast against x[..., ::2]."""
    xf = x.float().reshape(*x.shape[:-1], -1, 2)
    x0, x1 = xf[..., 0], xf[..., 1]
    return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).flatten(-2).type_as(x)


def rot_complex(x: torch.Tensor, f: torch.Tensor) -> torch.Tensor:
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * f).flatten(-2).type_as(x)


# ---- prefill: Meta's apply_rotary_emb ------------------------------------------------------------------------


def prefill_complex(xq: torch.Tensor, xk: torch.Tensor, freqs_cis: torch.Tensor) -> Tensors:
    return apply_rotary_emb(xq, xk, freqs_cis)


def prefill_real(xq: torch.Tensor, xk: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> Tensors:
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    return rot_real(xq, c, s), rot_real(xk, c, s)


# ---- decode: one token, RoPE plus the KV-cache write ---------------------------------------------------------


def decode_complex(
    xq: torch.Tensor, xk: torch.Tensor, xv: torch.Tensor, freqs_cis: torch.Tensor, ck: torch.Tensor, cv: torch.Tensor
) -> torch.Tensor:
    pos = ck.shape[1] - 1
    xq, xk = apply_rotary_emb(xq, xk, freqs_cis[pos : pos + 1])
    ck[:, pos : pos + 1] = xk
    cv[:, pos : pos + 1] = xv
    return xq


def decode_real(
    xq: torch.Tensor, xk: torch.Tensor, xv: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, ck: torch.Tensor,
    cv: torch.Tensor,
) -> torch.Tensor:
    pos = ck.shape[1] - 1
    c, s = cos[None, pos : pos + 1, None, :], sin[None, pos : pos + 1, None, :]
    ck[:, pos : pos + 1] = rot_real(xk, c, s)
    cv[:, pos : pos + 1] = xv
    return rot_real(xq, c, s)


# ---- 2-D axial: the table is built in the graph from a row table and a column table ---------------------------


def axial_complex(xq: torch.Tensor, xk: torch.Tensor, fh: torch.Tensor, fw: torch.Tensor) -> Tensors:
    h, w = fh.shape[0], fw.shape[0]
    table = torch.cat([fh[:, None, :].expand(h, w, -1), fw[None, :, :].expand(h, w, -1)], dim=-1)
    f = table.reshape(1, h * w, 1, -1)
    return rot_complex(xq, f), rot_complex(xk, f)


def axial_real(xq: torch.Tensor, xk: torch.Tensor, ch: Tensors, cw: Tensors) -> Tensors:
    (cos_h, sin_h), (cos_w, sin_w) = ch, cw
    h, w = cos_h.shape[0], cos_w.shape[0]

    def grid(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.cat([a[:, None, :].expand(h, w, -1), b[None, :, :].expand(h, w, -1)], -1).reshape(1, h * w, 1, -1)

    c, s = grid(cos_h, cos_w), grid(sin_h, sin_w)
    return rot_real(xq, c, s), rot_real(xk, c, s)


# ---- YaRN: angles from positions and ramp-interpolated frequencies, magnitude mscale --------------------------


def yarn_inv_freq(dim: int, theta: float = 10000.0, factor: float = 8.0, orig_ctx: int = 4096) -> torch.Tensor:
    """YaRN's frequencies: interpolated (divided by factor) below the ramp, kept above it, blended between."""
    pos_freqs = theta ** (torch.arange(0, dim, 2).float() / dim)
    extra, inter = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)

    def dim_of(rotations: float) -> float:
        return (dim * math.log(orig_ctx / (rotations * 2 * math.pi))) / (2 * math.log(theta))

    low, high = max(math.floor(dim_of(32)), 0), min(math.ceil(dim_of(1)), dim - 1)
    ramp = ((torch.arange(dim // 2).float() - low) / max(high - low, 1e-3)).clamp(0, 1)
    return inter * ramp + extra * (1 - ramp)


def yarn_mscale(factor: float = 8.0) -> float:
    return 0.1 * math.log(factor) + 1.0


def yarn_complex(xq: torch.Tensor, xk: torch.Tensor, pos: torch.Tensor, inv_freq: torch.Tensor) -> Tensors:
    angles = torch.outer(pos, inv_freq)
    f = torch.polar(torch.full_like(angles, yarn_mscale()), angles)[None, :, None, :]
    return rot_complex(xq, f), rot_complex(xk, f)


def yarn_real(xq: torch.Tensor, xk: torch.Tensor, pos: torch.Tensor, inv_freq: torch.Tensor) -> Tensors:
    angles = torch.outer(pos, inv_freq)[None, :, None, :]
    c, s = angles.cos() * yarn_mscale(), angles.sin() * yarn_mscale()
    return rot_real(xq, c, s), rot_real(xk, c, s)


# ---- the runs ---------------------------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    fn_complex: Callable[..., Any]
    fn_real: Callable[..., Any]
    args_complex: tuple[Any, ...]
    args_real: tuple[Any, ...]
    moved: int  # bytes a perfect kernel reads and writes
    reset: Callable[[], None] = lambda: None  # restores state a call mutates (the KV cache)


def polar(angles: torch.Tensor) -> torch.Tensor:
    return torch.polar(torch.ones_like(angles), angles)


def cos_sin(f: torch.Tensor) -> Tensors:
    return f.real.contiguous(), f.imag.contiguous()


def make_cases(dtype: torch.dtype, a: argparse.Namespace, dev: torch.device, names: list[str]) -> list[Case]:
    b, s, hq, hk, d = a.batch, a.seq, a.heads, a.kv_heads, a.head_dim
    g = torch.Generator(device="cpu").manual_seed(0)

    def randn(*shape: int, dt: torch.dtype = dtype) -> torch.Tensor:
        return torch.randn(*shape, generator=g).to(dev, dt)

    elt = torch.empty((), dtype=dtype).element_size()
    qk = (b * s * hq * d + b * s * hk * d) * elt
    cases = []
    if "prefill" in names:
        xq, xk, f = randn(b, s, hq, d), randn(b, s, hk, d), polar(randn(s, d // 2, dt=torch.float32))
        cases.append(Case("prefill", prefill_complex, prefill_real, (xq, xk, f), (xq, xk, *cos_sin(f)),
                          2 * qk + f.numel() * 8))
    if "decode" in names:
        xq, xk, xv = randn(b, 1, hq, d), randn(b, 1, hk, d), randn(b, 1, hk, d)
        f = polar(randn(s, d // 2, dt=torch.float32))
        ck, cv = torch.zeros(b, s, hk, d, device=dev, dtype=dtype), torch.zeros(b, s, hk, d, device=dev, dtype=dtype)
        one = (b * hq * d + 2 * b * hk * d) * elt  # q, k, v of one token

        def reset(ck: torch.Tensor = ck, cv: torch.Tensor = cv) -> None:
            ck.zero_()
            cv.zero_()

        cases.append(Case("decode", decode_complex, decode_real, (xq, xk, xv, f, ck, cv),
                          (xq, xk, xv, *cos_sin(f), ck, cv), 2 * one + d * 4, reset))
    if "axial2d" in names:
        side = max(int(math.isqrt(s)), 1)
        xq, xk = randn(b, side * side, hq, d), randn(b, side * side, hk, d)
        fh, fw = polar(randn(side, d // 4, dt=torch.float32)), polar(randn(side, d // 4, dt=torch.float32))
        q2 = (b * side * side * (hq + hk) * d) * elt
        cases.append(Case("axial2d", axial_complex, axial_real, (xq, xk, fh, fw), (xq, xk, cos_sin(fh), cos_sin(fw)),
                          2 * q2 + 2 * side * d // 4 * 8))
    if "yarn" in names:
        xq, xk = randn(b, s, hq, d), randn(b, s, hk, d)
        pos, inv = torch.arange(s, dtype=torch.float32, device=dev), yarn_inv_freq(d).to(dev)
        cases.append(Case("yarn", yarn_complex, yarn_real, (xq, xk, pos, inv), (xq, xk, pos, inv), 2 * qk + s * 4))
    return cases


def max_err(out: Any, ref: Any) -> float:
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    return max(float((o.float() - r.float()).abs().max()) for o, r in zip(outs, refs, strict=True))


def run_case(case: Case, dtype: torch.dtype, a: argparse.Namespace, dev: torch.device) -> list[dict[str, Any]]:
    half = max(case.moved // 4, 1)  # the copy reads and writes case.moved bytes in all (float16 elements)
    src, dst = torch.empty(half, dtype=torch.float16, device=dev), torch.empty(half, dtype=torch.float16, device=dev)
    torch._dynamo.reset()
    opts = {"backend": "inductor"}
    variants: list[tuple[str, Callable[[], Any], bool]] = [
        ("copy (bandwidth ceiling)", lambda: dst.copy_(src), False),
        ("eager complex", lambda: case.fn_complex(*case.args_complex), False),
    ]
    if not a.small or case.name == "prefill":
        ind = torch.compile(case.fn_complex)
        variants.append(("inductor on complex", lambda: ind(*case.args_complex), True))
    rl = torch.compile(case.fn_complex, backend="realify", options=opts)
    variants.append(("realify+inductor", lambda: rl(*case.args_complex), True))
    if not a.small:  # the layout realify used before planar tables, and the path before direct Inductor
        rp = torch.compile(case.fn_complex, backend="realify", options={**opts, "planar": False})
        variants.append(("realify+inductor, packed table", lambda: rp(*case.args_complex), True))
        r2 = torch.compile(case.fn_complex, backend="realify", options={**opts, "direct": False})
        variants.append(("realify+inductor, two aot layers", lambda: r2(*case.args_complex), True))
    hand = torch.compile(case.fn_real)
    variants.append(("hand-written real + inductor", lambda: hand(*case.args_real), True))

    case.reset()
    ref = case.fn_complex(*case.args_complex)
    ref = tuple(r.clone() for r in ref) if isinstance(ref, tuple) else ref.clone()
    cache_ref = [t.clone() for t in case.args_complex[-2:]] if case.name == "decode" else []
    rows, copy_gbs = [], float("nan")
    for name, fn, compiled in variants:
        case.reset()
        kernels = kernel_count(fn) if compiled else 0
        err = 0.0
        if compiled:
            case.reset()
            err = max_err(fn(), ref)
            args = case.args_real if name.startswith("hand") else case.args_complex
            for got, want in zip((args[-2:] if cache_ref else ()), cache_ref, strict=True):
                err = max(err, max_err(got, want))  # the KV-cache write must match too
        if dev.type == "cuda":
            torch.cuda.reset_peak_memory_stats(dev)
            base = torch.cuda.memory_allocated(dev)
        ms = time_ms(fn, dev, warmup=a.warmup, iters=a.iters)
        peak = (torch.cuda.max_memory_allocated(dev) - base) / 2**20 if dev.type == "cuda" else float("nan")
        gbs = case.moved / (ms * 1e-3) / 1e9
        if name.startswith("copy"):
            copy_gbs = gbs
        rows.append({"case": case.name, "dtype": str(dtype).replace("torch.", ""), "variant": name, "ms": ms,
                     "GB/s": gbs, "copy_%": 100 * gbs / copy_gbs, "kernels": kernels, "peak_extra_MiB": peak,
                     "max_abs_err": err})
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true", help="tiny shapes on CPU, fewer variants")
    p.add_argument("--device", default=None, help="cuda (default when available) or cpu")
    p.add_argument("--cases", default="prefill,decode,axial2d,yarn")
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=4096)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--dtypes", default="bfloat16,float32")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--json", default=None)
    args = p.parse_args()
    if args.small:
        args.batch, args.seq, args.heads, args.kv_heads, args.head_dim = 1, 16, 4, 2, 8
        args.warmup, args.iters, args.dtypes = 1, 3, "float32"
        args.device = args.device or "cpu"
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    names = args.cases.split(",")
    rows = []
    for dt in args.dtypes.split(","):
        for case in make_cases(getattr(torch, dt), args, device, names):
            rows += run_case(case, getattr(torch, dt), args, device)
    print(env_info(device))
    print(f"shape: batch {args.batch}, seq {args.seq}, heads {args.heads}/{args.kv_heads}, head dim {args.head_dim}")
    keys = ["case", "dtype", "variant", "ms", "GB/s", "copy_%", "kernels", "peak_extra_MiB", "max_abs_err"]
    print_table(keys, [[r[k] for k in keys] for r in rows])
    write_json(args.json, {"env": env_info(device), "args": vars(args), "results": rows})


if __name__ == "__main__":
    main()
