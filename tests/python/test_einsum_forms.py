"""einsum as torch.export keeps it (src/rules/einsum.c), on PyTorch's own OpInfo samples: one or two complex
operands with an explicit output become one real einsum over a part axis (portable targets) or one batched matmul
between permutes (graph runtimes, where ONNX Runtime's Einsum transposes every operand on every call), and every
form equals eager. The ONNX form runs in ONNX Runtime."""

from __future__ import annotations

import collections

import pytest
import realify
import torch

common = pytest.importorskip(
    "torch.testing._internal.common_methods_invocations",
    reason="OpInfo samples need expecttest (make test installs it)",
)

EINSUM = next(op for op in common.op_db if op.name == "einsum")


class Einsum(torch.nn.Module):
    def __init__(self, equation: str) -> None:
        super().__init__()
        self.equation = equation

    def forward(self, *operands: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.einsum(self.equation, *operands))


def samples() -> list[tuple[str, tuple[torch.Tensor, ...]]]:
    out = []
    for s in EINSUM.sample_inputs("cpu", torch.complex64):
        eq, operands = s.args[0], tuple(s.input)  # OpInfo passes the operands as input, the equation as args
        out.append((eq, operands))
    # the FNO spectral layer's mixing and the attention scores, on top of OpInfo's
    g = torch.Generator().manual_seed(0)
    c = lambda *s: torch.randn(*s, dtype=torch.complex64, generator=g)  # noqa: E731
    out += [("bixy,ioxy->boxy", (c(2, 3, 4, 5), c(3, 6, 4, 5))), ("bhqd,bhkd->bhqk", (c(1, 2, 3, 4), c(1, 2, 5, 4)))]
    return out


SAMPLES = samples()


def explicit_two_complex(eq: str, operands: tuple[torch.Tensor, ...]) -> bool:
    return "->" in eq and 1 <= sum(o.is_complex() for o in operands) <= 2


def op_counts(ep: torch.export.ExportedProgram) -> collections.Counter:
    return collections.Counter(str(n.target) for n in ep.graph.nodes if n.op == "call_function")


@pytest.mark.parametrize("target", ["portable", "onnx"])
@pytest.mark.parametrize(("eq", "operands"), SAMPLES, ids=[f"{i}-{eq}" for i, (eq, _) in enumerate(SAMPLES)])
def test_einsum_forms_match_eager(eq: str, operands: tuple[torch.Tensor, ...], target: str) -> None:
    model = Einsum(eq).eval()
    ref = model(*operands)
    ep = realify.lower(torch.export.export(model, operands), target=target)
    got = ep.module()(*(torch.view_as_real(o) if o.is_complex() else o for o in operands))
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)
    ops = op_counts(ep)
    if explicit_two_complex(eq.replace(" ", ""), operands):
        einsums = ops["aten.einsum.default"]
        if target == "portable":
            assert einsums == 1, (eq, ops)
        elif "." not in eq and len(operands) == 2:
            assert einsums == 0 and ops["aten.matmul.default"] == 1, (eq, ops)


def test_onnx_form_runs_in_onnx_runtime() -> None:
    ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
    pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")
    eq, operands = SAMPLES[-2]
    model = Einsum(eq).eval()
    real = tuple(torch.view_as_real(o) for o in operands)
    ep = realify.lower(torch.export.export(model, operands), target="onnx")
    proto = torch.onnx.export(ep, real, dynamo=True, verbose=False).model_proto
    kinds = collections.Counter(n.op_type for n in proto.graph.node)
    assert kinds["Einsum"] == 0 and kinds["MatMul"] == 1, kinds
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {i.name: r.numpy() for i, r in zip(sess.get_inputs(), real, strict=True)})
    torch.testing.assert_close(torch.from_numpy(out), model(*operands), rtol=1e-5, atol=1e-5)
