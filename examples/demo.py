"""`make demo` (python examples/demo.py): Llama 3 forward on CPU three ways, eager complex, realify+eager,
realify+inductor; then tensor-parallel greedy generation over 2 processes by default (torchrun, gloo) against
single-process eager. Run as a script, so examples/ (realify_examples) is on the path."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from realify.backend import CompileEvent
from realify_examples import llama3

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


TP_EXAMPLE = Path(__file__).resolve().parent / "llama3_tp.py"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_tp(args: argparse.Namespace) -> int:
    """examples/llama3_tp.py under torchrun: TP over `args.tp` CPU processes (gloo); its rank 0 report is shown."""
    cfg = DEFAULT
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={args.tp}"]
    cmd += [f"--master-port={_free_port()}", str(TP_EXAMPLE), "--device=cpu", f"--inner={args.tp_inner}"]
    cmd += [f"--dim={cfg.dim}", f"--n-layers={cfg.n_layers}", f"--n-heads={cfg.n_heads}"]
    cmd += [f"--n-kv-heads={cfg.n_kv_heads}", f"--vocab={cfg.vocab_size}", f"--multiple-of={cfg.multiple_of}"]
    cmd += [f"--max-seq-len={cfg.max_seq_len}", f"--batch={args.batch}", f"--seed={args.seed}"]
    print(
        f"\nTensor parallel, {args.tp} processes on CPU (gloo), greedy decoding with the KV cache, "
        f"realify+{args.tp_inner} vs single-process eager:"
    )
    print(f"  torchrun --nproc-per-node {args.tp} examples/llama3_tp.py --device cpu --inner {args.tp_inner} ...")
    sys.stdout.flush()
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"), PYTHONUNBUFFERED="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        print(f"  {line}", end="", flush=True)
    proc.wait()
    if proc.returncode:
        print(f"  torchrun failed with exit status {proc.returncode}", file=sys.stderr)
    print(f"  (TP={args.tp} run took {time.perf_counter() - t0:.1f} s, process start-up included)")
    return proc.returncode


def _is_complex(node: torch.fx.Node) -> bool:
    val = node.meta.get("val")
    return isinstance(val, torch.Tensor) and val.is_complex()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-tp", action="store_true", help="skip the tensor-parallel run")
    p.add_argument("--tp", type=int, default=2, metavar="N", help="processes for the tensor-parallel run")
    p.add_argument("--tp-inner", choices=["eager", "inductor"], default="eager", help="inner compiler for the TP run")
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    run_single(args)
    if not args.no_tp:
        rc = run_tp(args)
        if rc:
            raise SystemExit(rc)


if __name__ == "__main__":
    main()
