"""Accuracy of realify's DFT matmuls against eager float32, both measured against a complex128 reference (issue 32:
at most 1.25x eager's own error).

    python bench/fft_accuracy.py [--json out.json]
    python bench/fft_accuracy.py --small    # two short transforms

For each case: float32 inputs, the model run by eager float32, by realify's lowering for the portable target
(fft="matmul") and for the graph target (target="onnx", two-stage real transforms; run in ONNX Runtime where it is
installed, else as the lowered FX graph), and by eager on the same inputs in float64. The error is the max absolute
difference from the float64 result over the max |result|. Prints one markdown row per case; the ratio column is
realify's error over eager's.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

import realify
import torch


class Whiten(torch.nn.Module):
    """A whitening filter: the spectrum times a fixed inverse-PSD weight, back to the signal."""

    def __init__(self, n: int) -> None:
        super().__init__()
        f = torch.arange(n // 2 + 1, dtype=torch.float64)
        self.register_buffer("w", (1.0 / torch.sqrt(1.0 + (f / 40.0) ** 2)).float())
        self.n = n

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.fft.rfft(x, n=self.n) * self.w.to(x.dtype), n=self.n)


class Rfft(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.fft.rfft(x))


class Fft(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.fft.fft(x))


CASES: dict[str, Callable[[], tuple[torch.nn.Module, torch.Tensor]]] = {
    "whiten 4096": lambda: (Whiten(4096), torch.randn(8, 4096, generator=torch.Generator().manual_seed(1))),
    "rfft 4096": lambda: (Rfft(), torch.randn(8, 4096, generator=torch.Generator().manual_seed(2))),
    "rfft 1000": lambda: (Rfft(), torch.randn(8, 1000, generator=torch.Generator().manual_seed(3))),
    "fft 256": lambda: (Fft(), torch.randn(8, 256, dtype=torch.complex64, generator=torch.Generator().manual_seed(4))),
}


SMALL: dict[str, Callable[[], tuple[torch.nn.Module, torch.Tensor]]] = {
    "whiten 512": lambda: (Whiten(512), torch.randn(2, 512, generator=torch.Generator().manual_seed(1))),
    "fft 64": lambda: (Fft(), torch.randn(2, 64, dtype=torch.complex64, generator=torch.Generator().manual_seed(4))),
}


def rel(ref: torch.Tensor, got: torch.Tensor) -> float:
    return ((got.double() - ref).abs().max() / ref.abs().max()).item()


def run_graph(ep: torch.export.ExportedProgram, x: torch.Tensor) -> tuple[torch.Tensor, str]:
    args = (torch.view_as_real(x) if x.is_complex() else x,)
    try:
        import onnxruntime as ort
        import onnxscript  # noqa: F401  (the dynamo exporter needs it)
    except ImportError:
        return ep.module()(*args), "fx"
    proto = torch.onnx.export(ep, args, dynamo=True, verbose=False).model_proto
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {sess.get_inputs()[0].name: args[0].numpy()})
    return torch.from_numpy(out), "ort"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true")
    p.add_argument("--json")
    a = p.parse_args()
    rows = []
    print("| case | eager f32 | realify portable | ratio | realify graph target | ratio | graph run in |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, make in (SMALL if a.small else CASES).items():
        model, x = make()
        model.eval()
        with torch.no_grad():
            ref = model.double()(x.to(torch.complex128 if x.is_complex() else torch.float64))
            model.float()
            eager = rel(ref, model(x))
            exported = torch.export.export(model, (x,))
            arg = torch.view_as_real(x) if x.is_complex() else x
            portable = rel(ref, realify.lower(exported, fft="matmul").module()(arg))
            graph_out, where = run_graph(realify.lower(exported, target="onnx"), x)
            graph = rel(ref, graph_out)
        rows.append({"case": name, "eager": eager, "portable": portable, "graph": graph, "graph_run": where})
        print(f"| {name} | {eager:.2e} | {portable:.2e} | {portable / eager:.2f} | {graph:.2e} | "
              f"{graph / eager:.2f} | {where} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"results": rows}, f, indent=1)


if __name__ == "__main__":
    main()
