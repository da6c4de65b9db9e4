"""The FNO layer's channel mixing in several real forms, to find the one Inductor compiles best.

The mixing is a complex product per mode, [B, I] @ [I, O], written into the zero spectrum's two corner blocks.
Forms, each a real function of the rfft output and the weights in view_as_real layout:
  packed   what realify emits today: the input's (re, im) pairs [B, 2I] times the weights' 2x2 real embedding
           [[re, im], [-im, re]] as [2I, 2O], built on every call
  planar   the input's planes stacked as rows [2B, I] times the weights' packed view [I, 2O] (no embedding),
           then re = P[re rows, re cols] - P[im rows, im cols], im = P[re rows, im cols] + P[im rows, re cols]
  reduce   no GEMM: re = sum_i(xr wr - xi wi), im = sum_i(xr wi + xi wr) as one Inductor reduction over the
           channels, in the tensors' own layout (modes innermost), so neither operand is transposed
  eager    the complex model's own code (einsum, zeros, slice writes), in eager
  realify  that code through torch.compile(backend="realify")
All compiled forms write the spectrum with cat and zero pads (realify's block rebuild). GPU time is a CUDA-graph
replay; launched is back-to-back calls from Python.

    python bench/product_forms.py [--json out.json] [--profile]   # --profile: each form's kernels too
    python bench/product_forms.py --small     # tiny CPU shapes: every form must match eager
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent))
from _util import env_info, graph_time_ms, kernel_count, print_table, time_ms, write_json  # noqa: E402
from fft_profile import kernel_table  # noqa: E402


def embedding(w: torch.Tensor) -> torch.Tensor:
    """[modes, I, O, 2] packed weights -> [modes, 2I, 2O] real embedding."""
    re, im = w[..., 0], w[..., 1]
    row_re, row_im = torch.stack([re, im], -1), torch.stack([-im, re], -1)  # [modes, I, O, 2]
    return torch.stack([row_re, row_im], -3).flatten(-2).flatten(-3, -2)


def mix_packed(blk: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """blk [B, I, m1, m2, 2], w [I, O, m1, m2, 2] -> [B, O, m1, m2, 2]."""
    b, i, m1, m2, _ = blk.shape
    lhs = blk.permute(2, 3, 0, 1, 4).reshape(m1 * m2, b, 2 * i)
    rhs = embedding(w.permute(2, 3, 0, 1, 4).reshape(m1 * m2, i, -1, 2))
    out = torch.bmm(lhs, rhs).reshape(m1, m2, b, -1, 2)
    return out.permute(2, 3, 0, 1, 4)


def mix_planar(blk: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    b, i, m1, m2, _ = blk.shape
    lhs = blk.permute(2, 3, 4, 0, 1).reshape(m1 * m2, 2 * b, i)
    rhs = w.permute(2, 3, 0, 1, 4).reshape(m1 * m2, i, -1)
    p = torch.bmm(lhs, rhs).reshape(m1, m2, 2, b, -1, 2)
    re = p[:, :, 0, :, :, 0] - p[:, :, 1, :, :, 1]
    im = p[:, :, 0, :, :, 1] + p[:, :, 1, :, :, 0]
    return torch.stack([re, im], -1).permute(2, 3, 0, 1, 4)


def mix_reduce(blk: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    xr, xi = blk[..., 0].unsqueeze(2), blk[..., 1].unsqueeze(2)  # [B, I, 1, m1, m2]
    wr, wi = w[..., 0].unsqueeze(0), w[..., 1].unsqueeze(0)  # [1, I, O, m1, m2]
    return torch.stack([(xr * wr - xi * wi).sum(1), (xr * wi + xi * wr).sum(1)], -1)


def real_layer(mix, m: int):  # noqa: ANN001, ANN202
    def layer(x: torch.Tensor, w1: torch.Tensor, w2: torch.Tensor) -> torch.Tensor:
        h, wd = x.shape[-2:]
        xf = torch.view_as_real(torch.fft.rfft2(x))
        top, bottom = mix(xf[:, :, :m, :m], w1), mix(xf[:, :, -m:, :m], w2)
        rows = torch.cat([F.pad(top, (0, 0, 0, 0, 0, h - 2 * m)), bottom], dim=2)
        spectrum = F.pad(rows, (0, 0, 0, wd // 2 + 1 - m))
        return torch.fft.irfft2(torch.view_as_complex(spectrum), s=(h, wd))

    return layer


def eager_layer(m: int):  # noqa: ANN202
    def layer(x: torch.Tensor, w1: torch.Tensor, w2: torch.Tensor) -> torch.Tensor:
        b, c, h, wd = x.shape
        w1, w2 = torch.view_as_complex(w1), torch.view_as_complex(w2)
        xf = torch.fft.rfft2(x)
        out = torch.zeros(b, c, h, wd // 2 + 1, dtype=w1.dtype, device=x.device)
        out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, :m, :m], w1)
        out[:, :, -m:, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, -m:, :m], w2)
        return torch.fft.irfft2(out, s=(h, wd))

    return layer


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true")
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--json")
    p.add_argument("--profile", action="store_true", help="print each form's kernels (torch.profiler)")
    a = p.parse_args()
    dev = torch.device("cpu" if a.small or not torch.cuda.is_available() else "cuda")
    b, c, n, m = (2, 4, 16, 4) if a.small else (32, 32, 64, 16)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(b, c, n, n, generator=g).to(dev)
    w1, w2 = (torch.randn(c, c, m, m, 2, generator=g).div(c).to(dev) for _ in range(2))
    args = (x, w1, w2)
    eager = eager_layer(m)
    with torch.no_grad():
        ref = eager(*args)
        rows = []
        forms = [
            ("eager", eager),
            ("packed", real_layer(mix_packed, m)),
            ("planar", real_layer(mix_planar, m)),
            ("reduce", real_layer(mix_reduce, m)),
        ]
        for name, fn in [*forms, ("realify", eager)]:
            torch._dynamo.reset()
            backend = "realify" if name == "realify" else "inductor"
            run = fn if name == "eager" else torch.compile(fn, backend=backend, fullgraph=True)
            kernels = 0 if name == "eager" else kernel_count(lambda run=run: run(*args))
            err = float((run(*args) - ref).abs().max() / ref.abs().max())
            assert err < 1e-5, f"{name}: relative error {err}"
            iters = 1 if a.small else a.iters
            launched = time_ms(lambda run=run: run(*args), dev, warmup=1 if a.small else 5, iters=iters)
            graph = graph_time_ms(lambda run=run: run(*args), dev, iters=iters)
            rows.append({"form": name, "kernels": kernels, "launched_ms": launched, "graph_ms": graph, "rel_err": err})
            if a.profile:
                table = kernel_table(lambda run=run: run(*args), dev, 1 if a.small else 20)
                print(f"## {name}: {sum(us for _, us, _ in table):.1f} us per call")
                for key, us, count in table:
                    print(f"  {us:8.1f} us  x{count}  {key[:100]}")
    print_table(
        ["form", "kernels", "launched ms", "graph ms", "rel err"],
        [
            [r["form"], r["kernels"], r["launched_ms"], "-" if r["graph_ms"] is None else r["graph_ms"], r["rel_err"]]
            for r in rows
        ],
    )
    write_json(a.json, {"env": env_info(dev), "results": rows})


if __name__ == "__main__":
    main()
