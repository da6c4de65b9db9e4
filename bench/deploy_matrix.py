"""Zoo model x deployment target, with realify and without: pass/fail and the largest error against eager.

    python bench/deploy_matrix.py [--models a,b] [--targets onnx,openvino,executorch,coreml,tensorrt] [--json out]

Without realify the original (complex) ExportedProgram goes to the target as it is. "tensorrt" is converter coverage
only (TensorRT itself is not installable here): the nodes without a Torch-TensorRT converter are listed."""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))  # realify_examples (zoo, llama3)

import realify  # noqa: E402
from realify_examples import zoo  # noqa: E402


def run_onnx(ep: torch.export.ExportedProgram, args: tuple) -> list[torch.Tensor]:
    import onnxruntime as ort

    model = torch.onnx.export(ep, args, dynamo=True, verbose=False).model_proto
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args, strict=True)}
    return [torch.from_numpy(o) for o in sess.run(None, feeds)]


def run_openvino(ep: torch.export.ExportedProgram, args: tuple) -> list[torch.Tensor]:
    import openvino as ov
    from test_deploy_openvino import run_openvino as run

    return run(ov.convert_model(ep, example_input=args), args)


def run_executorch(ep: torch.export.ExportedProgram, args: tuple) -> list[torch.Tensor]:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
    # keep the buffer, the program and the method alive while it runs: the runtime reads them, it does not copy
    buffer = edge.to_executorch().buffer
    program = Runtime.get().load_program(buffer)
    method = program.load_method("forward")
    return list(method.execute(list(args)))


def run_coreml(ep: torch.export.ExportedProgram, args: tuple) -> None:
    import coremltools as ct

    ct.convert(
        ep.run_decompositions({}),
        convert_to="mlprogram",
        skip_model_load=True,
        minimum_deployment_target=ct.target.iOS18,
    )


def run_tensorrt(ep: torch.export.ExportedProgram, args: tuple) -> None:
    from test_deploy_tensorrt import unconverted

    complex_nodes = [n.name for n in ep.graph.nodes if getattr(n.meta.get("val"), "is_complex", lambda: False)()]
    if complex_nodes:  # TensorRT has no complex dtype, whatever the op
        raise RuntimeError(f"complex values: {complex_nodes[:3]}")
    missing = unconverted(ep)
    if missing:
        raise RuntimeError(f"no converter: {sorted(missing)}")


RUNNERS = {
    "onnx": run_onnx,
    "openvino": run_openvino,
    "executorch": run_executorch,
    "coreml": run_coreml,
    "tensorrt": run_tensorrt,
}


def cell(e: zoo.ZooEntry, target: str, use_realify: bool) -> dict[str, Any]:
    model, args = e.make().eval(), e.inputs()
    t0 = time.perf_counter()
    try:
        ep = torch.export.export(model, args)
        if use_realify:
            ep = realify.lower(ep, truncate_double=e.truncate_double)
            args = zoo.real_inputs(e, args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = RUNNERS[target](ep, args)
        err = None if outs is None else zoo.max_rel_error(model(*e.inputs()), outs)
        return {"ok": True, "err": err, "s": time.perf_counter() - t0}
    except Exception as ex:  # the point is to record which targets fail and how
        msg = f"{type(ex).__name__}: {str(ex).strip().splitlines()[0] if str(ex).strip() else ''}"
        return {"ok": False, "why": msg[:160], "s": time.perf_counter() - t0}


def show(c: dict[str, Any]) -> str:
    if not c["ok"]:
        return "fail"
    return "pass" if c["err"] is None else f"pass {c['err']:.1e}"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--models", default=",".join(zoo.names()))
    p.add_argument("--targets", default=",".join(RUNNERS))
    p.add_argument("--json")
    a = p.parse_args()
    targets = a.targets.split(",")
    rows = {}
    print("| model | " + " | ".join(f"{t} (realify) | {t} (without)" for t in targets) + " |")
    print("|---" * (1 + 2 * len(targets)) + "|")
    for name in a.models.split(","):
        e = zoo.entry(name)
        rows[name] = {t: {"realify": cell(e, t, True), "without": cell(e, t, False)} for t in targets}
        cells = [f"{show(rows[name][t]['realify'])} | {show(rows[name][t]['without'])}" for t in targets]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
