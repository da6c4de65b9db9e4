"""RoPE prefill in several real formulations and Inductor settings, to find the one Inductor compiles best.

Issue 15 asks realify's emission to reach the hand-written kernel and >= 55% of a copy's bandwidth in bf16. This
script times, for q and k of Llama 3 8B shapes (batch 4, seq 4096, 32/8 heads, head dim 128):
  pairs      the hand-written form: interleaved pairs, torch.stack of the two products (what realify emits)
  swap       x * C + swap_pairs(x) * S with full-width tables C = (cos, cos), S = (-sin, sin) per pair
  dup        x0 * T1 + x1 * T2, x0/x1 broadcast over their pair, T1 = (cos, sin), T2 = (-sin, cos) per pair
  dup_inline dup with T1 and T2 stacked in the graph from contiguous cos and sin
  dup_packed dup with T1 the caller's view_as_real(freqs_cis) (no copy) and T2 its flipped pairs times (-1, 1)
  halves     the pair's parts as two strided views, results written through one stack (pairs with views)
  bitcast    pairs with each bfloat16 pair loaded and stored as one 32-bit word (bit shifts, rounding on the bits)
  words_cast the same words for bfloat16 and float16, split by int16 views and rebuilt with the dtype's casts
each under Inductor's defaults, with coordinate-descent tuning, and with combo kernels (q and k in one kernel),
plus realify+inductor on the complex code and a copy of the same bytes. It also profiles the decode step (RoPE and
the KV-cache write) with the planar table and the packed one, to show where their times differ.

    python bench/rope_forms.py [--dtypes bfloat16,float32] [--json out.json]
    python bench/rope_forms.py --small    # tiny CPU run: every form must match eager complex

--small runs every form in the first dtype; a later dtype runs only the forms whose code depends on the dtype
(bitcast, words_cast) and realify, since the other forms are the same code in any dtype.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch._inductor.compile_fx import compile_fx

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))  # realify_examples (zoo, llama3)
from _util import env_info, kernel_count, print_table, time_ms, write_json  # noqa: E402
from realify_examples.llama3 import apply_rotary_emb  # noqa: E402


def pairs(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    xf = x.float().reshape(*x.shape[:-1], -1, 2)
    x0, x1 = xf[..., 0], xf[..., 1]
    return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).flatten(-2).type_as(x)


def swap(x: torch.Tensor, c2: torch.Tensor, s2: torch.Tensor) -> torch.Tensor:
    xf = x.float()
    swapped = xf.reshape(*x.shape[:-1], -1, 2).flip(-1).flatten(-2)
    return (xf * c2 + swapped * s2).type_as(x)


def dup(x: torch.Tensor, t1: torch.Tensor, t2: torch.Tensor) -> torch.Tensor:
    """x[2j] and x[2j+1] each broadcast over their pair; t1 = (cos, sin), t2 = (-sin, cos) per pair. Every lane
    computes x0 * t1 + x1 * t2 in the complex product's own order (re: x0 c - x1 s, im: x0 s + x1 c), so a fused
    multiply-add contracts it as eager's complex multiply does."""
    xf = x.float().reshape(*x.shape[:-1], -1, 2)
    x0, x1 = xf[..., :1].expand(xf.shape), xf[..., 1:].expand(xf.shape)
    return (x0 * t1 + x1 * t2).flatten(-2).type_as(x)


def dup_inline(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """dup with its tables built in the graph from cos and sin (what a table passed per call would give)."""
    return dup(x, torch.stack([cos, sin], -1), torch.stack([-sin, cos], -1))


def dup_packed(x: torch.Tensor, f: torch.Tensor, sign: torch.Tensor) -> torch.Tensor:
    """dup reading the caller's view_as_real(freqs_cis) as T1 with no copy: T2 = (-sin, cos) is T1 with its pair
    flipped and the first entry negated (sign = (-1, 1), an exact multiply)."""
    return dup(x, f, f.flip(-1) * sign)


def halves(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x0, x1 = x[..., 0::2].float(), x[..., 1::2].float()
    return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).flatten(-2).type_as(x)


def bitcast(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """pairs for bfloat16 with each pair read and written as one 32-bit word: x0 and x1 are the word's halves moved
    into float32's top bits (exact), and the results go back with round-to-nearest-even done on the bits (NaN kept
    a quiet NaN), as the float32 -> bfloat16 cast does. Other dtypes take pairs."""
    if x.dtype != torch.bfloat16:
        return pairs(x, cos, sin)
    w = x.view(torch.int32)
    high = torch.tensor(-65536, dtype=torch.int32, device=x.device)  # 0xffff0000
    x0 = (w << 16).view(torch.float32)
    x1 = (w & high).view(torch.float32)
    re, im = x0 * cos - x1 * sin, x0 * sin + x1 * cos

    def rounded(v: torch.Tensor) -> torch.Tensor:  # bfloat16 bits in the top half
        b = v.view(torch.int32)
        r = (b + 0x7FFF + ((b >> 16) & 1)) & high
        return torch.where(torch.isnan(v), torch.tensor(0x7FC00000, dtype=torch.int32, device=x.device), r)

    word = ((rounded(re) >> 16) & 0xFFFF) | rounded(im)
    return word.view(torch.bfloat16)


def words_cast(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """bitcast for any 16-bit float (bfloat16 and float16): each pair one int32 word, split by int16 views and
    rebuilt with the dtype's own casts (round to nearest even in hardware) instead of bit arithmetic. float32 takes
    pairs."""
    if x.element_size() != 2:
        return pairs(x, cos, sin)
    dt, w = x.dtype, x.view(torch.int32)
    x0 = w.to(torch.int16).view(dt).float()  # the low half: the pair's first element
    x1 = (w >> 16).to(torch.int16).view(dt).float()
    re, im = x0 * cos - x1 * sin, x0 * sin + x1 * cos
    lo = re.to(dt).view(torch.int16).to(torch.int32) & 0xFFFF
    hi = im.to(dt).view(torch.int16).to(torch.int32) << 16
    return (lo | hi).view(dt)


def tables(f: torch.Tensor) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    cos, sin = f.real.contiguous(), f.imag.contiguous()
    c2 = torch.stack([cos, cos], -1).flatten(-2)[None, :, None, :].contiguous()
    s2 = torch.stack([-sin, sin], -1).flatten(-2)[None, :, None, :].contiguous()
    t1 = torch.stack([cos, sin], -1)[None, :, None].contiguous()
    t2 = torch.stack([-sin, cos], -1)[None, :, None].contiguous()
    return {"pairs": (cos[None, :, None, :], sin[None, :, None, :]), "swap": (c2, s2), "dup": (t1, t2),
            "dup_inline": (cos[None, :, None, :], sin[None, :, None, :]),
            "dup_packed": (torch.view_as_real(f)[None, :, None], torch.tensor([-1.0, 1.0], device=f.device)),
            "halves": (cos[None, :, None, :], sin[None, :, None, :]),
            "bitcast": (cos[None, :, None, :], sin[None, :, None, :]),
            "words_cast": (cos[None, :, None, :], sin[None, :, None, :])}


FORMS: dict[str, Callable[..., torch.Tensor]] = {"pairs": pairs, "swap": swap, "dup": dup, "dup_inline": dup_inline,
                                              "dup_packed": dup_packed, "halves": halves, "bitcast": bitcast,
                                              "words_cast": words_cast}
SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    "coordesc": {"coordinate_descent_tuning": True},
    "combo": {"combo_kernels": True},
}


# The forms that branch on the dtype: --small runs only these (and realify) in a dtype after the first.
DTYPE_FORMS = ("bitcast", "words_cast")


def prefill_rows(
    dtype: torch.dtype, a: argparse.Namespace, dev: torch.device, forms: tuple[str, ...] = tuple(FORMS)
) -> list[dict[str, Any]]:
    b, s, hq, hk, d = a.batch, a.seq, a.heads, a.kv_heads, a.head_dim
    g = torch.Generator().manual_seed(0)
    xq, xk = torch.randn(b, s, hq, d, generator=g).to(dev, dtype), torch.randn(b, s, hk, d, generator=g).to(dev, dtype)
    f = torch.polar(torch.ones(s, d // 2), torch.randn(s, d // 2, generator=g)).to(dev)
    ref = apply_rotary_emb(xq, xk, f)
    moved = 2 * (xq.numel() + xk.numel()) * xq.element_size()
    half = moved // 4
    src, dst = torch.empty(half, dtype=torch.float16, device=dev), torch.empty(half, dtype=torch.float16, device=dev)
    copy_ms = time_ms(lambda: dst.copy_(src), dev, warmup=a.warmup, iters=a.iters)
    rows = [{"dtype": str(dtype)[6:], "form": "copy", "setting": "-", "ms": copy_ms, "copy_%": 100.0, "kernels": 0,
             "max_err": 0.0}]
    tabs = tables(f)
    runs: list[tuple[str, str, Callable[[], Any]]] = []
    for setting, opts in SETTINGS.items():
        if setting not in a.settings.split(","):
            continue
        for name, form in FORMS.items():
            if name not in forms:
                continue
            c, sn = tabs[name]

            def both(q: torch.Tensor, k: torch.Tensor, c: torch.Tensor, sn: torch.Tensor,
                     form: Callable[..., torch.Tensor] = form) -> tuple[torch.Tensor, torch.Tensor]:
                return form(q, c, sn), form(k, c, sn)

            torch._dynamo.reset()
            fn = torch.compile(both, options=opts)
            runs.append((name, setting, lambda fn=fn, c=c, sn=sn: fn(xq, xk, c, sn)))
        torch._dynamo.reset()
        inner = (lambda gm, ins, opts=opts: compile_fx(gm, ins, config_patches=opts)) if opts else "inductor"
        rl = torch.compile(apply_rotary_emb, backend="realify", options={"backend": inner})
        runs.append(("realify", setting, lambda rl=rl: rl(xq, xk, f)))
    for name, setting, fn in runs:
        kernels = kernel_count(fn)
        out = fn()
        err = max(float((o.float() - r.float()).abs().max()) for o, r in zip(out, ref, strict=True))
        ms = time_ms(fn, dev, warmup=a.warmup, iters=a.iters)
        rows.append({"dtype": str(dtype)[6:], "form": name, "setting": setting, "ms": ms,
                     "copy_%": 100 * copy_ms / ms, "kernels": kernels, "max_err": err})
    return rows


def decode_profile(dtype: torch.dtype, a: argparse.Namespace, dev: torch.device) -> list[str]:
    """The kernels and their times of one decode step, planar table against packed."""
    from torch.profiler import ProfilerActivity, profile

    b, s, hq, hk, d = a.batch, a.seq, a.heads, a.kv_heads, a.head_dim
    g = torch.Generator().manual_seed(1)
    xq, xk, xv = (torch.randn(b, 1, h, d, generator=g).to(dev, dtype) for h in (hq, hk, hk))
    f = torch.polar(torch.ones(s, d // 2), torch.randn(s, d // 2, generator=g)).to(dev)
    ck, cv = torch.zeros(b, s, hk, d, device=dev, dtype=dtype), torch.zeros(b, s, hk, d, device=dev, dtype=dtype)

    def step(xq: torch.Tensor, xk: torch.Tensor, xv: torch.Tensor, f: torch.Tensor, ck: torch.Tensor,
             cv: torch.Tensor) -> torch.Tensor:
        pos = ck.shape[1] - 1
        xq, xk = apply_rotary_emb(xq, xk, f[pos : pos + 1])
        ck[:, pos : pos + 1] = xk
        cv[:, pos : pos + 1] = xv
        return xq

    def step_real(xq: torch.Tensor, xk: torch.Tensor, xv: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                  ck: torch.Tensor, cv: torch.Tensor) -> torch.Tensor:
        pos = ck.shape[1] - 1
        c, s = cos[None, pos : pos + 1, None, :], sin[None, pos : pos + 1, None, :]
        ck[:, pos : pos + 1] = pairs(xk, c, s)
        cv[:, pos : pos + 1] = xv
        return pairs(xq, c, s)

    cos, sin = f.real.contiguous(), f.imag.contiguous()
    lines = []
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == "cuda" else [])
    variants: list[tuple[str, Callable[[], Any]]] = []
    for planar in (True, False):
        torch._dynamo.reset()
        fn = torch.compile(step, backend="realify", options={"backend": "inductor", "planar": planar})
        variants.append((f"realify planar={planar}", lambda fn=fn: fn(xq, xk, xv, f, ck, cv)))
    hand = torch.compile(step_real)
    variants.append(("hand-written", lambda: hand(xq, xk, xv, cos, sin, ck, cv)))
    for name, call in variants:
        for _ in range(5):
            call()
        ms = time_ms(call, dev, warmup=a.warmup, iters=a.iters)
        with profile(activities=acts) as prof:
            for _ in range(10):
                call()
        sort = "cuda_time_total" if dev.type == "cuda" else "cpu_time_total"
        events = prof.key_averages()
        launches = sum(e.count for e in events if "LaunchKernel" in e.key or e.key == "cuLaunchKernelEx") / 10
        lines.append(f"--- decode {str(dtype)[6:]} {name}: {ms:.4f} ms a step, {launches:g} kernel launches a step")
        lines.append(events.table(sort_by=sort, row_limit=16))
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true", help="tiny CPU shapes; dtypes after the first: dtype-specific forms")
    p.add_argument("--device", default=None)
    p.add_argument("--dtypes", default=None, help="default: bfloat16,float32 (float32 with --small)")
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=4096)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--no-decode", action="store_true")
    p.add_argument("--settings", default=",".join(SETTINGS), help="Inductor settings to try (default: all)")
    p.add_argument("--json", default=None)
    a = p.parse_args()
    if a.small:
        a.batch, a.seq, a.heads, a.kv_heads, a.head_dim, a.warmup, a.iters = 1, 16, 4, 2, 8, 1, 1
        a.device, a.dtypes = a.device or "cpu", a.dtypes or "float32"
    a.dtypes = a.dtypes or "bfloat16,float32"
    dev = torch.device(a.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    rows: list[dict[str, Any]] = []
    for k, dt in enumerate(a.dtypes.split(",")):
        rows += prefill_rows(getattr(torch, dt), a, dev, DTYPE_FORMS if a.small and k else tuple(FORMS))
    print(env_info(dev))
    keys = ["dtype", "form", "setting", "ms", "copy_%", "kernels", "max_err"]
    print_table(keys, [[r[k] for k in keys] for r in rows])
    bad = [r for r in rows if r["max_err"] > {"bfloat16": 0.05, "float16": 0.01}.get(r["dtype"], 1e-4)]
    profile_lines = [] if a.no_decode else decode_profile(getattr(torch, a.dtypes.split(",")[0]), a, dev)
    print("\n".join(profile_lines))
    write_json(a.json, {"env": env_info(dev), "args": vars(a), "results": rows, "decode_profile": profile_lines})
    if bad:
        raise SystemExit(f"wrong results: {bad}")


if __name__ == "__main__":
    main()
