"""options={"backend": "onnxrt"}: the lowered graph exported to ONNX and run by ONNX Runtime (realify._onnxrt).

torch's own "onnxrt" dynamo backend is gone from torch 2.11 on; these run realify's replacement against eager."""

from __future__ import annotations

import types
from typing import Any

import pytest
import realify
import torch
from realify import _onnxrt, _precision
from realify.errors import RealifyError
from realify_examples import zoo

pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")

ZOO = ["llama3_rope_input", "axial_rope_2d", "fno_spectral", "fnet", "log_mel", "hyena_fft_conv", "complex_mlp",
       "mri_recon", "steering_c128_truncated"]


def _compile(model: torch.nn.Module, **options: Any) -> Any:
    torch._dynamo.reset()
    return torch.compile(model, backend="realify", options={"backend": "onnxrt", **options}, dynamic=False)


@pytest.mark.parametrize("name", ZOO)
def test_zoo_model_runs_in_onnx_runtime_as_eager(name: str) -> None:
    e = zoo.entry(name)
    model, args = e.make().eval(), e.inputs()
    with torch.no_grad():
        out, ref = _compile(model)(*args), model(*args)
    outs, refs = (out, ref) if isinstance(ref, tuple) else ((out,), (ref,))
    for o, r in zip(outs, refs, strict=True):
        assert o.dtype == r.dtype and o.shape == r.shape
        torch.testing.assert_close(o, r, rtol=e.rtol, atol=e.rtol * float(r.abs().max()))


def test_a_second_shape_recompiles_and_matches() -> None:
    model = zoo.entry("log_mel").make().eval()
    f = _compile(model)
    with torch.no_grad():
        for n in (96, 160):
            x = torch.randn(2, n)
            torch.testing.assert_close(f(x), model(x), rtol=1e-4, atol=1e-4 * float(model(x).abs().max()))


class _Spectrum(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.rfft(x).abs()


class _Rotate(torch.nn.Module):
    def forward(self, x: torch.Tensor, f: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.view_as_complex(x) * f)


@pytest.mark.parametrize(
    ("model", "tf32", "expected"), [("fft", True, False), ("rope", True, True), ("rope", False, False)]
)
def test_cuda_provider_tf32_follows_the_dft_matmuls_and_torch(
    model: str, tf32: bool, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    real = _onnxrt.compile_onnxrt

    def spy(gm: torch.fx.GraphModule, inputs: list[Any], *, use_tf32: bool = False) -> Any:
        seen.append(use_tf32)
        return real(gm, inputs, use_tf32=use_tf32)

    monkeypatch.setattr(_onnxrt, "compile_onnxrt", spy)
    monkeypatch.setattr(_precision, "cuda_matmul_tf32", lambda: tf32)
    if model == "fft":
        m, args = _Spectrum(), (torch.randn(3, 32),)
    else:
        m, args = _Rotate(), (torch.randn(2, 8, 2), torch.polar(torch.ones(8), torch.randn(8)))
    torch.testing.assert_close(_compile(m)(*args), m(*args))
    assert seen == [expected]


def test_providers_ask_cuda_for_its_tf32_setting() -> None:
    with_cuda = types.SimpleNamespace(get_available_providers=lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    cpu_only = types.SimpleNamespace(get_available_providers=lambda: ["CPUExecutionProvider"])
    assert _onnxrt._providers(with_cuda, True, False) == [
        ("CUDAExecutionProvider", {"use_tf32": "0"}), "CPUExecutionProvider"
    ]
    assert _onnxrt._providers(with_cuda, True, True)[0] == ("CUDAExecutionProvider", {"use_tf32": "1"})
    assert _onnxrt._providers(with_cuda, False, True) == ["CPUExecutionProvider"]
    assert _onnxrt._providers(cpu_only, True, False) == ["CPUExecutionProvider"]


class _Accumulate(torch.nn.Module):
    def forward(self, acc: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        acc.add_(z.abs())
        return acc * 2


class _ScaleBf16(torch.nn.Module):
    def forward(self, x: torch.Tensor, f: torch.Tensor) -> torch.Tensor:
        return x * torch.view_as_real(f * f).to(x.dtype)


def test_unsupported_graphs_get_a_clear_error() -> None:
    z = torch.randn(4, dtype=torch.complex64)
    with pytest.raises(Exception, match="writes the graph input") as info:
        _compile(_Accumulate())(torch.zeros(4), z)
    assert "test_onnxrt_backend.py" in str(info.value)  # the user's line
    torch._dynamo.reset()
    dyn = torch.compile(_Rotate(), backend="realify", options={"backend": "onnxrt"}, dynamic=True)
    with pytest.raises(Exception, match="static shapes"):
        dyn(torch.randn(2, 8, 2), torch.polar(torch.ones(8), torch.randn(8)))
    x = torch.randn(8, 2, dtype=torch.bfloat16)
    with pytest.raises(Exception, match="bfloat16"):
        _compile(_ScaleBf16())(x, torch.polar(torch.ones(8), torch.randn(8)))


def test_float64_ops_onnx_runtime_lacks_point_to_truncate_double() -> None:
    e = zoo.entry("phase_math_c128")
    model, args = e.make().eval(), e.inputs()
    with pytest.raises(Exception, match="truncate_double"):
        _compile(model)(*args)
    with torch.no_grad():
        outs, refs = _compile(model, truncate_double=True)(*args), model(*args)
    assert any(r.dtype == torch.complex128 for r in refs)
    for o, r in zip(outs, refs, strict=True):
        assert o.dtype == r.dtype
        torch.testing.assert_close(o, r, rtol=1e-5, atol=1e-5 * float(r.abs().max()))


def test_the_session_is_reachable_and_runs_on_the_cpu_provider() -> None:
    gm = torch.fx.symbolic_trace(_Spectrum())
    x = torch.randn(3, 32)
    lowered = realify.lower(torch.fx.experimental.proxy_tensor.make_fx(gm)(x), target="onnx")
    run = _onnxrt.compile_onnxrt(lowered, [x])
    assert run.session.get_providers() == ["CPUExecutionProvider"]
    torch.testing.assert_close(run(x), _Spectrum()(x))
    with pytest.raises(RealifyError, match="static shapes"):
        _onnxrt.compile_onnxrt(lowered, [3])
