"""Tensor-parallel Llama 3 (2 processes, gloo, CPU) through torch.compile(backend="realify").

Runs examples/llama3_tp.py under torchrun once (module fixture) and checks its JSON result: logits against
single-process eager, complex placeholders before lowering and none after on every rank, greedy tokens with the
KV cache, and the number of compiled graphs. The tokens are also recomputed here, in this process, with
llama3.generate_greedy on an unsharded eager model, so the check does not rest on the example's own reference.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import torch
from realify_examples import llama3

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "llama3_tp.py"
WORLD = 2
DECODE_STEPS = 16
# max_seq_len leaves room past the last decoded position: filling the KV cache to its very last slot makes dynamo
# compile one more graph (the cache slice is then the whole, contiguous cache), single-process or not.
TINY = dict(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab=128, multiple_of=16, max_seq_len=48, batch=2, seq=16)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# "sdpa": attention as torchtitan writes it (F.scaled_dot_product_attention), which realify must pass through
@pytest.fixture(scope="module", params=["matmul", "sdpa"])
def tp_result(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("tp") / "result.json"
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={WORLD}", f"--master-port={free_port()}"]
    cmd += [str(EXAMPLE), "--device=cpu", "--inner=eager", f"--decode-steps={DECODE_STEPS}", f"--json={out}"]
    cmd += [f"--{k.replace('_', '-')}={v}" for k, v in TINY.items()] + [f"--attention={request.param}"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, f"torchrun failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr[-5000:]}"
    result = json.loads(out.read_text())
    result["_elapsed_s"] = elapsed
    result["_stdout"] = proc.stdout
    result["_attention"] = request.param
    return result


def test_world_size_and_sharding(tp_result: dict[str, Any]) -> None:
    assert tp_result["world_size"] == WORLD
    assert tp_result["dist_backend"] == "gloo"
    assert [r["rank"] for r in tp_result["ranks"]] == list(range(WORLD))
    for r in tp_result["ranks"]:
        # the sharded layers' collectives are in every graph the inner compiler received
        assert all(g["collectives"] > 0 for g in r["graphs"]), r["graphs"]


def test_logits_match_single_process_eager(tp_result: dict[str, Any]) -> None:
    assert tp_result["max_rel_error"] <= 1e-5
    for r in tp_result["ranks"]:
        assert r["max_rel_error"] <= 1e-5, r["rank"]


def test_inner_compiler_gets_real_only_graphs_on_every_rank(tp_result: dict[str, Any]) -> None:
    head_dim = TINY["dim"] // TINY["n_heads"]
    for r in tp_result["ranks"]:
        assert r["graphs"], f"rank {r['rank']} compiled nothing"
        for g in r["graphs"]:
            assert g["complex_placeholder_before"], (r["rank"], g["phase"])
            # freqs_cis, lifted by aot_autograd, is the complex input: (2 * max_seq_len, head_dim / 2)
            assert [(c["dtype"], c["shape"], c["lowered_to"]) for c in g["complex_inputs"]] == [
                ("complex64", [2 * TINY["max_seq_len"], head_dim // 2], "float32")
            ]
            assert not g["complex_placeholder_after"], (r["rank"], g["phase"])
            assert g["complex_values_after"] == 0, (r["rank"], g["phase"])
    assert tp_result["complex_placeholder_before"] == [[True] * len(r["graphs"]) for r in tp_result["ranks"]]
    assert tp_result["complex_placeholder_after"] == [[False] * len(r["graphs"]) for r in tp_result["ranks"]]


def test_generated_tokens_match_eager(tp_result: dict[str, Any]) -> None:
    want_shape = (TINY["batch"], DECODE_STEPS + 1)  # prefill token + one per decode step
    eager = tp_result["tokens_eager"]
    assert torch.tensor(eager).shape == want_shape
    assert tp_result["tokens_match"]
    for r in tp_result["ranks"]:
        assert r["tokens_compiled"] == eager, r["rank"]
    # independent reference: unsharded eager model, the library's own greedy loop, in this process
    cfg = llama3.ModelArgs(
        dim=TINY["dim"],
        n_layers=TINY["n_layers"],
        n_heads=TINY["n_heads"],
        n_kv_heads=TINY["n_kv_heads"],
        vocab_size=TINY["vocab"],
        multiple_of=TINY["multiple_of"],
        max_seq_len=TINY["max_seq_len"],
        max_batch_size=TINY["batch"],
        use_kv_cache=True,
        attention=tp_result["_attention"],
    )
    model = llama3.build(cfg, seed=0)
    prompt = torch.tensor(tp_result["prompt"])
    assert prompt.shape == (TINY["batch"], TINY["seq"])
    ref = llama3.generate_greedy(model, prompt, DECODE_STEPS + 1)
    assert ref.tolist() == tp_result["tokens_compiled"]


def test_no_recompile_per_decode_step(tp_result: dict[str, Any], record_property: Any) -> None:
    n = tp_result["graphs_compiled"]
    record_property("graphs_compiled", n)
    record_property("recompiles", tp_result["recompiles"])
    print(
        f"\nTP={WORLD}: {n} graphs compiled per rank for a prefill + {DECODE_STEPS} decode steps "
        f"(recompiles {tp_result['recompiles']}); torchrun took {tp_result['_elapsed_s']:.1f} s"
    )
    # one graph for the prefill, one for every decode step (start_pos turns symbolic on the first one)
    assert n == 2
    assert tp_result["recompiles"] == 1
    assert tp_result["compiles_after_first_decode_step"] == 0
    for r in tp_result["ranks"]:
        assert [g["phase"] for g in r["graphs"]] == ["prefill", "decode0"], r["rank"]


def test_report_is_printed(tp_result: dict[str, Any]) -> None:
    text = tp_result["_stdout"]
    assert f"world size {WORLD}" in text
    assert "complex inputs before lowering" in text
    assert "max error vs single-process eager" in text
    assert text.rstrip().endswith("OK")
