"""The composite ops torch.export keeps whole (make_fx decomposes them first), lowered on complex values: linear,
conv1d/2d/3d (and padding="same"), conv_transpose1d/2d/3d, bilinear, tensordot, inner and linalg_multi_dot. Each
case exports a small module, checks the op is in the exported graph, lowers the ExportedProgram, asserts no
complex dtype is left and compares with eager; the convolutions are eager's bit for bit (the same real
convolutions, src/rules/composite_conv.c). A complex nn.Linear + nn.Conv2d model goes through realify.export_onnx
and runs in ONNX Runtime."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import realify
import torch
from harness import TOL, assert_real_only, compare
from realify.runtime import real_arguments
from torch import nn

F = nn.functional
C64, C128 = torch.complex64, torch.complex128


def z(dt: torch.dtype, *shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(shape, dtype=dt, generator=torch.Generator().manual_seed(seed + 31 * len(shape)))


class Call(nn.Module):
    """A module calling fn on its inputs (for the functional ops)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: torch.Tensor) -> Any:
        return self.fn(*args)


def seeded(make: Callable[[torch.dtype], nn.Module]) -> Callable[[torch.dtype], nn.Module]:
    def build(dt: torch.dtype) -> nn.Module:
        torch.manual_seed(0)
        return make(dt)

    return build


# name -> (the aten op the export keeps, module for a dtype, inputs for a dtype)
CASES: dict[str, tuple[str, Callable[[torch.dtype], nn.Module], Callable[[torch.dtype], tuple[torch.Tensor, ...]]]] = {
    "linear": ("aten.linear.default", seeded(lambda dt: nn.Linear(4, 3, dtype=dt)), lambda dt: (z(dt, 2, 4),)),
    "linear_3d_input": (
        "aten.linear.default", seeded(lambda dt: nn.Linear(4, 3, dtype=dt)), lambda dt: (z(dt, 5, 2, 4),)),
    "linear_1d_no_bias": (
        "aten.linear.default", seeded(lambda dt: nn.Linear(4, 3, bias=False, dtype=dt)), lambda dt: (z(dt, 4),)),
    "conv1d": ("aten.conv1d.default", seeded(lambda dt: nn.Conv1d(2, 3, 3, dtype=dt)), lambda dt: (z(dt, 2, 2, 7),)),
    "conv1d_unbatched_no_bias": (
        "aten.conv1d.default", seeded(lambda dt: nn.Conv1d(2, 3, 2, bias=False, dtype=dt)), lambda dt: (z(dt, 2, 7),)),
    "conv2d_strided_grouped": (
        "aten.conv2d.default",
        seeded(lambda dt: nn.Conv2d(2, 4, 3, stride=2, padding=1, dilation=(1, 2), groups=2, dtype=dt)),
        lambda dt: (z(dt, 2, 2, 7, 8),),
    ),
    "conv2d_same_even_kernel": (
        "aten.conv2d.padding",
        seeded(lambda dt: nn.Conv2d(2, 3, (2, 3), padding="same", dilation=(1, 2), dtype=dt)),
        lambda dt: (z(dt, 1, 2, 6, 5),),
    ),
    "conv2d_valid": (
        "aten.conv2d.padding", seeded(lambda dt: nn.Conv2d(2, 3, 3, padding="valid", dtype=dt)),
        lambda dt: (z(dt, 1, 2, 6, 5),)),
    "conv2d_unbatched": ("aten.conv2d.default", seeded(lambda dt: nn.Conv2d(2, 3, 3, dtype=dt)),
                         lambda dt: (z(dt, 2, 5, 6),)),
    "conv3d": ("aten.conv3d.default", seeded(lambda dt: nn.Conv3d(2, 3, 2, padding=1, dtype=dt)),
               lambda dt: (z(dt, 1, 2, 3, 4, 3),)),
    "conv_transpose1d": (
        "aten.conv_transpose1d.default",
        seeded(lambda dt: nn.ConvTranspose1d(2, 3, 3, stride=2, output_padding=1, dtype=dt)),
        lambda dt: (z(dt, 2, 2, 5),),
    ),
    "conv_transpose2d": (
        "aten.conv_transpose2d.input",
        seeded(lambda dt: nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=1,
                                             dtype=dt)),
        lambda dt: (z(dt, 1, 2, 4, 5),),
    ),
    "conv_transpose3d_unbatched": (
        "aten.conv_transpose3d.input", seeded(lambda dt: nn.ConvTranspose3d(2, 3, 2, dtype=dt)),
        lambda dt: (z(dt, 2, 3, 2, 3),)),
    # _trilinear has no complex autograd: torch.export itself fails on parameters that require grad
    "bilinear": ("aten.bilinear.default", seeded(lambda dt: nn.Bilinear(4, 3, 5, dtype=dt).requires_grad_(False)),
                 lambda dt: (z(dt, 2, 4), z(dt, 2, 3, seed=1))),
    "bilinear_1d": ("aten.bilinear.default", seeded(lambda dt: nn.Bilinear(4, 3, 5, dtype=dt).requires_grad_(False)),
                    lambda dt: (z(dt, 4), z(dt, 3, seed=1))),
    "bilinear_batch_dims_no_bias": (
        "aten.bilinear.default",
        seeded(lambda dt: nn.Bilinear(4, 3, 5, bias=False, dtype=dt).requires_grad_(False)),
        lambda dt: (z(dt, 2, 3, 4), z(dt, 2, 3, 3, seed=1)),
    ),
    "tensordot_int": ("aten.tensordot.default", lambda dt: Call(lambda a, b: torch.tensordot(a, b, dims=2)),
                      lambda dt: (z(dt, 2, 3, 4), z(dt, 3, 4, 5, seed=1))),
    "tensordot_lists": (
        "aten.tensordot.default", lambda dt: Call(lambda a, b: torch.tensordot(a, b, dims=([1, 0], [0, 2]))),
        lambda dt: (z(dt, 3, 2, 4), z(dt, 2, 6, 3, seed=1))),
    "tensordot_size_one_summed": (  # a contracted dim of size 1 meets one of size 2: torch sums the other first
        "aten.tensordot.default", lambda dt: Call(lambda a, b: torch.tensordot(a, b, dims=([0, 1], [2, 0]))),
        lambda dt: (z(dt, 1, 1, 3), z(dt, 2, 4, 2, seed=1))),
    "tensordot_outer": ("aten.tensordot.default", lambda dt: Call(lambda a, b: torch.tensordot(a, b, dims=0)),
                        lambda dt: (z(dt, 2, 3), z(dt, 4, seed=1))),
    "tensordot_full": (
        "aten.tensordot.default", lambda dt: Call(lambda a, b: torch.tensordot(a, b, dims=([0, 1], [1, 0]))),
        lambda dt: (z(dt, 2, 3), z(dt, 3, 2, seed=1))),
    "inner": ("aten.inner.default", lambda dt: Call(torch.inner),
              lambda dt: (z(dt, 2, 4), z(dt, 3, 5, 4, seed=1))),
    "inner_scalar": ("aten.inner.default", lambda dt: Call(torch.inner), lambda dt: (z(dt), z(dt, 3, seed=1))),
    "multi_dot_vectors": (
        "aten.linalg_multi_dot.default", lambda dt: Call(lambda *t: torch.linalg.multi_dot(t)),
        lambda dt: (z(dt, 4), z(dt, 4, 3, seed=1), z(dt, 3, 5, seed=2), z(dt, 5, seed=3))),
    "multi_dot_three": (
        "aten.linalg_multi_dot.default", lambda dt: Call(lambda *t: torch.linalg.multi_dot(t)),
        lambda dt: (z(dt, 6, 2), z(dt, 2, 5, seed=1), z(dt, 5, 3, seed=2))),
    "multi_dot_two": ("aten.linalg_multi_dot.default", lambda dt: Call(lambda *t: torch.linalg.multi_dot(t)),
                      lambda dt: (z(dt, 2, 3), z(dt, 3, 4, seed=1))),
}
CONVS = {name for name, (op, _, _) in CASES.items() if ".conv" in op}
C128_CASES = ["linear", "conv2d_strided_grouped", "conv_transpose2d", "bilinear", "tensordot_lists", "multi_dot_three"]


def exported_ops(ep: torch.export.ExportedProgram) -> set[str]:
    return {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}


def lower_and_compare(model: nn.Module, args: tuple[torch.Tensor, ...], op: str, exact: bool) -> None:
    ep = torch.export.export(model, args)
    assert op in exported_ops(ep), f"torch.export no longer keeps {op}: {sorted(exported_ops(ep))}"
    low = realify.lower(ep)
    assert_real_only(low.graph_module)
    assert op not in exported_ops(low)
    real_args = real_arguments(low.graph_module.meta["realify_report"].signature, args)
    out = low.module()(*real_args)
    with torch.no_grad():
        ref = model(*args)
    compare(out, ref, dict(rtol=0, atol=0) if exact else TOL[args[0].dtype])


@pytest.mark.parametrize("name", list(CASES))
def test_composite_matches_eager_complex64(name: str) -> None:
    op, make, inputs = CASES[name]
    lower_and_compare(make(C64), inputs(C64), op, exact=name in CONVS)


@pytest.mark.parametrize("name", C128_CASES)
def test_composite_matches_eager_complex128(name: str) -> None:
    op, make, inputs = CASES[name]
    lower_and_compare(make(C128), inputs(C128), op, exact=name in CONVS)


class KnownReal(nn.Module):
    """A real weight meeting a complex input and a real input meeting a complex weight: the casts make the
    imaginary parts known zeros, so each rule emits the two real products eager's mixed arithmetic needs."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.w = nn.Parameter(torch.randn(3, 4))
        self.cw = nn.Parameter(torch.randn(3, 2, 3, dtype=C64))
        self.tw = nn.Parameter(torch.randn(2, 3, 2))

    def forward(self, x: torch.Tensor, y: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (
            F.linear(x, self.w.to(C64)),
            F.conv1d(y.to(C64), self.cw),
            F.conv_transpose1d(v, self.tw.to(C64), stride=2),
            torch.tensordot(x, self.w.to(C64).t(), dims=1),
        )


def test_known_real_operands_take_two_products() -> None:
    model = KnownReal()
    args = (z(C64, 2, 4), torch.randn(1, 2, 6), z(C64, 1, 2, 5))
    ep = torch.export.export(model, args)
    low = realify.lower(ep)
    assert_real_only(low.graph_module)
    convs = [n for n in low.graph.nodes if n.target == torch.ops.aten.convolution.default]
    assert len(convs) == 4  # two per convolution, not Gauss's three
    out = low.module()(*real_arguments(low.graph_module.meta["realify_report"].signature, args))
    with torch.no_grad():
        ref = model(*args)
    compare(out, ref, TOL[C64])


def test_dynamic_batch_keeps_symbolic_shapes() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1, dtype=C64), nn.Flatten(), nn.Linear(3 * 16, 5, dtype=C64))
    args = (z(C64, 3, 2, 4, 4),)
    ep = torch.export.export(model, args, dynamic_shapes=({0: torch.export.Dim("batch", min=2)},))
    low = realify.lower(ep)
    assert_real_only(low.graph_module)
    x = z(C64, 5, 2, 4, 4, seed=7)
    out = low.module()(torch.view_as_real(x))
    with torch.no_grad():
        compare(out, model(x), TOL[C64])


def test_complex_linear_and_conv2d_run_in_onnx_runtime(tmp_path) -> None:
    pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
    pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 3, padding=1, dtype=C64)
            self.fc = nn.Linear(3 * 25, 4, dtype=C64)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc(self.conv(x).flatten(1))

    torch.manual_seed(0)
    model = Net().eval()
    args = (z(C64, 2, 2, 5, 5),)
    realify.export_onnx(torch.export.export(model, args), args, f=str(tmp_path / "net.onnx"))
    loaded = realify.load(tmp_path / "net.onnx")
    got = loaded(*args)
    with torch.no_grad():
        ref = model(*args)
    assert got.dtype == C64 and got.shape == ref.shape
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)
    import onnx

    ops = {node.op_type for node in onnx.load(str(tmp_path / "net.onnx")).graph.node}
    assert "Conv" in ops and ("MatMul" in ops or "Gemm" in ops)
