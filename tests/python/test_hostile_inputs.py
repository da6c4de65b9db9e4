"""Hostile arguments get the documented exit code and one line (docs/security.md lists each case before and
after), and options are checked by type before any work."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import realify
import torch
from realify import _core, cli
from realify.backend import realify_backend

IR = "graph {\n  input %x: c64[3]\n  %y: f32[3] = aten.abs.default(self=%x)\n  output (%y)\n}"


class Mul(torch.nn.Module):
    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return z * z


class Big(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.polar(x, x))


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("hostile")
    torch.export.save(torch.export.export(Mul(), (torch.randn(4, dtype=torch.complex64),)), d / "in.pt2")
    big = torch.zeros(1).expand(2**20, 2**20)  # 2^40 elements in one stored element
    torch.export.save(torch.export.export(Big(), (big,)), d / "big.pt2")
    return d


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main([*argv, "-q"])
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [err] or code == 0, err
    return code, err


def test_options_are_checked_by_type_first() -> None:
    ep = torch.export.export(Mul(), (torch.randn(4, dtype=torch.complex64),))
    with pytest.raises(TypeError, match="truncate_double must be True or False"):
        realify.lower(ep, truncate_double="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="planar must be True or False"):
        realify.lower(ep, planar=1)  # type: ignore[arg-type]
    gm = torch.fx.symbolic_trace(Mul())
    with pytest.raises(TypeError, match="on_lowered must be a callable"):
        realify_backend(gm, [torch.randn(4, dtype=torch.complex64)], options={"on_lowered": 5})
    with pytest.raises(TypeError, match="truncate_double"):
        realify_backend(gm, [torch.randn(4, dtype=torch.complex64)], options={"truncate_double": "no"})


@pytest.mark.parametrize("kw", [{"planar": -1}, {"planar": 4}, {"target": -1}, {"target": 3}, {"fft": -1}])
def test_core_binding_rejects_out_of_range_options(kw: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        _core.lower(IR, **kw)
    assert "aten.maximum" in _core.lower(IR, planar=3, target=2)  # valid values still lower


def test_relowering_a_lowered_artifact_is_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _main(capsys, "lower", str(work / "in.pt2"), "-o", str(work / "low.pt2"))
    assert code == 0, err
    code, err = _main(capsys, "lower", str(work / "low.pt2"), "-o", str(work / "low2.pt2"))
    assert code == 2 and "already lowered by realify" in err
    with pytest.raises(ValueError, match="already lowered"):
        realify.lower(realify.load(work / "low.pt2").exported_program)  # type: ignore[attr-defined]


def test_cli_failures_exit_2_with_one_line(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _main(capsys, "lower", str(work / "big.pt2"), "-o", str(work / "b.pt2"), "--verify")
    assert code == 2 and "--verify: the program's example inputs hold 1099511627776 elements" in err
    assert not (work / "b.pt2").exists()  # refused before lowering or writing
    (work / "out.pt2").mkdir()
    code, err = _main(capsys, "lower", str(work / "in.pt2"), "-o", str(work / "out.pt2"))
    assert code == 2 and "is a directory" in err
    code, err = _main(capsys, "lower", str(work / "in.pt2"), "-o", "/proc/realify-test.pt2")
    assert code == 2 and ("cannot write" in err or "not writable" in err), err
    raw = bytearray((work / "low.pt2").read_bytes()) if (work / "low.pt2").exists() else None
    if raw is None:
        pytest.skip("needs test_relowering_a_lowered_artifact_is_refused's output")
    with zipfile.ZipFile(work / "low.pt2") as z:
        info = next(i for i in z.infolist() if i.filename.endswith("signature.json"))
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    raw[start:start + info.file_size] = b"\xff" * info.file_size
    (work / "damaged.pt2").write_bytes(bytes(raw))
    code, err = _main(capsys, "inspect", str(work / "damaged.pt2"))
    assert code == 2 and "is not UTF-8 text" in err and "UnicodeDecodeError" not in err


def test_out_of_memory_in_the_core_is_a_memory_error() -> None:
    """Each allocation of a lowering fails in turn (the C core's test hook): MemoryError every time, never a crash,
    and the run past the last allocation lowers as usual."""
    want = None
    for k in range(10_000):
        _core.test_fail_allocation(k)
        try:
            got = _core.lower(IR)
        except MemoryError:
            continue
        finally:
            left = _core.test_fail_allocation(-1)
        assert left >= 0, f"allocation {k} failed and the lowering still succeeded"
        want = got
        break
    assert want == _core.lower(IR) and k > 3
