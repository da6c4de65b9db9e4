"""Tampered artifacts never run code: a pickle whose __reduce__ writes a marker file, planted in every member of a
lowered .pt2 in turn, an eval in a symbolic expression, an os.system op target. Each load refuses with a clean
error (realify.ArtifactError; the CLI exits 2 with one line) and the marker never appears."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import realify
import torch
from payloads import payloads
from realify._safe_load import ArtifactError, UnsafeArtifactError, load_exported_program
from realify.artifact import read_record

PYTHONPATH = str(Path(realify.__file__).resolve().parents[1])


class ComplexIO(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(6, dtype=torch.complex64, generator=torch.Generator().manual_seed(3)))
        self.register_buffer("c", torch.randn(6, dtype=torch.complex64, generator=torch.Generator().manual_seed(4)))

    def forward(self, z: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        return z * self.w + self.c * z.shape[0] + n


@pytest.fixture(scope="module")
def lowered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("sec")
    args = (torch.randn(4, 6, dtype=torch.complex64), torch.randn(4, 6))
    ep = torch.export.export(ComplexIO(), args, dynamic_shapes=({0: torch.export.Dim("n")}, {0: torch.export.Dim("n")}))
    realify.save(realify.lower(ep), d / "low.pt2")
    return d / "low.pt2"


def _rewrite(src: Path, dst: Path, member: str, data: bytes) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            zout.writestr(info, data if info.filename == member else zin.read(info.filename))


def test_the_artifact_loads_untampered(lowered: Path) -> None:
    prog = realify.load(lowered)
    z, n = torch.randn(3, 6, dtype=torch.complex64), torch.randn(3, 6)
    m = ComplexIO()
    torch.testing.assert_close(prog(z, n), m(z, n))
    assert len(zipfile.ZipFile(lowered).namelist()) >= 10  # the test below plants into each of these


def test_payload_in_every_member_never_runs(lowered: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    members = zipfile.ZipFile(lowered).namelist()
    seen = 0
    accepted: list[str] = []
    for kind, payload in payloads(marker).items():
        for member in members:
            evil = tmp_path / f"evil_{seen}.pt2"
            _rewrite(lowered, evil, member, payload)
            for load in (realify.load, read_record, load_exported_program):
                try:
                    load(evil)
                    accepted.append(f"{kind} in {member} under {load.__name__}")
                except (ArtifactError, ValueError) as e:
                    msg = str(e)
                    assert "\n" not in msg and str(evil) in msg, (member, msg)
                assert not marker.exists(), f"{kind} payload in {member} ran under {load.__name__}"
            seen += 1
    assert seen == 2 * len(members)
    assert not accepted, f"tampered members loaded without an error: {accepted}"


def test_pickled_weight_config_is_refused(lowered: Path, tmp_path: Path) -> None:
    """A config that marks a weight as pickled makes torch unpickle it with weights_only=False."""
    marker = tmp_path / "marker"
    z = zipfile.ZipFile(lowered)
    cfg_name = next(n for n in z.namelist() if n.endswith("model_weights_config.json"))
    cfg = json.loads(z.read(cfg_name))
    entry = next(iter(cfg["config"].values()))
    entry["use_pickle"] = True
    weight = f"{cfg_name.split('/')[0]}/data/weights/{entry['path_name']}"
    step = tmp_path / "step.pt2"
    _rewrite(lowered, step, cfg_name, json.dumps(cfg).encode())
    evil = tmp_path / "evil.pt2"
    _rewrite(step, evil, weight, payloads(marker)["torch.save"])
    with pytest.raises(UnsafeArtifactError, match="holds objects other than tensors"):
        realify.load(evil)
    assert not marker.exists()


def _edit_program(src: Path, dst: Path, edit: object) -> None:
    z = zipfile.ZipFile(src)
    name = next(n for n in z.namelist() if "/models/" in n and n.endswith(".json"))
    _rewrite(src, dst, name, edit(z.read(name).decode()).encode())  # type: ignore[operator]


def test_eval_in_a_symbolic_expression_is_refused(lowered: Path, tmp_path: Path) -> None:
    """torch's deserializer hands each symbolic size to sympy.sympify, which evals it."""
    marker = tmp_path / "marker"
    code = f"__import__('builtins').open('{marker}', 'w')"
    evil = tmp_path / "evil.pt2"

    def edit(text: str) -> str:
        doc = json.loads(text)
        hits = 0
        stack = [doc]
        while stack:
            x = stack.pop()
            if isinstance(x, dict):
                if "expr_str" in x:
                    x["expr_str"], hits = code, hits + 1
                stack.extend(x.values())
            elif isinstance(x, list):
                stack.extend(x)
        assert hits, "the dynamic program has symbolic sizes"
        return json.dumps(doc)

    _edit_program(lowered, evil, edit)
    with pytest.raises(UnsafeArtifactError, match="symbolic expression"):
        realify.load(evil)
    assert not marker.exists()


def test_a_python_function_as_op_target_is_refused(lowered: Path, tmp_path: Path) -> None:
    """The deserializer resolves `torch.<anything>` by getattr, so torch.os.system is a node target to it (torch's
    verifier refuses it for ExportedPrograms; realify checks every graph module again). torch 2.11's deserializer
    refuses the target itself, which realify reports as a file torch.export.save did not write."""
    evil = tmp_path / "evil.pt2"
    _edit_program(lowered, evil, lambda t: t.replace('"torch.ops.aten.mul.Tensor"', '"torch.os.system"', 1))
    with pytest.raises(ArtifactError, match="operator|not a program saved by torch.export.save"):
        realify.load(evil)


def test_cli_refuses_tampered_artifacts_with_exit_2(lowered: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    z = zipfile.ZipFile(lowered)
    sample = next(n for n in z.namelist() if "sample_inputs" in n)
    evil = tmp_path / "evil.pt2"
    _rewrite(lowered, evil, sample, payloads(marker)["torch.save"])
    env = dict(os.environ, PYTHONPATH=PYTHONPATH, OMP_NUM_THREADS="1")
    for argv in (["inspect", str(evil)], ["lower", str(evil), "-o", str(tmp_path / "o.pt2"), "--verify"]):
        p = subprocess.run([sys.executable, "-m", "realify", *argv, "-q"], capture_output=True, text=True, env=env,
                           timeout=300)
        assert p.returncode == 2, p.stderr
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("realify: error: ") and "sample_inputs" in lines[0], p.stderr
        assert "Traceback" not in p.stderr
        assert not marker.exists()
