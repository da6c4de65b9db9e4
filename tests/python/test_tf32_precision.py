"""TF32 and fft="matmul" (realify._precision): the DFT matmuls that replace torch.fft are found, a compile that TF32
would reach warns, and Torch-TensorRT is told to keep them float32.

CPU-only: CUDA and TF32 are stood in for where needed. test_gpu.py runs the real thing on CUDA."""

from __future__ import annotations

import subprocess
import sys
import types
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
import realify
import torch
from realify import _precision
from realify.backend import compile_lowered
from torch.fx.experimental.proxy_tensor import make_fx


class SpectrumMagnitude(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.rfft(x).abs() + torch.fft.fft(x)[..., :25].real


class Rotate(torch.nn.Module):
    def forward(self, x: torch.Tensor, f: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.view_as_complex(x) * f)


def _tf32_warnings(fft: str, tf32: bool, cuda: bool, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(_precision, "cuda_matmul_tf32", lambda: tf32)
    monkeypatch.setattr(_precision, "on_cuda", lambda values: cuda)
    torch._dynamo.reset()
    x = torch.randn(3, 48)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = torch.compile(SpectrumMagnitude(), backend="realify", options={"backend": "eager", "fft": fft})
        torch.testing.assert_close(f(x), SpectrumMagnitude()(x))
    return [str(w.message) for w in caught if issubclass(w.category, realify.Tf32DftWarning)]


def test_dft_matmuls_are_traced_to_their_fft_nodes() -> None:
    x = torch.randn(3, 48)
    gm = make_fx(SpectrumMagnitude())(x)
    ffts = [n.name for n in gm.graph.nodes if _precision.is_fft_op(n.target)]
    assert len(ffts) == 2
    matmul = realify.lower(gm, fft="matmul").meta["realify_report"]
    assert sorted(s.node for s in matmul.dft_matmul_sources) == sorted(ffts)
    assert all(s.op.startswith("aten._fft_") for s in matmul.dft_matmul_sources)
    assert realify.lower(gm, fft="native").meta["realify_report"].dft_matmul_sources == []
    assert gm.graph.nodes  # the input graph is untouched
    assert [n.name for n in gm.graph.nodes if _precision.is_fft_op(n.target)] == ffts


def test_fft_ops_are_the_transforms() -> None:
    aten = torch.ops.aten
    transforms = [aten._fft_r2c.default, aten.fft_rfft.default, aten.fft_ihfftn.default, aten.stft.default]
    assert all(_precision.is_fft_op(t) for t in transforms)
    others = [aten.fft_fftshift.default, aten.fft_rfftfreq.default, aten.matmul.default, "fft_rfft", len]
    assert not any(_precision.is_fft_op(t) for t in others)


def test_matmul_ffts_under_tf32_on_cuda_warn_with_node_and_source_line(monkeypatch: pytest.MonkeyPatch) -> None:
    messages = _tf32_warnings("matmul", tf32=True, cuda=True, monkeypatch=monkeypatch)
    assert len(messages) == 1
    assert "aten._fft_r2c" in messages[0] and "1 more" in messages[0]
    assert "test_tf32_precision.py" in messages[0] and "torch.fft.rfft(x)" in messages[0]


@pytest.mark.parametrize(
    ("fft", "tf32", "cuda"), [("native", True, True), ("matmul", False, True), ("matmul", True, False)]
)
def test_no_warning_where_tf32_cannot_reach_a_dft(
    fft: str, tf32: bool, cuda: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _tf32_warnings(fft, tf32, cuda, monkeypatch) == []


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("", False),
        ("torch.set_float32_matmul_precision('high')", True),
        ("torch.backends.cuda.matmul.allow_tf32 = True", True),
        ("torch.backends.cuda.matmul.fp32_precision = 'tf32'", True),
        ("torch.backends.cuda.matmul.fp32_precision = 'ieee'", False),
        # the legacy flag and the new setting mixed: torch itself raises when allow_tf32 is read
        ("torch.backends.cuda.matmul.allow_tf32 = True; torch.backends.fp32_precision = 'tf32'", True),
    ],
)
def test_cuda_matmul_tf32_reads_every_way_of_setting_it(setting: str, expected: bool) -> None:
    code = f"import torch; {setting}\nfrom realify._precision import cuda_matmul_tf32; print(cuda_matmul_tf32())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(expected)


@pytest.fixture
def fake_torch_tensorrt(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """A stand-in torch_tensorrt package whose dynamo backend records the settings it is given and runs the graph."""
    from torch._dynamo.backends import registry

    seen: list[dict[str, Any]] = []

    def backend(gm: torch.fx.GraphModule, inputs: list[Any], **kwargs: Any) -> Any:
        seen.append(dict(kwargs.get("options", {})))
        return gm.forward

    monkeypatch.setitem(sys.modules, "torch_tensorrt", types.ModuleType("torch_tensorrt"))
    monkeypatch.setitem(registry._BACKENDS, "torch_tensorrt", None)
    monkeypatch.setitem(registry._COMPILER_FNS, "torch_tensorrt", backend)
    yield seen


def _compile_for_tensorrt(model: torch.nn.Module, args: tuple[torch.Tensor, ...], **options: Any) -> Any:
    torch._dynamo.reset()
    f = torch.compile(model, backend="realify", options={"backend": "torch_tensorrt", **options})
    torch.testing.assert_close(f(*args), model(*args))


def test_tensorrt_keeps_dft_matmuls_float32(
    fake_torch_tensorrt: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_precision, "cuda_matmul_tf32", lambda: True)
    _compile_for_tensorrt(SpectrumMagnitude(), (torch.randn(3, 48),))  # auto: DFT matmuls for TensorRT
    assert fake_torch_tensorrt == [{"disable_tf32": True}]


@pytest.mark.parametrize("tf32", [False, True])
def test_tensorrt_follows_torch_matmul_precision_without_dfts(
    tf32: bool, fake_torch_tensorrt: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_precision, "cuda_matmul_tf32", lambda: tf32)
    x, f = torch.randn(2, 8, 2), torch.polar(torch.ones(8), torch.randn(8))
    _compile_for_tensorrt(Rotate(), (x, f))
    assert fake_torch_tensorrt == [{"disable_tf32": not tf32}]


def test_tensorrt_options_go_over_realifys(fake_torch_tensorrt: list[dict[str, Any]]) -> None:
    _compile_for_tensorrt(
        SpectrumMagnitude(), (torch.randn(3, 48),), tensorrt_options={"disable_tf32": False, "min_block_size": 1}
    )
    assert fake_torch_tensorrt == [{"disable_tf32": False, "min_block_size": 1}]


@pytest.mark.parametrize(
    "options", [{"backend": "inductor", "tensorrt_options": {}}, {"backend": "torch_tensorrt", "tensorrt_options": 3}]
)
def test_bad_tensorrt_options_fail_before_tracing(options: dict[str, Any]) -> None:
    torch._dynamo.reset()
    f = torch.compile(SpectrumMagnitude(), backend="realify", options=options)
    with pytest.raises(Exception, match="tensorrt_options"):
        f(torch.randn(3, 48))


def test_compile_lowered_passes_tensorrt_settings(fake_torch_tensorrt: list[dict[str, Any]]) -> None:
    x = torch.randn(3, 48)
    gm = make_fx(SpectrumMagnitude())(x)
    fn = compile_lowered(gm, [x], inner="torch_tensorrt", tensorrt_options={"debug": True})
    assert fake_torch_tensorrt == [{"disable_tf32": True, "debug": True}]
    out = fn(x)
    torch.testing.assert_close(out[0] if isinstance(out, (tuple, list)) else out, SpectrumMagnitude()(x))
