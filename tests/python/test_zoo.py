"""The model zoo (realify_examples.zoo): every model lowers to a real-only program that matches eager PyTorch."""

from __future__ import annotations

import pytest
import realify
import torch
from realify_examples import zoo


def zoo_params() -> list:
    """One pytest param per zoo model; a known lowering failure is a strict xfail, so fixing it fails the test
    until the mark is removed."""
    params = []
    for e in zoo.ZOO:
        marks = []
        if e.known_failure is not None:
            exc, reason = e.known_failure
            marks.append(pytest.mark.xfail(raises=exc, strict=True, reason=reason))
        params.append(pytest.param(e.name, marks=marks, id=e.name))
    return params


def lowered_zoo_model(name: str) -> tuple[zoo.ZooEntry, torch.nn.Module, tuple, torch.export.ExportedProgram]:
    e = zoo.entry(name)
    model = e.make().eval()
    args = e.inputs()
    ep = realify.lower(torch.export.export(model, args), truncate_double=e.truncate_double)
    return e, model, args, ep


@pytest.mark.parametrize("name", zoo_params())
def test_zoo_model_lowers_and_matches_eager(name: str) -> None:
    e, model, args, ep = lowered_zoo_model(name)
    for node in ep.graph.nodes:  # truncate_double leaves no float64 anywhere, the caller's real inputs included
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor):
            assert not val.is_complex(), node.format_node()
            assert not (e.truncate_double and val.dtype == torch.float64), node.format_node()
    err = zoo.max_rel_error(model(*args), ep.module()(*zoo.real_inputs(e, args)))
    assert err <= e.rtol, f"{name}: max relative error {err:.3g} > {e.rtol:g}"


def test_zoo_inputs_are_deterministic() -> None:
    for e in zoo.ZOO:
        for a, b in zip(e.inputs(), e.inputs(), strict=True):
            assert torch.equal(a, b), e.name
        sd1, sd2 = e.make().state_dict(), e.make().state_dict()
        assert all(torch.equal(sd1[k], sd2[k]) for k in sd1), e.name


def test_zoo_covers_the_complex_features_it_claims() -> None:
    kinds = {e.name: {a.dtype for a in e.inputs()} for e in zoo.ZOO}
    assert torch.complex64 in kinds["llama3_rope_input"]  # freqs_cis as a graph input
    assert torch.complex64 in kinds["complex_mlp"] and torch.complex64 in kinds["mri_recon"]
    assert torch.complex128 in kinds["phase_math_c128"] and torch.bfloat16 in kinds["yarn_rope_bf16"]
    assert any(b.is_complex() for b in zoo.entry("llama3_rope_buffer").make().buffers())
    assert any(p.is_complex() for p in zoo.entry("complex_mlp").make().parameters())
    with pytest.raises(KeyError, match="no zoo model"):
        zoo.entry("nope")
