"""What the lowering itself costs, on CPU: torch.export vs realify.lower for Llama graphs of growing depth,
and the C core alone on the text IR.

  python bench/lower_cost.py                  # 2, 8, 32 and 80 layers
  python bench/lower_cost.py --small          # 1 and 2 layers (CI keeps the script working)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))  # realify_examples (zoo, llama3)
import realify  # noqa: E402
from _util import print_table, write_json  # noqa: E402
from realify import _core  # noqa: E402
from realify._fx_to_ir import fx_to_ir  # noqa: E402
from realify.lower import module_check_guards_kwargs  # noqa: E402
from realify_examples import llama3  # noqa: E402


def best_of(fn: Any, repeats: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def measure(layers: int, args: argparse.Namespace) -> dict[str, Any]:
    cfg = llama3.ModelArgs(
        dim=args.dim, n_layers=layers, n_heads=8, n_kv_heads=4, vocab_size=1024, multiple_of=64, max_seq_len=64
    )
    model = llama3.build(cfg, seed=0)
    tokens = torch.randint(0, cfg.vocab_size, (1, 32))
    export_s, ep = best_of(lambda: torch.export.export(model, (tokens,)), 1)
    gm = ep.module(**module_check_guards_kwargs())
    lower_s, _ = best_of(lambda: realify.lower(gm), args.repeats)
    text = fx_to_ir(gm).text
    nodes = sum(1 for line in text.splitlines() if " = " in line and not line.lstrip().startswith("const"))
    core_s, _ = best_of(lambda: _core.lower(text), max(args.repeats, 5))
    parse_s, _ = best_of(lambda: _core.roundtrip(text), max(args.repeats, 5))
    return {
        "layers": layers,
        "ir_nodes": nodes,
        "export_s": export_s,
        "lower_s": lower_s,
        "lower/export": lower_s / export_s,
        "core_ms": core_s * 1e3,
        "core_parse_print_ms": parse_s * 1e3,
        "core_nodes_per_s": nodes / core_s,
        "lower_us_per_node": lower_s / nodes * 1e6,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true")
    p.add_argument("--layers", default="2,8,32,80")
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", default=None)
    args = p.parse_args()
    if args.small:
        args.layers, args.dim, args.repeats = "1,2", 64, 1
    rows = [measure(int(n), args) for n in args.layers.split(",")]
    print(f"torch {torch.__version__}, CPU, realify core {_core.version}")
    keys = list(rows[0])
    print_table(keys, [[r[k] for k in keys] for r in rows])
    write_json(args.json, {"torch": torch.__version__, "args": vars(args), "results": rows})


if __name__ == "__main__":
    main()
