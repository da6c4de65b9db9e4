"""Issue 14's dense transforms under fft="matmul" when CUDA float32 matmuls may use TF32.

torch.fft (cuFFT) stays float32 whatever the matmul precision; realify's DFT matmuls follow it. This times each
case's plan in float32 ("ieee") and in TF32, and a third form, 3xTF32: every DFT matmul split as
Wb xb + Ws xb + Wb xs (b: the top 11 significant bits, exact in TF32; s: the rest), one GEMM over 3K, which keeps
about float32 accuracy on TF32 tensor cores. GPU times are CUDA-graph replays (bench/_util.graph_time_ms).

    python bench/fft_tf32.py [--json out.json]
    python bench/fft_tf32.py --small     # tiny CPU shapes (CI keeps the script working; TF32 is CUDA's only)

--small runs each form once per case, matmul with TF32 off and 3xTF32 with it on: on the CPU the setting changes
nothing, and each form's other setting would only compile the same graph again.
"""

from __future__ import annotations

import argparse
import copy
import functools
import operator
import sys
from pathlib import Path
from typing import Any

import realify
import torch
from torch.fx.experimental.proxy_tensor import make_fx

sys.path.insert(0, str(Path(__file__).parent))
from _util import env_info, graph_time_ms, kernel_count, print_table, write_json  # noqa: E402

from fft import make_cases, rel_err  # noqa: E402

aten = torch.ops.aten
TOP_BITS = -8192  # int32 mask that clears a float32's low 13 mantissa bits: 11 significant bits remain


def _top(t: torch.Tensor) -> torch.Tensor:
    return (t.view(torch.int32) & TOP_BITS).view(torch.float32)


def split_3xtf32(gm: torch.fx.GraphModule) -> tuple[torch.fx.GraphModule, int]:
    """A copy of gm whose matmuls against a constant are 3xTF32 products; the count of those rewritten."""
    gm = copy.deepcopy(gm)
    graph, count = gm.graph, 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target != aten.matmul.default:
            continue
        a, b = node.args
        left = isinstance(a, torch.fx.Node) and a.op == "get_attr"
        const, x = (a, b) if left else (b, a)
        if not (isinstance(const, torch.fx.Node) and const.op == "get_attr"):
            continue
        w = operator.attrgetter(const.target)(gm)
        wb = _top(w)
        name = f"split3_{count}"
        gm.register_buffer(name, torch.cat([wb, w - wb, wb], dim=1 if left else 0))
        count += 1
        with graph.inserting_before(node):
            wc = graph.get_attr(name)
            words = graph.call_function(aten.view.dtype, (x, torch.int32))
            bits = graph.call_function(aten.bitwise_and.Scalar, (words, TOP_BITS))
            xb = graph.call_function(aten.view.dtype, (bits, torch.float32))
            xs = graph.call_function(aten.sub.Tensor, (x, xb))
            xc = graph.call_function(aten.cat.default, ([xb, xb, xs], -2 if left else -1))
            new = graph.call_function(aten.matmul.default, (wc, xc) if left else (xc, wc))
        node.replace_all_uses_with(new)
        graph.erase_node(node)
    graph.lint()
    gm.recompile()
    return gm, count


def set_tf32(on: bool) -> None:
    torch.backends.cuda.matmul.fp32_precision = "tf32" if on else "ieee"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true", help="tiny CPU shapes; each form in one TF32 setting")
    p.add_argument("--json")
    a = p.parse_args()
    dev = torch.device("cpu" if a.small or not torch.cuda.is_available() else "cuda")
    before = torch.backends.cuda.matmul.fp32_precision
    rows: list[dict[str, Any]] = []
    try:
        for case in make_cases(dev.type == "cpu"):
            gen = torch.Generator().manual_seed(0)
            dtype = torch.complex64 if case.complex_input else torch.float32
            x = torch.randn(case.shape, dtype=dtype, generator=gen).to(dev)
            ref = case.fn(x)
            real_x = torch.view_as_real(x) if case.complex_input else x
            plain = realify.lower(make_fx(case.fn)(x), fft="matmul")
            split, gemms = split_3xtf32(plain)
            variants = [("cuFFT", None, False), ("matmul", plain, False), ("matmul", plain, True)]
            variants += [("3xTF32", split, True), ("3xTF32", split, False)]
            if a.small:
                variants = [variants[0], variants[1], variants[3]]
            for form, module, tf32 in variants:
                set_tf32(tf32)
                kernels = 0
                if module is None:
                    fn = functools.partial(case.fn, x)
                else:
                    torch._dynamo.reset()
                    compiled = torch.compile(module.to(dev), backend="inductor", dynamic=False)
                    fn = functools.partial(compiled, real_x)
                    kernels = kernel_count(fn)
                out = fn()
                err = rel_err(out if out.is_complex() else torch.view_as_complex(out.contiguous()), ref)
                ms = graph_time_ms(fn, dev)
                rows.append({"case": case.name, "form": form, "tf32": tf32, "graph_ms": ms, "rel_err": err,
                             "kernels": kernels, "split_gemms": gemms if form == "3xTF32" else 0})
    finally:
        torch.backends.cuda.matmul.fp32_precision = before
    base = {r["case"]: r["graph_ms"] for r in rows if r["form"] == "cuFFT"}
    print_table(
        ["case", "form", "TF32", "graph ms", "vs cuFFT", "max rel err", "kernels"],
        [[r["case"], r["form"], "on" if r["tf32"] else "off", r["graph_ms"] if r["graph_ms"] is not None else "-",
          f"{r['graph_ms'] / base[r['case']]:.2f}x" if r["graph_ms"] and base[r["case"]] else "-",
          f"{r['rel_err']:.1e}", r["kernels"]] for r in rows],
    )
    write_json(a.json, {"env": env_info(dev), "args": vars(a), "results": rows})


if __name__ == "__main__":
    main()
