"""Small per-call differences on a noisy host: every variant timed in turn, round after round.

A host whose speed drifts (the H200 machine's moved the same eager call by 2x between runs) makes one median per
variant, taken minutes apart, compare the drift instead of the code. Here each round times `--batch` back-to-back
calls of every variant, in a fresh order, and the table gives each variant's fastest and median round. The question
it answers: what realify's second aot_autograd layer costs per call (`direct` against `two aot layers`, decode),
and what the FFT models cost under each FFT strategy and with the weight embedding hoisted or not, against the
hand-written real code, Inductor and eager.

Cases:
  decode    RoPE on q and k plus the KV-cache write of one token (bench/rope.py's decode, batch 4, 32/8 heads)
  prefill_fp32, prefill_bf16   RoPE on q and k of 4096 tokens (bench/rope.py's prefill; q's result compared)
  log_mel   bench/fft_models.py's log-mel spectrogram (host-bound on the H200)
  fno2d     bench/fft_models.py's FNO spectral layer
  fnet      bench/fft_models.py's FNet block (16x512x768; GPU-bound)

    python bench/interleaved.py [--cases decode,prefill_fp32] [--rounds 200] [--json out.json]
    python bench/interleaved.py --small      # tiny CPU shapes (CI keeps the script working)

--small leaves out two settings sweeps whose code another variant runs: the hand-written code with combo kernels
(the same function under one more Inductor option) and the FFT models' realify with combo kernels off (decode's
"combo kernels off" runs that option).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
import fft_models  # noqa: E402
import rope  # noqa: E402
from _util import env_info, print_table, sync, write_json  # noqa: E402

Variants = dict[str, Callable[[], Any]]


def realify_pair(fn: Callable[..., Any], args: tuple[Any, ...], **opts: Any) -> Variants:
    """realify+inductor with and without the second aot_autograd layer."""
    direct = torch.compile(fn, backend="realify", options={**opts, "direct": True})
    layered = torch.compile(fn, backend="realify", options={**opts, "direct": False})
    return {
        "realify+inductor (direct)": lambda: direct(*args),
        "realify+inductor, two aot layers": lambda: layered(*args),
    }


# Inductor's combo kernels: independent kernels of a graph (RoPE of q, RoPE of k, the v write) as one launch
COMBO = {"combo_kernels": True}
NO_COMBO = {"combo_kernels": False}  # torch's default, which realify's default for inference graphs turns on


def decode_variants(small: bool, dev: torch.device) -> Variants:
    b, s, hq, hk, d = (1, 64, 4, 2, 16) if small else (4, 4096, 32, 8, 128)
    dt = torch.float32 if small else torch.bfloat16
    g = torch.Generator().manual_seed(0)
    xq, xk, xv = (torch.randn(b, 1, h, d, generator=g).to(dev, dt) for h in (hq, hk, hk))
    f = rope.polar(torch.randn(s, d // 2, generator=g)).to(dev)
    ck, cv = torch.zeros(b, s, hk, d, device=dev, dtype=dt), torch.zeros(b, s, hk, d, device=dev, dtype=dt)
    cos, sin = rope.cos_sin(f)
    hand = torch.compile(rope.decode_real)
    hand_combo = torch.compile(rope.decode_real, options=COMBO)
    no_combo = torch.compile(rope.decode_complex, backend="realify", options={"inductor_config": NO_COMBO})
    args = (xq, xk, xv, f, ck, cv)
    return {
        "eager complex": lambda: rope.decode_complex(*args),
        "hand-written real + inductor": lambda: hand(xq, xk, xv, cos, sin, ck, cv),
        "hand-written real + inductor, combo kernels": lambda: hand_combo(xq, xk, xv, cos, sin, ck, cv),
        **realify_pair(rope.decode_complex, args),
        "realify+inductor (direct), combo kernels off": lambda: no_combo(*args),
    }


def prefill_variants(dtype: torch.dtype) -> Callable[[bool, torch.device], Variants]:
    """RoPE on q and k of a whole sequence (bench/rope.py's prefill): GPU-bound, so the rounds compare kernels."""

    def make(small: bool, dev: torch.device) -> Variants:
        b, s, hq, hk, d = (1, 64, 4, 2, 16) if small else (4, 4096, 32, 8, 128)
        g = torch.Generator().manual_seed(0)
        xq, xk = (torch.randn(b, s, h, d, generator=g).to(dev, dtype) for h in (hq, hk))
        f = rope.polar(torch.randn(s, d // 2, generator=g)).to(dev)
        cos, sin = rope.cos_sin(f)
        hand = torch.compile(rope.prefill_real)
        hand_combo = torch.compile(rope.prefill_real, options=COMBO)
        realify = torch.compile(rope.prefill_complex, backend="realify")
        no_combo = torch.compile(rope.prefill_complex, backend="realify", options={"inductor_config": NO_COMBO})
        return {
            "eager complex": lambda: rope.prefill_complex(xq, xk, f)[0],
            "hand-written real + inductor": lambda: hand(xq, xk, cos, sin)[0],
            "hand-written real + inductor, combo kernels": lambda: hand_combo(xq, xk, cos, sin)[0],
            "realify+inductor (direct)": lambda: realify(xq, xk, f)[0],
            "realify+inductor, combo kernels off": lambda: no_combo(xq, xk, f)[0],
        }

    return make


def model_variants(name: str) -> Callable[[bool, torch.device], Variants]:
    def make(small: bool, dev: torch.device) -> Variants:
        model, args = fft_models.MODELS[name](small, dev)
        model = model.to(dev).eval()
        args = tuple(x.to(dev) for x in args)
        plain = torch.compile(model)
        rl = {k: torch.compile(model, backend="realify", options=o) for k, o in MODEL_OPTIONS.items()}
        return {
            "eager complex": lambda: model(*args),
            "inductor on complex": lambda: plain(*args),
            **{k: (lambda f=f: f(*args)) for k, f in rl.items()},
        }

    return make


# realify+inductor on the FFT models: what "auto" picks (native), that without the hoisted weight embedding
# (realify._hoist) or without combo kernels, and the matmul DFTs that TensorRT and the other deployment targets get.
MODEL_OPTIONS: dict[str, dict[str, Any]] = {
    "realify+inductor native": {"fft": "native"},
    "realify+inductor native, hoist off": {"fft": "native", "hoist": False},
    "realify+inductor matmul": {"fft": "matmul"},
    "realify+inductor native, combo kernels off": {"fft": "native", "inductor_config": NO_COMBO},
}

# Not compiled with --small: each repeats, under one more setting, code another variant runs (see the docstring).
SMALL_SKIP = ("hand-written real + inductor, combo kernels", "realify+inductor native, combo kernels off")

CASES: dict[str, Callable[[bool, torch.device], Variants]] = {
    "decode": decode_variants,
    "prefill_fp32": prefill_variants(torch.float32),
    "prefill_bf16": prefill_variants(torch.bfloat16),
    "log_mel": model_variants("log_mel"),
    "fno2d": model_variants("fno2d"),
    "fnet": model_variants("fnet"),
}


def max_rel_err(got: Any, want: Any) -> float:
    return float((got.float() - want.float()).abs().max() / want.float().abs().max().clamp_min(1e-30))


def interleaved(variants: Variants, dev: torch.device, rounds: int, batch: int) -> dict[str, list[float]]:
    """Per variant, the ms of one call in each round (a round: `batch` calls of every variant, shuffled order)."""
    for fn in variants.values():  # compile and warm up
        for _ in range(3):
            fn()
    sync(dev)
    order, samples = list(variants), {k: [] for k in variants}
    rng = random.Random(0)
    for _ in range(rounds):
        rng.shuffle(order)
        for k in order:
            fn = variants[k]
            sync(dev)
            t0 = time.perf_counter()
            for _ in range(batch):
                fn()
            sync(dev)
            samples[k].append((time.perf_counter() - t0) * 1e3 / batch)
    return samples


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", default="decode,prefill_fp32,prefill_bf16,log_mel,fno2d")
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--batch", type=int, default=10)
    p.add_argument("--small", action="store_true", help="tiny CPU shapes, fewer rounds, two settings sweeps left out")
    p.add_argument("--json")
    a = p.parse_args()
    dev = torch.device("cuda" if torch.cuda.is_available() and not a.small else "cpu")
    if a.small:
        a.rounds, a.batch = min(a.rounds, 5), min(a.batch, 2)
    rows = []
    with torch.no_grad():
        for case in a.cases.split(","):
            torch._dynamo.reset()
            variants = CASES[case](a.small, dev)
            if a.small:  # torch.compile is lazy: a variant left out is never compiled
                variants = {k: fn for k, fn in variants.items() if k not in SMALL_SKIP}
            want = variants["eager complex"]()
            errs = {k: max_rel_err(fn(), want) for k, fn in variants.items()}
            samples = interleaved(variants, dev, a.rounds, a.batch)
            for variant, ms in samples.items():
                rows.append(
                    {
                        "case": case,
                        "variant": variant,
                        "min_ms": min(ms),
                        "median_ms": statistics.median(ms),
                        "max_rel_err": errs[variant],
                    }
                )
    print_table(
        ["case", "variant", "min ms", "median ms", "rel err"],
        [
            [r["case"], r["variant"], f"{r['min_ms']:.4f}", f"{r['median_ms']:.4f}", f"{r['max_rel_err']:.1e}"]
            for r in rows
        ],
    )
    write_json(a.json, {"env": env_info(dev), "args": vars(a), "results": rows})


if __name__ == "__main__":
    main()
