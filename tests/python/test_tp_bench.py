"""examples/llama3_tp.py --bench and bench/tp_scaling.py, at world sizes 1 and 2 on CPU (gloo).

The multi-GPU issue needs these timings at world sizes 2, 4 and 8 on NCCL; CI has no GPU, so this runs the same
code on CPU to keep the timing mode and the scaling table working (no speed is asserted: CPU gloo timings say
nothing about H200s). The timing compiles the complex model with Inductor on every rank, so these runs take one
layer and Inductor's C++ kernels without SIMD (a third less compile time; no SIMD kernel is under test here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_tp import EXAMPLE, ROOT, TINY, free_port

sys.path.insert(0, str(ROOT / "bench"))
import tp_scaling  # noqa: E402

BENCH_CONFIG = {**TINY, "n_layers": 1}


def run_example(world: int, out: Path) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={world}", f"--master-port={free_port()}"]
    cmd += [str(EXAMPLE), "--device=cpu", "--inner=eager", "--decode-steps=3", "--bench=2", f"--json={out}"]
    cmd += [f"--{k.replace('_', '-')}={v}" for k, v in BENCH_CONFIG.items()]
    env = dict(os.environ, OMP_NUM_THREADS="1", TORCHINDUCTOR_VEC_ISA_OK="0")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"torchrun failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr[-5000:]}"
    assert "timing (median of 2" in proc.stdout
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    d = tmp_path_factory.mktemp("tp_bench")
    paths = {w: d / f"tp{w}.json" for w in (1, 2)}
    for w, p in paths.items():
        run_example(w, p)
    return paths


def test_bench_records_both_compilers_after_a_passing_check(runs: dict[int, Path]) -> None:
    for world, path in runs.items():
        r = json.loads(path.read_text())
        assert r["ok"] and r["world_size"] == world and r["tokens_match"]
        b = r["bench"]
        assert b["iters"] == 2 and b["decode_steps"] == 3
        for name in ("realify", "inductor_complex"):
            t = b[name]
            assert t["prefill_ms"] > 0 and t["decode_tokens_per_s"] > 0
            batch, seq = BENCH_CONFIG["batch"], BENCH_CONFIG["seq"]
            assert t["prefill_tokens_per_s"] == pytest.approx(batch * seq / (t["prefill_ms"] / 1e3))
            assert t["decode_tokens_per_s"] == pytest.approx(batch / (t["decode_ms_per_step"] / 1e3))
        # the timing runs after the check: the compile counts are those of the checked run
        assert r["graphs_compiled"] == 2


def test_scaling_table_from_the_runs(runs: dict[int, Path], capsys: pytest.CaptureFixture[str]) -> None:
    loaded = tp_scaling.load([str(runs[2]), str(runs[1])])
    table = tp_scaling.rows(loaded)
    assert [row["world"] for row in table] == [1, 2]
    one, two = table
    assert one["prefill_speedup"] == pytest.approx(1.0) and one["decode_efficiency"] == pytest.approx(1.0)
    r1, r2 = (json.loads(runs[w].read_text())["bench"]["realify"] for w in (1, 2))
    assert two["prefill_speedup"] == pytest.approx(r1["prefill_ms"] / r2["prefill_ms"])
    assert two["decode_efficiency"] == pytest.approx(r2["decode_tokens_per_s"] / r1["decode_tokens_per_s"] / 2)
    assert tp_scaling.main([str(runs[1]), str(runs[2]), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| world |" in out and out.count("\n| ") == 3  # header and one row per world size


def test_scaling_needs_timed_runs(runs: dict[int, Path], tmp_path: Path) -> None:
    r = json.loads(runs[1].read_text())
    del r["bench"]
    p = tmp_path / "untimed.json"
    p.write_text(json.dumps(r))
    with pytest.raises(SystemExit, match="no timing"):
        tp_scaling.load([str(p)])
    with pytest.raises(SystemExit, match="one run per world size"):
        tp_scaling.load([str(runs[1]), str(runs[1])])
