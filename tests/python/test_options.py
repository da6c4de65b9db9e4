"""realify.LowerOptions: the one options object of realify.lower, export_onnx, the backend and the CLI; checked
once when made; its names read from the C core; every C option reachable, `division` included."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import realify
import torch
from realify import _core, _fx_to_ir, _options, _version, cli
from realify.backend import CompileEvent, lower_options
from realify.lower import PLANAR_CONSTS, PLANAR_INPUTS, LowerOptions, lower_graph_module
from torch.fx.experimental.proxy_tensor import make_fx

ROOT = Path(__file__).resolve().parents[2]


def _ops(gm: torch.fx.GraphModule) -> set[str]:
    return {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}


def test_names_are_the_cores() -> None:
    names = _core.option_names()
    assert list(_options.TARGETS) == ["portable", "inductor", *(n for n in names["target"] if n != "core_aten")]
    assert {"openvino", "coreml"} <= set(_options.TARGETS)
    assert all(_options.TARGETS[n] == _core.target_bit(n) for n in _options.DEPLOY_TARGETS)
    assert _options.STRATEGIES == ("auto", "matmul", "native", "onnx-dft") == ("auto", *names["fft"])
    assert _options.DIVISIONS == ("c10", "scaled") == tuple(names["division"])


def test_every_core_option_is_a_field() -> None:
    """Each keyword of the core's lower() (its options, rf_lower_options) is set from a LowerOptions field."""
    signature = (_core.lower.__doc__ or "").split(")", 1)[0]
    core = set(re.findall(r"(\w+)=", signature)) - {"graph"}
    assert core == set(LowerOptions().core_kwargs())
    user = {f.name for f in dataclasses.fields(LowerOptions)} - {"inner", "planar_inputs"}
    assert set(_options.USER_OPTIONS) == user
    assert set(cli.LOWERING_FLAGS) == user - {"fallback"}  # the CLI lowers programs: no eager fallback


@pytest.mark.parametrize("division", [-1, 2])
def test_core_binding_rejects_an_unknown_division(division: int) -> None:
    ir = _fx_to_ir.fx_to_ir(division_graph()[0]).text
    with pytest.raises(ValueError, match="division"):
        _core.lower(ir, division=division)
    assert "aten.maximum.default" in _core.lower(ir, division=1)


def division_graph() -> tuple[torch.fx.GraphModule, tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(3)
    z, w = (torch.randn(8, dtype=torch.complex64, generator=g) for _ in range(2))
    return make_fx(torch.div)(z, w), (z, w)


def test_division_changes_the_lowered_graph_as_documented() -> None:
    """"c10" is Smith's algorithm (which of |c|, |d| is larger picks the ratio: a comparison and selects); "scaled"
    divides both operands by max(|c|, |d|). Both compute the quotient."""
    gm, (z, w) = division_graph()
    c10, scaled = realify.lower(gm), realify.lower(gm, division="scaled")
    assert "aten.ge.Tensor" in _ops(c10) and "aten.maximum.default" not in _ops(c10)
    assert "aten.maximum.default" in _ops(scaled) and "aten.ge.Tensor" not in _ops(scaled)
    args = (torch.view_as_real(z), torch.view_as_real(w))
    for low in (c10, scaled):
        torch.testing.assert_close(torch.view_as_complex(low(*args)), z / w, rtol=1e-5, atol=1e-6)
    assert realify.lower(gm, division="c10").graph.python_code("self").src == c10.graph.python_code("self").src


def test_division_reaches_the_backend() -> None:
    gm, (z, w) = division_graph()
    events: list[CompileEvent] = []
    torch._dynamo.reset()
    f = torch.compile(torch.div, backend="realify",
                      options={"backend": "eager", "division": "scaled", "on_lowered": events.append})
    torch.testing.assert_close(f(z, w), z / w, rtol=1e-5, atol=1e-6)
    assert events and "aten.maximum.default" in _ops(events[0].graph_after)


def test_options_are_checked_once_when_made() -> None:
    with pytest.raises(ValueError, match="division must be one of 'c10', 'scaled', got 'smith'"):
        LowerOptions(division="smith")
    with pytest.raises(TypeError, match="division must be a string"):
        LowerOptions(division=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cleanup must be True or False"):
        LowerOptions(cleanup=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        dataclasses.replace(LowerOptions(), target="tpu")  # a changed copy is checked as well
    with pytest.raises(dataclasses.FrozenInstanceError):
        LowerOptions().target = "onnx"  # type: ignore[misc]
    gm, _ = division_graph()
    with pytest.raises(TypeError, match="options or keywords, not both"):
        lower_graph_module(gm, LowerOptions(), target="onnx")


def test_planar_has_one_meaning_per_field() -> None:
    """`planar`: buffers and constants; `planar_inputs`: table inputs, which only the backend's adapter can split,
    so the backend's option `planar` sets both and realify.lower's sets the first."""
    assert LowerOptions(planar=True).core_kwargs()["planar"] == PLANAR_CONSTS
    assert LowerOptions(planar=True, planar_inputs=True).core_kwargs()["planar"] == PLANAR_CONSTS | PLANAR_INPUTS
    assert lower_options("eager").core_kwargs()["planar"] == PLANAR_CONSTS | PLANAR_INPUTS  # the backend's default
    assert lower_options("eager", {"planar": False}).core_kwargs()["planar"] == 0


def test_auto_and_defaults_follow_the_receiver() -> None:
    assert LowerOptions().strategy == "matmul" and LowerOptions(inner="inductor").strategy == "native"
    assert LowerOptions(fft="onnx-dft", inner="inductor").strategy == "onnx-dft"
    trt = lower_options("torch_tensorrt")
    assert (trt.target, trt.strategy, trt.pair_words) == ("tensorrt", "matmul", False)
    ind = lower_options("inductor")
    assert (ind.target, ind.strategy, ind.pair_words) == ("inductor", "native", True)
    assert lower_options("inductor", {"target": "portable"}).pair_words is False
    given = {"division": "scaled", "mode": None}
    assert lower_options("eager", given).division == "scaled" and given == {"mode": None}  # its own keys taken


def test_version_is_one_string() -> None:
    assert realify.__version__ == _version.__version__ == _core.version
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"] == _version.__version__
