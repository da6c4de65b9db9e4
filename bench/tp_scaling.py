"""Scaling table from examples/llama3_tp.py --bench --json runs at several world sizes.

    python bench/tp_scaling.py tp1.json tp2.json tp4.json tp8.json [--markdown]

For each world size N: realify's and Inductor-on-complex's prefill latency and decode tokens/s, the logit error and
token agreement, and realify's speedup and scaling efficiency against the smallest world size W0 given (normally 1):
speedup = time(W0) / time(N) for prefill and throughput(N) / throughput(W0) for decode; efficiency = speedup * W0 / N.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def load(paths: list[str]) -> list[dict[str, Any]]:
    runs = []
    for p in paths:
        r = json.loads(Path(p).read_text())
        if "bench" not in r:
            raise SystemExit(f"{p}: no timing in it; run examples/llama3_tp.py with --bench N")
        runs.append(r)
    sizes = [r["world_size"] for r in runs]
    if len(set(sizes)) != len(sizes):
        raise SystemExit(f"one run per world size, got world sizes {sizes}")
    return sorted(runs, key=lambda r: r["world_size"])


def rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    base = runs[0]
    w0 = base["world_size"]
    p0, d0 = base["bench"]["realify"]["prefill_ms"], base["bench"]["realify"]["decode_tokens_per_s"]
    out = []
    for r in runs:
        rf, ind = r["bench"]["realify"], r["bench"]["inductor_complex"]
        n = r["world_size"]
        prefill_speedup, decode_speedup = p0 / rf["prefill_ms"], rf["decode_tokens_per_s"] / d0
        out.append(
            {
                "world": n,
                "realify_prefill_ms": rf["prefill_ms"],
                "realify_decode_tok_s": rf["decode_tokens_per_s"],
                "inductor_prefill_ms": ind["prefill_ms"],
                "inductor_decode_tok_s": ind["decode_tokens_per_s"],
                "prefill_speedup": prefill_speedup,
                "prefill_efficiency": prefill_speedup * w0 / n,
                "decode_speedup": decode_speedup,
                "decode_efficiency": decode_speedup * w0 / n,
                "max_rel_error": r["max_rel_error"],
                "tokens_match": r["tokens_match"],
            }
        )
    return out


COLUMNS = [
    ("world", "{}"),
    ("realify_prefill_ms", "{:.2f}"),
    ("inductor_prefill_ms", "{:.2f}"),
    ("realify_decode_tok_s", "{:.1f}"),
    ("inductor_decode_tok_s", "{:.1f}"),
    ("prefill_speedup", "{:.2f}"),
    ("prefill_efficiency", "{:.0%}"),
    ("decode_speedup", "{:.2f}"),
    ("decode_efficiency", "{:.0%}"),
    ("max_rel_error", "{:.1e}"),
    ("tokens_match", "{}"),
]


def render(table: list[dict[str, Any]], markdown: bool) -> str:
    head = [name for name, _ in COLUMNS]
    body = [[fmt.format(row[name]) for name, fmt in COLUMNS] for row in table]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in body])
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in [head, *body])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("json", nargs="+", help="result files of examples/llama3_tp.py --bench N --json PATH")
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args(argv)
    runs = load(args.json)
    inner = sorted({r["inner"] for r in runs})
    print(f"realify's inner compiler: {', '.join(inner)}; config: {runs[0]['config']}")
    print(render(rows(runs), args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
