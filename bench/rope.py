"""Meta's Llama RoPE: eager complex, Inductor on complex, realify+inductor, hand-written real + Inductor, and a copy.

  python bench/rope.py                 # H200 shapes: batch 4, seq 4096, 32/8 heads, head dim 128, bf16 and fp32
  python bench/rope.py --small         # tiny CPU run (CI keeps the script working; no timing assertions)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
from _util import env_info, kernel_count, print_table, time_ms, write_json  # noqa: E402
from realify.models.llama3 import apply_rotary_emb  # noqa: E402


def rope_complex(xq: torch.Tensor, xk: torch.Tensor, freqs_cis: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return apply_rotary_emb(xq, xk, freqs_cis)


def rope_real(
    xq: torch.Tensor, xk: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The same rotation written by hand in real arithmetic (the reference)."""

    def rot(x: torch.Tensor) -> torch.Tensor:
        xf = x.float().reshape(*x.shape[:-1], -1, 2)
        x0, x1 = xf[..., 0], xf[..., 1]
        c, s = cos[None, :, None, :], sin[None, :, None, :]
        return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], dim=-1).flatten(3).type_as(x)

    return rot(xq), rot(xk)


def run(dtype: torch.dtype, args: argparse.Namespace, device: torch.device) -> list[dict[str, Any]]:
    b, s, hq, hk, d = args.batch, args.seq, args.heads, args.kv_heads, args.head_dim
    g = torch.Generator(device="cpu").manual_seed(0)
    xq = torch.randn(b, s, hq, d, generator=g).to(device, dtype)
    xk = torch.randn(b, s, hk, d, generator=g).to(device, dtype)
    angles = torch.randn(s, d // 2, generator=g).to(device)
    freqs = torch.polar(torch.ones_like(angles), angles)
    cos, sin = freqs.real.contiguous(), freqs.imag.contiguous()
    elt = xq.element_size()
    moved = 2 * (xq.numel() + xk.numel()) * elt + freqs.numel() * freqs.element_size()
    copy_src = torch.empty((xq.numel() + xk.numel()) * elt // 2, dtype=torch.float16, device=device)
    copy_dst = torch.empty_like(copy_src)

    torch._dynamo.reset()
    inductor_complex = torch.compile(rope_complex)
    realify_inductor = torch.compile(rope_complex, backend="realify", options={"backend": "inductor"})
    real_inductor = torch.compile(rope_real)
    variants: list[tuple[str, Callable[[], Any], bool]] = [
        ("copy (bandwidth ceiling)", lambda: copy_dst.copy_(copy_src), False),
        ("eager complex", lambda: rope_complex(xq, xk, freqs), False),
        ("inductor on complex", lambda: inductor_complex(xq, xk, freqs), True),
        ("realify+inductor", lambda: realify_inductor(xq, xk, freqs), True),
        ("hand-written real + inductor", lambda: real_inductor(xq, xk, cos, sin), True),
    ]
    ref = rope_complex(xq, xk, freqs)
    results = []
    for name, fn, compiled in variants:
        kernels = kernel_count(fn) if compiled else 0
        if name.startswith(("realify", "inductor", "hand")):
            out = fn()
            err = max(float((o.float() - r.float()).abs().max()) for o, r in zip(out, ref, strict=True))
        else:
            err = 0.0
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
            base = torch.cuda.memory_allocated(device)
        ms = time_ms(fn, device, warmup=args.warmup, iters=args.iters)
        peak = (torch.cuda.max_memory_allocated(device) - base) / 2**20 if device.type == "cuda" else float("nan")
        nbytes = 2 * copy_src.numel() * copy_src.element_size() if name.startswith("copy") else moved
        results.append(
            {
                "dtype": str(dtype).replace("torch.", ""),
                "variant": name,
                "ms": ms,
                "GB/s": nbytes / (ms * 1e-3) / 1e9,
                "kernels": kernels,
                "peak_extra_MiB": peak,
                "max_abs_err": err,
            }
        )
    return results


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true", help="tiny shapes on CPU")
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
        device = torch.device("cpu")
    else:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    rows = []
    for name in args.dtypes.split(","):
        rows += run(getattr(torch, name), args, device)
    print(env_info(device))
    print(f"shape: batch {args.batch}, seq {args.seq}, heads {args.heads}/{args.kv_heads}, head dim {args.head_dim}")
    keys = ["dtype", "variant", "ms", "GB/s", "kernels", "peak_extra_MiB", "max_abs_err"]
    print_table(keys, [[r[k] for k in keys] for r in rows])
    write_json(args.json, {"env": env_info(device), "args": vars(args), "results": rows})


if __name__ == "__main__":
    main()
