"""Each benchmark script runs once in its --small CPU mode, so the scripts keep working (no timing assertions)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


# Extra arguments that keep a script's CI run short.
EXTRA = {
    "fft_models.py": ["--models", "fno2d,mri"],
    "onnx_fft.py": ["--models", "fno2d,fnet"],
    "fft_profile.py": ["--models", "fno2d", "--host"],
    "interleaved.py": ["--cases", "decode,log_mel"],
    "deploy_speed.py": ["--models", "axial_rope_2d,fnet", "--targets", "ort,openvino,plain", "--threads", "1"],
    "rope_forms.py": ["--dtypes", "bfloat16,float16", "--settings", "default", "--no-decode"],
}
SCRIPTS = [
    "rope.py",
    "llama.py",
    "lower_cost.py",
    "fft.py",
    "fft_models.py",
    "onnx_fft.py",
    "fft_profile.py",
    "op_overhead.py",
    "interleaved.py",
    "product_forms.py",
    "fft_forms.py",
    "rope_forms.py",
    "fft_tf32.py",
    "deploy_speed.py",
    "rope_graph_forms.py",
    "fft_accuracy.py",
]


# The smoke runs check that each script works, not Inductor's SIMD kernels: without SIMD its C++ compiles take a
# third less time.
SMOKE_ENV = dict(os.environ, TORCHINDUCTOR_VEC_ISA_OK="0")


def by_model(rows: list[dict], model: str) -> dict:
    return next(r for r in rows if r["model"] == model)


def test_deploy_speed_profile(tmp_path: Path) -> None:
    """--profile gives the per-op time of both runtimes, and the ONNX graph's node kinds."""
    pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
    pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript")
    pytest.importorskip("openvino", reason="needs openvino (make venv installs the deploy targets)")
    out = tmp_path / "result.json"
    script = str(ROOT / "bench" / "deploy_speed.py")
    cmd = [sys.executable, script, "--small", "--profile", "fnet", "--threads", "1", "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    (prof,) = json.loads(out.read_text())["results"]
    assert prof["onnx_nodes"].get("MatMul", 0) > 0  # the matmul strategy's DFT stages
    for rt in ("ort", "openvino"):
        assert prof[rt] and all(us >= 0 and count >= 0 for _, us, count in prof[rt])  # some OpenVINO nodes ran 0 times
        assert any(count >= 1 for _, _, count in prof[rt])
        assert sum(us for _, us, _ in prof[rt]) > 0


@pytest.mark.parametrize("script", SCRIPTS)
def test_bench_script_small(script: str, tmp_path: Path) -> None:
    if script in ("onnx_fft.py", "deploy_speed.py", "rope_graph_forms.py"):
        pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
        pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript")
    if script in ("deploy_speed.py", "rope_graph_forms.py"):
        pytest.importorskip("openvino", reason="needs openvino (make venv installs the deploy targets)")
    out = tmp_path / "result.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), "--small", "--json", str(out), *EXTRA.get(script, [])],
        capture_output=True,
        text=True,
        timeout=900,
        env=SMOKE_ENV,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    rows = json.loads(out.read_text())["results"]
    assert rows
    if script == "rope.py":
        by = {(r["case"], r["variant"]): r for r in rows}
        assert {r["case"] for r in rows} == {"prefill", "decode", "axial2d", "yarn"}
        for case in ("prefill", "decode", "axial2d", "yarn"):
            realify, hand = by[case, "realify+inductor"], by[case, "hand-written real + inductor"]
            assert realify["max_abs_err"] < 1e-5 and hand["max_abs_err"] < 1e-5
            assert 0 < realify["kernels"] <= hand["kernels"]  # never more kernels than the hand-written code
            assert by[case, "copy (bandwidth ceiling)"]["copy_%"] == pytest.approx(100)
        assert by["prefill", "realify+inductor"]["kernels"] <= 2  # one kernel per rotated tensor (q and k)
    elif script == "llama.py":
        assert all(r["max_rel_err"] < 1e-4 for r in rows)
    elif script == "fft.py":
        realify_rows = [r for r in rows if r["impl"].startswith("realify")]
        assert {r["impl"] for r in realify_rows} == {"realify+eager", "realify+inductor", "realify native+inductor"}
        assert all(r["max_rel_err"] < 1e-4 for r in realify_rows)
    elif script == "onnx_fft.py":
        by = {(r["model"], r["variant"]): r for r in rows}
        for model in ("fno2d", "fnet"):
            dft, mm = by[model, "realify onnx-dft"], by[model, "realify matmul"]
            assert dft["dft_nodes"] > 0 and mm["dft_nodes"] == 0
            assert dft["max_rel_err"] < 1e-4 and mm["max_rel_err"] < 1e-4
    elif script == "rope_graph_forms.py":  # every form ran (each checked against numpy) and was timed
        assert {r["form"] for r in rows} >= {"matmul_p64", "gather", "split_concat", "full_tables", "eager"}
        assert all(r.get("ort_us", 1) > 0 and r.get("openvino_us", 1) > 0 for r in rows)
    elif script == "deploy_speed.py":
        assert {(r["model"], r["threads"]) for r in rows} == {("axial_rope_2d", 1), ("fnet", 1)}
        for r in rows:  # both runtimes run the lowered model and agree with eager; no timing is asserted
            assert r["eager_ms"] > 0 and r["ort"] > 0 and r["openvino"] > 0
            assert r["ort_err"] < 1e-5 and r["openvino_err"] < 1e-5
        assert "plain_why" in by_model(rows, "axial_rope_2d") and by_model(rows, "fnet")["plain"] > 0
    elif script == "fft_models.py":
        by = {(r["model"], r["variant"]): r for r in rows}
        for model in ("fno2d", "mri"):
            for fft in ("native", "matmul"):
                row = by[model, f"realify+inductor {fft}"]
                assert row["max_rel_err"] < 1e-4 and row["kernels"] > 0 and row["vs_base"] > 0
    elif script == "op_overhead.py":
        by = {r["row"]: r["us"] for r in rows}
        assert len(by) == 7 and all(us > 0 for us in by.values())
    elif script == "interleaved.py":
        by = {(r["case"], r["variant"]): r for r in rows}
        variants = {
            "decode": ("realify+inductor (direct)", "realify+inductor, two aot layers"),
            "log_mel": ("realify+inductor native", "realify+inductor native, hoist off", "realify+inductor matmul"),
        }
        for case, names in variants.items():
            for variant in names:
                row = by[case, variant]
                assert row["max_rel_err"] < 1e-5 and 0 < row["min_ms"] <= row["median_ms"]
    elif script == "fft_accuracy.py":  # every form within float32's reach of the float64 reference
        assert {r["case"] for r in rows} == {"whiten 512", "fft 64"}
        assert all(0 < r[k] < 1e-5 for r in rows for k in ("eager", "portable", "graph"))
    elif script == "product_forms.py":
        assert {r["form"] for r in rows} == {"eager", "packed", "planar", "reduce", "realify"}
        assert all(r["rel_err"] < 1e-5 for r in rows)
        assert all(r["kernels"] > 0 for r in rows if r["form"] != "eager")
    elif script == "rope_forms.py":
        forms = {r["form"] for r in rows}
        assert {"pairs", "bitcast", "words_cast", "realify"} <= forms
        assert {r["dtype"] for r in rows} == {"bfloat16", "float16"}
        exact = [r for r in rows if r["form"] in ("pairs", "dup", "bitcast", "words_cast", "realify")]
        assert exact and all(r["max_err"] == 0 for r in exact)  # each keeps eager's order of operations
    elif script == "fft_forms.py":
        assert {r["case"] for r in rows} == {"rfft2", "rfft", "fft"}
        assert {"cufft", "realify"} <= {r["form"] for r in rows}
        assert any(r["form"].startswith("gemm-") for r in rows) and any(r["form"].startswith("reduce-") for r in rows)
        assert all(r["rel_err"] < 2e-6 for r in rows)
        assert all(r["kernels"] > 0 for r in rows if r["form"] != "cufft")
    elif script == "fft_tf32.py":
        # --small: each of 3 cases in cuFFT, matmul (TF32 off) and 3xTF32 (on)
        assert {r["form"] for r in rows} == {"cuFFT", "matmul", "3xTF32"} and len(rows) == 9
        assert {(r["form"], r["tf32"]) for r in rows} == {("cuFFT", False), ("matmul", False), ("3xTF32", True)}
        assert all(r["split_gemms"] > 0 for r in rows if r["form"] == "3xTF32")
        assert all(r["rel_err"] < 2e-6 for r in rows)  # on the CPU, TF32 does not apply: all float32
    elif script == "fft_profile.py":
        assert {r["variant"] for r in rows} == {"eager", "native", "matmul"}
        assert all(r["us"] > 0 and r["top"] and r["max_rel_err"] < 1e-4 for r in rows)
        assert all(r["host_issue_us"] > 0 and r["host_top"] for r in rows)
    else:
        assert all(r["core_nodes_per_s"] > 0 and r["ir_nodes"] > 0 for r in rows)
