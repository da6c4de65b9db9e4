"""Llama 3 1B-like prefill and single-token decode: eager complex, Inductor on complex, realify+inductor.

  python bench/llama.py               # dim 2048, 16 layers, 32/8 heads, seq 2048, batch 1 and 4, bf16, on the GPU
  python bench/llama.py --small       # tiny CPU run (CI keeps the script working; no timing assertions)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))  # realify_examples (zoo, llama3)
from _util import env_info, print_table, time_ms, write_json  # noqa: E402
from realify_examples import llama3  # noqa: E402


def bench_batch(args: argparse.Namespace, bsz: int, device: torch.device, dtype: torch.dtype) -> list[dict[str, Any]]:
    cfg = llama3.ModelArgs(
        dim=args.dim,
        n_layers=args.layers,
        n_heads=args.heads,
        n_kv_heads=args.kv_heads,
        vocab_size=args.vocab,
        multiple_of=256 if not args.small else 16,
        ffn_dim_multiplier=1.5 if not args.small else None,
        max_batch_size=bsz,
        max_seq_len=args.seq + 8,
        use_kv_cache=True,
    )
    model = llama3.build(cfg, seed=0, dtype=dtype, device=device)
    g = torch.Generator().manual_seed(1)
    prompt = torch.randint(0, cfg.vocab_size, (bsz, args.seq), generator=g).to(device)
    step = torch.randint(0, cfg.vocab_size, (bsz, 1), generator=g).to(device)
    rows = []
    variants = {
        "eager complex": model,
        # dynamic=False: prefill and decode each get a static graph, as a serving stack would compile them.
        "inductor on complex": torch.compile(model, dynamic=False),
        "realify+inductor": torch.compile(model, backend="realify", options={"backend": "inductor"}, dynamic=False),
    }
    with torch.no_grad():
        ref_prefill = model(prompt, 0).float()
        ref_decode = model(step, args.seq).float()
        for name, fn in variants.items():
            torch._dynamo.reset()
            out_p = fn(prompt, 0).float()
            out_d = fn(step, args.seq).float()
            err = max(
                float((out_p - ref_prefill).abs().max() / ref_prefill.abs().max()),
                float((out_d - ref_decode).abs().max() / ref_decode.abs().max()),
            )
            prefill_ms = time_ms(lambda f=fn: f(prompt, 0), device, warmup=args.warmup, iters=args.iters)
            decode_ms = time_ms(lambda f=fn: f(step, args.seq), device, warmup=args.warmup, iters=args.iters)
            rows.append(
                {
                    "batch": bsz,
                    "variant": name,
                    "prefill_ms": prefill_ms,
                    "decode_ms": decode_ms,
                    "decode_tok_per_s": bsz / (decode_ms * 1e-3),
                    "max_rel_err": err,
                }
            )
        torch._dynamo.reset()
    del model
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true")
    p.add_argument("--dim", type=int, default=2048)
    p.add_argument("--layers", type=int, default=16)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--vocab", type=int, default=128256)
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--batches", default="1,4")
    p.add_argument("--dtype", default="bfloat16")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--json", default=None)
    args = p.parse_args()
    if args.small:
        args.dim, args.layers, args.heads, args.kv_heads, args.vocab, args.seq = 64, 1, 4, 2, 128, 16
        args.batches, args.dtype, args.warmup, args.iters = "1", "float32", 1, 2
        device = torch.device("cpu")
    else:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtype = getattr(torch, args.dtype)
    rows = []
    for bsz in [int(b) for b in args.batches.split(",")]:
        rows += bench_batch(args, bsz, device, dtype)
    print(env_info(device))
    print(f"config: dim {args.dim}, {args.layers} layers, {args.heads}/{args.kv_heads} heads, seq {args.seq}, {dtype}")
    keys = ["batch", "variant", "prefill_ms", "decode_ms", "decode_tok_per_s", "max_rel_err"]
    print_table(keys, [[r[k] for k in keys] for r in rows])
    write_json(args.json, {"env": env_info(device), "args": vars(args), "results": rows})


if __name__ == "__main__":
    main()
