"""`make demo`: Llama 3 forward on CPU three ways, eager complex, realify+eager, realify+inductor."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import torch

from .backend import CompileEvent
from .models import llama3

DEFAULT = llama3.ModelArgs(
    dim=256, n_layers=4, n_heads=8, n_kv_heads=4, vocab_size=512, multiple_of=64, max_seq_len=128, rope_theta=500000.0
)


def _timed(fn: Callable[[], torch.Tensor], repeats: int = 3) -> tuple[torch.Tensor, float, float]:
    """(result, first-call seconds, best steady-state seconds)."""
    t0 = time.perf_counter()
    out = fn()
    first = time.perf_counter() - t0
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return out, first, best


def run_single(args: argparse.Namespace) -> None:
    cfg = DEFAULT
    print(
        f"Llama 3 (Meta architecture, random weights, seed {args.seed}): dim {cfg.dim}, {cfg.n_layers} layers, "
        f"{cfg.n_heads}/{cfg.n_kv_heads} heads, vocab {cfg.vocab_size}; batch {args.batch}, seq {args.seq}"
    )
    model = llama3.build(cfg, seed=args.seed)
    tokens = torch.randint(0, cfg.vocab_size, (args.batch, args.seq), generator=torch.Generator().manual_seed(1))
    rows: list[tuple[str, float, float, float, float]] = []
    with torch.no_grad():
        ref, first, best = _timed(lambda: model(tokens))
        rows.append(("eager complex", first, best, 0.0, 0.0))
        for inner in ("eager", "inductor"):
            torch._dynamo.reset()
            events: list[CompileEvent] = []
            compiled: Any = torch.compile(
                model, backend="realify", fullgraph=True, options={"backend": inner, "on_lowered": events.append}
            )
            out, first, best = _timed(lambda c=compiled: c(tokens))
            abs_err = float((out - ref).abs().max())
            rel_err = abs_err / float(ref.abs().max())
            rows.append((f"realify+{inner}", first, best, abs_err, rel_err))
            if inner == "eager":
                rep = events[0].report
                print("\nDetection (C core) on the aot_autograd forward graph:")
                print(f"  complex values found: {rep.complex_values} in {rep.subgraphs} complex subgraph(s)")
                print(f"  complex graph inputs: {rep.complex_input_names}  (freqs_cis lifted by aot_autograd)")
                print(f"  complex outputs: {rep.complex_output_indices or 'none'}")
                print(
                    f"  lowered to real [...,2]: inputs {[(b.name, str(b.real_dtype)) for b in rep.signature.inputs]}"
                )
                print(f"  nodes before -> after lowering: {rep.nodes_before} -> {rep.nodes_after}")
                left = [n for n in events[0].graph_after.graph.nodes if _is_complex(n)]
                print(f"  complex values left after lowering: {len(left)}")
            print(
                f"  realify+{inner}: graphs compiled = {len(events)} (single graph: {len(events) == 1}, fullgraph=True)"
            )
    print("\n  way                  first call (s)  steady (ms)   max abs err   max rel err")
    for name, first, best, a, r in rows:
        print(f"  {name:<20} {first:>14.3f}  {best * 1e3:>11.2f}   {a:>11.3e}   {r:>11.3e}")


def _is_complex(node: torch.fx.Node) -> bool:
    val = node.meta.get("val")
    return isinstance(val, torch.Tensor) and val.is_complex()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    run_single(args)


if __name__ == "__main__":
    main()
