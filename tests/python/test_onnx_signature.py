"""Every ONNX export path writes the complex signature, and realify.load of the file takes the original complex
arguments and returns complex results (ONNX Runtime), equal to eager: realify.export_onnx in memory (the returned
program saved by the caller) and with f=PATH, and `realify lower IN.pt2 -o OUT.onnx`."""

from __future__ import annotations

import json

import pytest
import realify
import torch
from realify import cli
from realify.artifact import ONNX_KEY, read_record
from realify_examples import zoo

pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")


class RopeComplexOut(torch.nn.Module):
    """RoPE with a complex freqs_cis input; returns the rotated complex pairs and a real output."""

    def forward(self, x: torch.Tensor, freqs_cis: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        xc = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        y = xc * freqs_cis[None, :, None, :]
        return y, torch.view_as_real(y).flatten(3)


def cases() -> dict[str, tuple[torch.nn.Module, tuple[torch.Tensor, ...]]]:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 6, 2, 8, generator=g)
    freqs = torch.polar(torch.ones(6, 4), torch.randn(6, 4, generator=g))
    mlp = zoo.entry("complex_mlp")
    return {"rope": (RopeComplexOut(), (x, freqs)), "complex_mlp": (mlp.make().eval(), mlp.inputs())}


def check(loaded: realify.artifact.ComplexProgram, model: torch.nn.Module, args: tuple[torch.Tensor, ...]) -> None:
    with torch.no_grad():
        ref = model(*args)
    got = loaded(*args)
    refs, gots = (ref, got) if isinstance(ref, tuple) else ((ref,), (got,))
    assert len(gots) == len(refs)
    for r, o in zip(refs, gots, strict=True):
        assert o.dtype == r.dtype and o.shape == r.shape
        torch.testing.assert_close(o, r, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["rope", "complex_mlp"])
def test_export_onnx_round_trips_in_memory_and_via_file(name: str, tmp_path) -> None:
    model, args = cases()[name]
    ep = torch.export.export(model, args)
    program = realify.export_onnx(ep, args)  # in memory: the caller saves it
    record = json.loads(dict(program.model.metadata_props)[ONNX_KEY])
    assert record["inputs"] and record["outputs"]  # complex in and complex out
    program.save(str(tmp_path / "mem.onnx"))
    check(realify.load(tmp_path / "mem.onnx"), model, args)
    realify.export_onnx(ep, args, f=str(tmp_path / "file.onnx"))
    assert read_record(tmp_path / "file.onnx") == record
    check(realify.load(tmp_path / "file.onnx"), model, args)


def test_cli_onnx_round_trips(tmp_path) -> None:
    model, args = cases()["rope"]
    torch.export.save(torch.export.export(model, args), tmp_path / "rope.pt2")
    assert cli.main(["lower", str(tmp_path / "rope.pt2"), "-o", str(tmp_path / "rope.onnx"), "-q"]) == 0
    record = read_record(tmp_path / "rope.onnx")
    assert [b["complex_dtype"] for b in record["inputs"]] == ["complex64"]
    assert [b["position"] for b in record["outputs"]] == [0]
    check(realify.load(tmp_path / "rope.onnx"), model, args)
