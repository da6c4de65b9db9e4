"""RoPE's rotation written as plain ONNX graphs, timed in ONNX Runtime and OpenVINO (CPU, one thread) against eager
PyTorch's complex multiply: how low an unfused graph runtime can go for a RoPE-only model (issue 32).

    python bench/rope_graph_forms.py [--seq 256] [--heads 8] [--head-dim 64] [--iters 300] [--json out.json]
    python bench/rope_graph_forms.py --small      # tiny shapes, few calls (make test keeps it working)

Forms, each out = x * C + swap(x) * S with C = (cos, cos) and S = (-sin, sin) per pair, tables constant:
  matmul_p64     swap(x) as x @ P, P the [D, D] pair swap
  matmul_p2      swap(x) as [..., D/2, 2] @ [[0, 1], [1, 0]]
  gather         swap(x) as a Gather on the last axis
  split_concat   swap(x) as Split of the pair axis and Concat in the other order
  full_tables    matmul_p64 with C and S expanded over the heads (no broadcast in the Muls)
  add_scalar     x + 1: one elementwise pass, the floor of any graph of whole-tensor ops
Each median is microseconds per call; every form is checked against numpy.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from _util import time_ms, write_json  # noqa: E402

CPU = torch.device("cpu")


def _median_us(fn: Callable[[], Any], iters: int) -> float:
    return time_ms(fn, CPU, warmup=10, iters=iters) * 1e3


def main() -> None:
    import onnx
    import onnxruntime as ort
    import openvino as ov
    from onnx import TensorProto
    from onnx import helper as h
    from onnx import numpy_helper as nh

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--iters", type=int, default=300)
    p.add_argument("--small", action="store_true", help="(1, 8, 2, 8), 5 calls")
    p.add_argument("--json", help="write the rows there")
    a = p.parse_args()
    if a.small:
        a.seq, a.heads, a.head_dim, a.iters = 8, 2, 8, 5
    s_, h_, d_ = a.seq, a.heads, a.head_dim
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, s_, h_, d_)).astype(np.float32)
    ang = rng.standard_normal((s_, d_ // 2)).astype(np.float32)
    cos, sin = np.cos(ang), np.sin(ang)
    c_tab = np.repeat(cos, 2, -1).reshape(s_, 1, d_)
    s_tab = np.stack([-sin, sin], -1).reshape(s_, 1, d_)
    pairs = x.reshape(1, s_, h_, d_ // 2, 2)
    want = x * c_tab + pairs[..., ::-1].reshape(x.shape) * s_tab

    def f32(name: str, v: np.ndarray) -> onnx.TensorProto:
        return nh.from_array(np.asarray(v, np.float32), name)

    def i64(name: str, v: list[int] | np.ndarray) -> onnx.TensorProto:
        return nh.from_array(np.asarray(v, np.int64), name)

    swap64 = np.zeros((d_, d_), np.float32)
    for i in range(d_ // 2):
        swap64[2 * i + 1, 2 * i] = swap64[2 * i, 2 * i + 1] = 1
    tail = [
        h.make_node("Mul", ["x", "C"], ["a"]),
        h.make_node("Mul", ["xs", "S"], ["b"]),
        h.make_node("Add", ["a", "b"], ["y"]),
    ]
    tables = [f32("C", c_tab), f32("S", s_tab)]
    shapes = [i64("s5", [1, s_, h_, d_ // 2, 2]), i64("s4", [1, s_, h_, d_])]
    full = [f32("C", np.broadcast_to(c_tab, (s_, h_, d_))[None]), f32("S", np.broadcast_to(s_tab, (s_, h_, d_))[None])]
    forms: dict[str, tuple[list, list]] = {
        "matmul_p64": ([h.make_node("MatMul", ["x", "P"], ["xs"]), *tail], [*tables, f32("P", swap64)]),
        "matmul_p2": (
            [h.make_node("Reshape", ["x", "s5"], ["x5"]), h.make_node("MatMul", ["x5", "P2"], ["xs5"]),
             h.make_node("Reshape", ["xs5", "s4"], ["xs"]), *tail],
            [*tables, *shapes, f32("P2", [[0, 1], [1, 0]])],
        ),
        "gather": (
            [h.make_node("Gather", ["x", "perm"], ["xs"], axis=3), *tail],
            [*tables, i64("perm", np.arange(d_).reshape(-1, 2)[:, ::-1].reshape(-1))],
        ),
        "split_concat": (
            [
                h.make_node("Reshape", ["x", "s5"], ["x5"]),
                h.make_node("Split", ["x5"], ["e", "o"], axis=4, num_outputs=2),
                h.make_node("Concat", ["o", "e"], ["xs5"], axis=4),
                h.make_node("Reshape", ["xs5", "s4"], ["xs"]),
                *tail,
            ],
            [*tables, *shapes],
        ),
        "full_tables": ([h.make_node("MatMul", ["x", "P"], ["xs"]), *tail], [*full, f32("P", swap64)]),
        "add_scalar": ([h.make_node("Add", ["x", "one"], ["y"])], [f32("one", [1.0])]),
    }
    core = ov.Core()
    print(f"RoPE rotation, x (1, {s_}, {h_}, {d_}) float32, one thread; µs per call (median of {a.iters})")
    print("| form | ONNX Runtime | OpenVINO |\n|---|---:|---:|")
    rows: list[dict[str, object]] = []
    for name, (nodes, inits) in forms.items():
        graph = h.make_graph(nodes, name, [h.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                             [h.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", 18)]).SerializeToString()
        so = ort.SessionOptions()
        so.intra_op_num_threads = so.inter_op_num_threads = 1
        sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        compiled = core.compile_model(core.read_model(model), "CPU", {"INFERENCE_NUM_THREADS": 1,
                                                                       "INFERENCE_PRECISION_HINT": "f32"})
        req = compiled.create_infer_request()
        if name != "add_scalar":
            for got in (sess.run(None, {"x": x})[0], req.infer({"x": x})[compiled.output(0)]):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        t_ort = _median_us(lambda sess=sess: sess.run(None, {"x": x}), a.iters)
        t_ov = _median_us(lambda req=req: req.infer({"x": x}), a.iters)
        print(f"| {name} | {t_ort:.1f} | {t_ov:.1f} |")
        rows.append({"form": name, "ort_us": t_ort, "openvino_us": t_ov})
    xt = torch.from_numpy(x)
    freqs = torch.polar(torch.ones(s_, d_ // 2), torch.from_numpy(ang))

    def eager() -> torch.Tensor:
        xc = torch.view_as_complex(xt.reshape(1, s_, h_, d_ // 2, 2))
        return torch.view_as_real(xc * freqs[None, :, None, :]).flatten(3)

    np.testing.assert_allclose(eager().numpy(), want, rtol=1e-5, atol=1e-6)
    t_eager = _median_us(eager, a.iters)
    print(f"| eager complex multiply | {t_eager:.1f} | |")
    rows.append({"form": "eager", "eager_us": t_eager})
    write_json(a.json, {"shape": [1, a.seq, a.heads, a.head_dim], "results": rows})


if __name__ == "__main__":
    main()
