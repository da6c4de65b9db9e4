"""The `realify` command end to end, as a deployer runs it: saved programs in, lowered .pt2/ONNX out, --verify,
reports, inspect, exit codes; and realify.load of the written files in a fresh process.

Starting torch costs a few seconds per process, so the command runs are started together, once per module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import realify
import torch
from realify import cli
from realify.artifact import read_record
from realify.inspection import lower_accepts
from realify_examples import llama3

pytest.importorskip("onnx", reason="ONNX output needs the onnx package (make test installs it)")
pytest.importorskip("onnxruntime", reason="realify.load of ONNX needs onnxruntime (make test installs it)")
pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")

ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = str(Path(realify.__file__).resolve().parents[1])
REPORT_FIELDS = {"command", "realify_version", "torch_version", "status", "exit_code", "error", "timings_s", "input",
                 "output", "format", "options", "analysis", "nodes_before", "nodes_after", "signature", "verify"}


class Rope(torch.nn.Module):
    """Llama 3's rotary embedding with freqs_cis as a complex input, from the project's model."""

    def forward(self, xq: torch.Tensor, xk: torch.Tensor, freqs_cis: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return llama3.apply_rotary_emb(xq, xk, freqs_cis)


class Spectral(torch.nn.Module):
    """rfft, a complex weight per frequency (a complex parameter), irfft."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(n // 2 + 1, dtype=torch.complex64,
                                                     generator=torch.Generator().manual_seed(1)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.fft.rfft(x) * self.weight, n=x.shape[-1])


class ComplexIO(torch.nn.Module):
    """Complex input and complex output next to real ones."""

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(6, dtype=torch.complex64, generator=torch.Generator().manual_seed(2)))

    def forward(self, z: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = z * self.w + z.conj() * x
        return y, (y * x).real


class Unsupported(torch.nn.Module):
    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return torch.linalg.eigvals(z) * 2  # UNSUPPORTED-LINE (non-Hermitian eig: no rule)


def _args() -> dict[str, tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(0)
    return {
        "rope": (torch.randn(2, 8, 4, 16, generator=g), torch.randn(2, 8, 2, 16, generator=g),
                 llama3.precompute_freqs_cis(16, 8)),
        "fft": (torch.randn(3, 32, generator=g),),
        "cio": (torch.randn(4, 6, dtype=torch.complex64, generator=g), torch.randn(4, 6, generator=g)),
        "unsup": (torch.randn(3, 3, dtype=torch.complex64, generator=g),),
    }


MODELS = {"rope": Rope(), "fft": Spectral(32), "cio": ComplexIO(), "unsup": Unsupported()}


def realify_cmd(*args: str, script: bool = False) -> list[str]:
    exe = Path(sys.executable).parent / "realify"
    if script and exe.exists():  # the console script, when this environment installed it
        return [str(exe), *args]
    return [sys.executable, "-m", "realify", *args]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([PYTHONPATH, os.environ.get("PYTHONPATH", "")]),
                OMP_NUM_THREADS="1")


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    d = tmp_path_factory.mktemp("cli")
    args = _args()
    for name, model in MODELS.items():
        torch.export.save(torch.export.export(model, args[name]), d / f"{name}.pt2")
    torch.save(args["rope"], d / "rope_in.pt")
    (d / "corrupt.pt2").write_bytes(b"PK\x03\x04 this is not a zip archive")
    runs = {
        "cio_pt2": realify_cmd("lower", "cio.pt2", "-o", "cio_low.pt2", "--verify", "--json", "-q", script=True),
        "cio_onnx": realify_cmd("lower", "cio.pt2", "-o", "cio.onnx", "--verify", "--report", "cio_onnx.json"),
        "inspect": realify_cmd("inspect", "unsup.pt2"),
        "corrupt": realify_cmd("lower", "corrupt.pt2", "-o", "x.pt2", "-q"),
    }
    procs = {k: subprocess.Popen(c, cwd=d, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k, c in runs.items()}
    done = {}
    for k, p in procs.items():
        out, err = p.communicate(timeout=600)
        done[k] = (p.returncode, out, err)
    return {"dir": d, "args": args, "runs": done}


def _ok(run: tuple[int, str, str]) -> None:
    assert run[0] == 0, run[2]


def test_lower_pt2_with_complex_io_verifies_and_prints_json(work: dict[str, Any]) -> None:
    run = work["runs"]["cio_pt2"]
    _ok(run)
    assert run[2] == ""  # -q: nothing on stderr
    rep = json.loads(run[1])
    assert rep["status"] == "ok" and rep["exit_code"] == 0 and rep["format"] == "pt2"
    assert rep["analysis"]["complex_inputs"] == ["z"] and rep["analysis"]["complex_params"] == ["w"]
    sig = rep["signature"]
    ins = [(b["position"], b["complex_dtype"], b["real_dtype"]) for b in sig["inputs"]]
    assert ins == [(0, "complex64", "float32")]
    assert [b["position"] for b in sig["outputs"]] == [0]
    assert rep["verify"]["passed"] and len(rep["verify"]["outputs"]) == 2
    assert read_record(work["dir"] / "cio_low.pt2") == sig  # the .pt2 carries what the report says
    assert all(o["max_rel"] <= o["tol"] for o in rep["verify"]["outputs"])


def test_lower_onnx_report_has_documented_fields(work: dict[str, Any]) -> None:
    run = work["runs"]["cio_onnx"]
    _ok(run)
    assert "verifying" in run[2] and "done" in run[2].splitlines()[-1]  # progress lines on stderr
    rep = json.loads((work["dir"] / "cio_onnx.json").read_text())
    assert REPORT_FIELDS <= set(rep), REPORT_FIELDS - set(rep)
    assert rep["format"] == "onnx" and rep["verify"]["passed"]
    assert set(rep["timings_s"]) == {"load", "lower", "save", "verify"}
    for o in rep["verify"]["outputs"]:
        assert set(o) >= {"index", "dtype", "shape", "max_abs", "max_rel", "tol", "passed"}
    assert rep["verify"]["outputs"][0]["dtype"] == "complex64" and rep["verify"]["outputs"][0]["shape"] == [4, 6]
    import onnx

    model = onnx.load(str(work["dir"] / "cio.onnx"))
    meta = {p.key: p.value for p in model.metadata_props}
    assert json.loads(meta["realify.signature"]) == rep["signature"]
    assert meta["realify.version"] == realify.__version__
    types = {i.type.tensor_type.elem_type for i in list(model.graph.input) + list(model.graph.output)}
    assert not types & {onnx.TensorProto.COMPLEX64, onnx.TensorProto.COMPLEX128}


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().err


# The commands below run in this process (cli.main, what the console script calls): no torch start-up each.
def test_rope_with_input_file_and_fft_verify(work: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    d = work["dir"]
    code, err = _main(capsys, "lower", str(d / "rope.pt2"), "-o", str(d / "rope_low.pt2"), "--verify", "--inputs",
                      str(d / "rope_in.pt"), "--report", str(d / "rope.json"))
    assert code == 0, err
    rep = json.loads((d / "rope.json").read_text())
    assert rep["verify"]["inputs"] == f"file:{d / 'rope_in.pt'}" and rep["verify"]["passed"]
    assert rep["analysis"]["complex_inputs"] == ["freqs_cis"] and rep["signature"]["outputs"] == []
    code, err = _main(capsys, "lower", str(d / "fft.pt2"), "-o", str(d / "fft_low.pt2"), "--verify", "--report",
                      str(d / "fft.json"), "-q")
    assert code == 0, err
    rep = json.loads((d / "fft.json").read_text())
    assert rep["analysis"]["complex_params"] == ["weight"] and rep["verify"]["passed"]
    assert [d["op"] for d in rep["analysis"]["dft_matmuls"]] == ["aten.fft_rfft.default", "aten.fft_irfft.default"]
    assert rep["verify"]["inputs"].startswith("random")
    assert 0 < rep["verify"]["outputs"][0]["max_rel"] <= 1e-4  # DFT as matmul vs pocketfft: close, not equal


@pytest.mark.parametrize("fft", [None, "onnx-dft"])
def test_onnx_output_fft_strategies(work: dict[str, Any], capsys: pytest.CaptureFixture[str],
                                    fft: str | None) -> None:
    import onnx

    d = work["dir"]
    out, rep_path = d / f"fft_{fft}.onnx", d / f"fft_{fft}.json"
    extra = ["--fft", fft] if fft else []
    code, err = _main(capsys, "lower", str(d / "fft.pt2"), "-o", str(out), "--verify", "--report", str(rep_path),
                      "--opset", "18", *extra)
    assert code == 0, err
    rep = json.loads(rep_path.read_text())
    assert rep["verify"]["passed"] and rep["options"]["fft"] == (fft or "matmul")
    ops = [n.op_type for n in onnx.load(str(out)).graph.node]
    assert ops.count("DFT") == (2 if fft else 0)  # rfft and irfft: one DFT node each with --fft onnx-dft
    if not fft:
        code, err = _main(capsys, "lower", str(d / "fft.pt2"), "-o", str(d / "x.onnx"), "--opset", "16", "--fft",
                          "onnx-dft")
        assert code == 2 and "opset >= 17" in err


def test_inspect_lists_unsupported_op_with_source_line(work: dict[str, Any]) -> None:
    code, out, err = work["runs"]["inspect"]
    assert code == 2
    line = next(i for i, s in enumerate(Path(__file__).read_text().splitlines(), 1) if "# UNSUPPORTED-LINE" in s)
    missing = out.split("ops without rules")[1].split("lowering:")[0]
    assert "aten.linalg_eigvals.default (node " in missing and f"test_cli.py:{line} in forward" in missing, out
    assert "complex inputs: 0:z complex64[3, 3]" in out
    assert err.splitlines()[-1].startswith("realify: error: cannot lower aten.linalg_eigvals.default")


def test_corrupt_file_gives_one_line_and_exit_2(work: dict[str, Any]) -> None:
    code, out, err = work["runs"]["corrupt"]
    assert code == 2 and out == ""
    assert err.splitlines() == [err.strip()] and err.startswith("realify: error: corrupt.pt2: not a program saved")


def test_lowered_files_load_in_fresh_process(work: dict[str, Any]) -> None:
    d = work["dir"]
    _ok(work["runs"]["cio_pt2"])
    _ok(work["runs"]["cio_onnx"])
    torch.save(work["args"]["cio"], d / "cio_in.pt")
    # the Python API, saved with plain torch.export.save: the signature rides in the graph's node metadata
    torch.export.save(realify.lower(torch.export.load(d / "cio.pt2")), d / "cio_plain.pt2")
    script = (
        "import torch, realify\n"
        "z, x = torch.load('cio_in.pt')\n"
        "res = {p: realify.load(p)(z, x) for p in ('cio_low.pt2', 'cio.onnx', 'cio_plain.pt2')}\n"
        "torch.save(res, 'loaded_out.pt')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=d, env=_env(), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    ref = MODELS["cio"](*work["args"]["cio"])
    loaded = torch.load(d / "loaded_out.pt")
    assert len(loaded) == 3
    for path, (y, a) in loaded.items():
        assert y.dtype == torch.complex64 and a.dtype == torch.float32, path
        torch.testing.assert_close(y, ref[0], rtol=1e-5, atol=1e-6, msg=path)
        torch.testing.assert_close(a, ref[1], rtol=1e-5, atol=1e-6, msg=path)


def test_load_refuses_files_without_signature_and_real_args(work: dict[str, Any]) -> None:
    d = work["dir"]
    with pytest.raises(ValueError, match="carries no realify signature"):
        realify.load(d / "cio.pt2")  # the original program: nothing realify wrote
    _ok(work["runs"]["cio_pt2"])
    z, x = work["args"]["cio"]
    with pytest.raises(TypeError, match=r"input 0 \(z\) must be a complex64 tensor"):
        realify.load(d / "cio_low.pt2")(torch.view_as_real(z), x)


def test_verify_failure_exits_1(work: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    d = work["dir"]
    code, err = _main(capsys, "lower", str(d / "fft.pt2"), "-o", str(d / "fft_tol0.pt2"), "--verify", "--tol", "0",
                      "-q", "--report", str(d / "fail.json"))
    assert code == 1
    assert err.strip() == "realify: error: verification failed: output(s) 0 above tolerance"
    rep = json.loads((d / "fail.json").read_text())
    assert rep["status"] == "verify_failed" and rep["exit_code"] == 1 and not rep["verify"]["passed"]


def test_report_of_a_failed_run_has_every_field(work: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    d = work["dir"]
    code, err = _main(capsys, "lower", str(d / "nope.pt2"), "-o", str(d / "x.onnx"), "-q", "--report",
                      str(d / "err.json"))
    rep = json.loads((d / "err.json").read_text())
    assert code == 2 and REPORT_FIELDS <= set(rep), REPORT_FIELDS - set(rep)
    assert rep["status"] == "error" and rep["exit_code"] == 2 and rep["error"] in err and rep["verify"] is None


@pytest.mark.parametrize("argv, message", [
    (["lower", "{d}/nope.pt2", "-o", "{d}/x.pt2"], "{d}/nope.pt2: no such file"),
    (["inspect", "{d}"], "{d}: is a directory"),
    (["lower", "{d}/cio.pt2", "-o", "{d}/x.txt"], "the output must end in .pt2 or .onnx"),
    (["lower", "{d}/cio.pt2", "-o", "{d}/no/such/dir/x.pt2"], "does not exist"),
    (["lower", "{d}/cio.pt2", "-o", "{d}/x.pt2", "--opset", "18"], "--opset applies to ONNX output only"),
    (["lower", "{d}/cio.pt2", "-o", "{d}/x.pt2", "--inputs", "{d}/rope_in.pt"], "apply with --verify only"),
    (["lower", "{d}/cio.pt2", "-o", "{d}/x.pt2", "--verify", "--inputs", "{d}/none.pt"], "{d}/none.pt: no such file"),
    (["lower", "{d}/cio.pt2", "-o", "{d}/x.pt2", "--verify", "--inputs", "{d}/corrupt.pt2"], "cannot read the inputs"),
])
def test_bad_input_exits_2_with_one_line(work: dict[str, Any], capsys: pytest.CaptureFixture[str], argv: list[str],
                                         message: str) -> None:
    d = str(work["dir"])
    code, err = _main(capsys, *[a.format(d=d) for a in argv], "-q")
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("realify: error: ") and message.format(d=d) in lines[0], err


@pytest.mark.parametrize("flag, value", [("target", "tensorrt"), ("fft", "matmul")])
def test_target_and_fft_flags(work: dict[str, Any], capsys: pytest.CaptureFixture[str], flag: str, value: str) -> None:
    d = work["dir"]
    code, err = _main(capsys, "lower", str(d / "rope.pt2"), "-o", str(d / f"rope_{flag}.pt2"), f"--{flag}", value,
                      "-q", "--report", str(d / f"{flag}.json"))
    if lower_accepts(flag):
        assert code == 0, err
        assert json.loads((d / f"{flag}.json").read_text())["options"][flag] == value
    else:
        assert code == 2
        assert err.strip().endswith(f"not supported by this build of realify (realify.lower has no {flag}=)")


@pytest.mark.parametrize("target", ["openvino", "coreml"])
def test_every_core_target_is_a_flag(work: dict[str, Any], capsys: pytest.CaptureFixture[str], target: str) -> None:
    """--target offers every target the C core names (realify.targets.TARGETS), openvino and coreml included, and
    --division reaches the lowering with the other options."""
    from realify.targets import TARGETS

    for name in TARGETS:
        assert cli._parser().parse_args(["lower", "in.pt2", "-o", "out.pt2", "--target", name]).target == name
    d = work["dir"]
    code, err = _main(capsys, "lower", str(d / "cio.pt2"), "-o", str(d / f"cio_{target}.pt2"), "--target", target,
                      "--division", "scaled", "-q", "--report", str(d / f"{target}.json"))
    assert code == 0, err
    options = json.loads((d / f"{target}.json").read_text())["options"]
    assert options["target"] == target and options["division"] == "scaled"
    with pytest.raises(SystemExit):
        cli._parser().parse_args(["lower", "in.pt2", "-o", "out.pt2", "--target", "tpu"])


def test_console_script_is_declared() -> None:
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, func = scripts["realify"].split(":")
    assert module == "realify.cli" and callable(getattr(cli, func))
