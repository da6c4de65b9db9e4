"""Hostile cases of issue 31, each run as a user would: prints one row per case (exit code, last stderr line).

Run against a tree with `PYTHONPATH=TREE/python python tools/hostile_cases.py`; docs/security.md holds the table
before and after. Cases that need a signal or a payload say what they saw (marker present = code ran)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))
from payloads import payloads  # noqa: E402  (the security tests' pickle payload)

IR = repr("graph {\n input %x: c64[3]\n %y: f32[3] = aten.abs.default(self=%x)\n output (%y)\n}")


class Cio(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(6, dtype=torch.complex64))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return z * self.w


class Big(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.polar(x, x))


def _run(argv: list[str], cwd: Path, **kw: object) -> tuple[int, str]:
    p = subprocess.run([sys.executable, *argv], cwd=cwd, capture_output=True, text=True, timeout=600, **kw)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    return p.returncode, (lines[-1] if lines else "")


def _cli(*args: str) -> list[str]:
    return ["-m", "realify", *args]


def tamper(src: Path, dst: Path, member: str, data: bytes) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            zout.writestr(info, data if info.filename == member else zin.read(info.filename))


def main() -> None:
    d = Path(tempfile.mkdtemp(prefix="hostile-"))
    torch.manual_seed(0)
    torch.export.save(torch.export.export(Cio(), (torch.randn(6, dtype=torch.complex64),)), d / "cio.pt2")
    wide = Cio()
    wide.w = torch.nn.Parameter(torch.randn(2_000_000, dtype=torch.complex64))
    torch.export.save(torch.export.export(wide, (torch.randn(2_000_000, dtype=torch.complex64),)), d / "wide.pt2")
    big = torch.zeros(1).expand(2**20, 2**20)
    torch.export.save(torch.export.export(Big(), (big,)), d / "big.pt2")
    rows: list[tuple[str, int | str, str]] = []

    rc, msg = _run(_cli("lower", "cio.pt2", "-o", "low.pt2", "-q"), d)
    rows.append(("realify lower cio.pt2 -o low.pt2", rc, msg))
    names = zipfile.ZipFile(d / "low.pt2").namelist()
    sample = next(n for n in names if "sample_inputs" in n)
    tamper(d / "low.pt2", d / "evil.pt2", sample, payloads(d / "marker")["torch.save"])
    for label, argv in (("realify inspect evil.pt2", _cli("inspect", "evil.pt2", "-q")),
                        ("realify lower evil.pt2 -o e.pt2 --verify", _cli("lower", "evil.pt2", "-o", "e.pt2",
                                                                          "--verify", "-q")),
                        ("realify.load('evil.pt2')", ["-c", "import realify; realify.load('evil.pt2')"])):
        (d / "marker").unlink(missing_ok=True)
        rc, msg = _run(argv, d)
        ran = "PAYLOAD RAN; " if (d / "marker").exists() else "payload did not run; "
        rows.append((f"{label} (sample inputs = pickle payload)", rc, ran + msg))

    before = (d / "low.pt2").read_bytes()
    rc, msg = _run(_cli("lower", "cio.pt2", "-o", "low.pt2", "-q"), d)
    rows.append(("realify lower cio.pt2 -o low.pt2 (exists)", rc, msg or "(overwritten silently)"))
    rc, msg = _run(_cli("lower", "cio.pt2", "-o", "cio.pt2", "-q"), d)
    rows.append(("realify lower cio.pt2 -o cio.pt2", rc, msg))
    (d / "low.pt2").write_bytes(before)
    # the case above may have overwritten cio.pt2 with its lowered form (it did before issue 31): start afresh
    torch.export.save(torch.export.export(Cio(), (torch.randn(6, dtype=torch.complex64),)), d / "cio.pt2")

    helptext = subprocess.run([sys.executable, *_cli("lower", "--help")], capture_output=True, text=True).stdout
    force = ["--force"] if "--force" in helptext else []
    for sig in (signal.SIGINT, signal.SIGTERM):
        subprocess.run([sys.executable, *_cli("lower", "wide.pt2", "-o", "wide_low.pt2", "-q", *force)], cwd=d,
                       check=True)
        good = (d / "wide_low.pt2").read_bytes()
        p = subprocess.Popen([sys.executable, *_cli("lower", "wide.pt2", "-o", "wide_low.pt2", *force)], cwd=d,
                             stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, REALIFY_TEST_SLOW_WRITE="5"))
        assert p.stderr is not None
        for line in p.stderr:
            if "writing" in line:
                break
        # with the slow-write test hook (new code) the write takes 5 s
        time.sleep(0.2 if force else float(os.environ.get("HOSTILE_SIGNAL_DELAY", "0")))
        p.send_signal(sig)
        err = p.stderr.read()
        p.wait()
        now = (d / "wide_low.pt2").read_bytes()
        intact = now == good
        whole = zipfile.is_zipfile(d / "wide_low.pt2")
        tb = "traceback; " if "Traceback" in err else ""
        state = "intact" if intact else "replaced whole" if whole else f"DESTROYED ({len(good)} -> {len(now)} bytes)"
        last = [ln for ln in err.splitlines() if ln.strip()][-1:] or [""]
        rows.append((f"{sig.name} during `realify lower wide.pt2 -o wide_low.pt2` (exists, 16 MB)", p.returncode,
                     f"{tb}old file {state}; {last[0]}"))
    (d / "low.pt2").write_bytes(before)

    (d / "outdir.pt2").mkdir()
    rc, msg = _run(_cli("lower", "cio.pt2", "-o", "outdir.pt2", "-q"), d)
    rows.append(("realify lower cio.pt2 -o outdir.pt2 (a directory)", rc, msg))
    rc, msg = _run(_cli("lower", "cio.pt2", "-o", "/proc/realify.pt2", "-q"), d)
    rows.append(("realify lower cio.pt2 -o /proc/realify.pt2 (unwritable)", rc, msg))
    rc, msg = _run(_cli("lower", "big.pt2", "-o", "big_low.pt2", "--verify", "-q"), d)
    rows.append(("realify lower big.pt2 --verify (2^40-element input)", rc, msg))

    raw = bytearray((d / "low.pt2").read_bytes())
    with zipfile.ZipFile(d / "low.pt2") as z:
        info = next(i for i in z.infolist() if i.filename.endswith("signature.json"))
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
        raw[start:start + info.file_size] = b"\xff" * info.file_size
    (d / "corrupt.pt2").write_bytes(bytes(raw))
    rc, msg = _run(_cli("inspect", "corrupt.pt2", "-q"), d)
    rows.append(("realify inspect corrupt.pt2 (signature.json bytes overwritten)", rc, msg))

    rc, msg = _run(_cli("lower", "low.pt2", "-o", "low2.pt2", "-q"), d)
    if rc == 0:
        code = ("from realify.artifact import read_record; r = read_record('low2.pt2'); "
                "print('complex inputs kept:', len(r['inputs']), file=__import__('sys').stderr)")
        _, msg2 = _run(["-c", code], d)
        msg = f"{msg} {msg2}".strip()
    rows.append(("realify lower low.pt2 -o low2.pt2 (re-lowering)", rc, msg))

    api = {
        "realify.lower(ep, truncate_double='no')": "import realify, torch; ep = torch.export.load('cio.pt2'); "
        "realify.lower(ep, truncate_double='no'); print('accepted', file=__import__('sys').stderr)",
        "torch.compile(m, backend='realify', options={'on_lowered': 5})":
        "import realify, torch; m = torch.compile(lambda z: z * z, backend='realify', "
        "options={'on_lowered': 5}); m(torch.randn(3, dtype=torch.complex64))",
        "_core.lower(text, planar=-1)": "from realify import _core; TEXT = " + IR + "; _core.lower(TEXT, planar=-1); "
        "print('accepted', file=__import__('sys').stderr)",
        "_core.lower(text, target=-1)": "from realify import _core; TEXT = " + IR + "; _core.lower(TEXT, target=-1); "
        "print('accepted', file=__import__('sys').stderr)",
    }
    api["realify.lower(ep) from 4 threads"] = (
        "import realify, torch, threading; ep = torch.export.load('cio.pt2'); errs = []\n"
        "def f():\n    try: realify.lower(ep)\n    except Exception as e: errs.append(e)\n"
        "ts = [threading.Thread(target=f) for _ in range(4)]; [t.start() for t in ts]; [t.join() for t in ts]\n"
        "import sys; why = {type(e).__name__ + ': ' + (str(e).splitlines() or [''])[0][:90] for e in errs}\n"
        "print(f'{len(errs)} of 4 failed', *why, file=sys.stderr)"
        "; sys.exit(1 if errs else 0)")
    for label, code in api.items():
        rc, msg = _run(["-c", code], d)
        rows.append((label, rc, msg))

    print("| case | exit | message |")
    print("|---|---|---|")
    for case, rc, msg in rows:
        print(f"| {case} | {rc} | {msg.replace('|', '/')[:220]} |")


if __name__ == "__main__":
    main()
