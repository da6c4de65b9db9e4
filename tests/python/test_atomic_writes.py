"""Outputs are written atomically: a signal mid-write, a failing writer, an output equal to the input or an existing
output without --force never damage a file that was there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import realify
import torch
from realify import cli
from realify._atomic import SLOW_WRITE_ENV

PYTHONPATH = str(Path(realify.__file__).resolve().parents[1])


class ComplexIO(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(64, dtype=torch.complex64, generator=torch.Generator().manual_seed(5)))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return z * self.w


ARGS = (torch.randn(3, 64, dtype=torch.complex64),)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("atomic")
    torch.export.save(torch.export.export(ComplexIO(), ARGS), d / "in.pt2")
    return d


def _partials(d: Path) -> list[str]:
    return [f for f in os.listdir(d) if f.endswith(".partial")]


def _default_sigint() -> None:
    """A child inherits an ignored SIGINT (pytest started in the background of a script), and Python then keeps
    it ignored: the CLI would honour that and never see the signal this test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_signal_mid_write_keeps_the_old_file_and_exits_130(work: Path) -> None:
    env = dict(os.environ, PYTHONPATH=PYTHONPATH, OMP_NUM_THREADS="1", **{SLOW_WRITE_ENV: "120"})
    procs: dict[signal.Signals, tuple[subprocess.Popen[str], Path, bytes]] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        sub = work / sig.name
        sub.mkdir()
        out = sub / "out.pt2"
        out.write_bytes(b"the previous artifact " * 100)
        p = subprocess.Popen([sys.executable, "-m", "realify", "lower", str(work / "in.pt2"), "-o", str(out),
                              "--force", "-q"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=_default_sigint)
        procs[sig] = (p, out, out.read_bytes())
    for sig, (p, out, before) in procs.items():
        deadline = time.monotonic() + 300
        while not any((out.parent / d / "out.pt2").exists() for d in _partials(out.parent)):  # written, not renamed
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()
            time.sleep(0.1)
        p.send_signal(sig)
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 130, (sig, stderr)
        assert "Traceback" not in stderr and stdout == ""
        assert stderr.strip().splitlines() == [stderr.strip()], stderr
        assert stderr.startswith(f"realify: error: interrupted ({sig.name})"), stderr
        assert out.read_bytes() == before, f"{sig.name} changed the previous file"
        assert _partials(out.parent) == [], "the temporary folder is left behind"


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().err.strip()


def test_output_paths_are_checked_before_any_work(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = work / "in.pt2"
    before = src.read_bytes()
    code, err = _main(capsys, "lower", str(src), "-o", str(src), "-q")
    assert code == 2 and "is also the input" in err and src.read_bytes() == before
    code, err = _main(capsys, "lower", str(src), "-o", str(src), "-q", "--force")
    assert code == 2 and "is also the input" in err and src.read_bytes() == before
    out = work / "existing.pt2"
    out.write_bytes(b"keep me")
    code, err = _main(capsys, "lower", str(src), "-o", str(out), "-q")
    assert code == 2 and "exists (pass --force" in err and out.read_bytes() == b"keep me"
    (work / "dir.pt2").mkdir()
    code, err = _main(capsys, "lower", str(src), "-o", str(work / "dir.pt2"), "-q")
    assert code == 2 and "is a directory" in err
    code, err = _main(capsys, "lower", str(src), "-o", str(out), "-q", "--force")
    assert code == 0, err
    assert realify.load(out)(*ARGS).shape == (3, 64)
    assert _partials(work) == []


def test_a_failing_save_leaves_the_previous_file(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ep = realify.lower(torch.export.export(ComplexIO(), ARGS))
    out = work / "api.pt2"
    realify.save(ep, out)
    before = out.read_bytes()

    def broken(ep: Any, f: Any, **kw: Any) -> None:
        Path(f).write_bytes(b"half an archive")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(torch.export, "save", broken)
    with pytest.raises(OSError, match="No space"):
        realify.save(ep, out)
    assert out.read_bytes() == before and _partials(work) == []


def test_export_onnx_to_a_path_is_atomic(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript")
    ep = torch.export.export(ComplexIO(), ARGS)
    out = work / "m.onnx"
    realify.export_onnx(ep, ARGS, f=str(out))
    assert realify.load(out)(*ARGS).shape == (3, 64)
    before = out.read_bytes()
    program_type = type(realify.export_onnx(ep, ARGS))

    def broken(self: Any, destination: Any, **kw: Any) -> None:
        Path(destination).write_bytes(b"half a model")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(program_type, "save", broken)
    with pytest.raises(OSError, match="No space"):
        realify.export_onnx(ep, ARGS, f=str(out))
    assert out.read_bytes() == before and _partials(work) == []
