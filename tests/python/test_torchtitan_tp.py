"""torchtitan's Llama 3 (its own model code: SDPA attention, complex RoPE cache) under torchtitan's own
tensor-parallel plan over 2 gloo ranks on CPU, compiled with torch.compile(backend="realify").

Two spawned ranks (torchtitan_tp_worker.run_rank) shard the model with `set_llama3_sharding_config` (torchtitan's
default, sequence parallel on) and `Module.parallelize` on its DTensor backend ("partial_dtensor"), then check,
against the unsharded eager model and the sharded eager one: greedy tokens (a prefill and a decode step, no
KV cache in torchtitan's model), the logits, and one training step's loss and every gradient. The inner
compiler is "eager" to keep the run short: the lowering is the part under test (Inductor is the single-process
corpus's compile and train columns, test_corpus_torchtitan.py).
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
import torch

# torchtitan.models imports triton (its MoE kernels): without it the tests skip
pytest.importorskip("torchtitan.models.llama3", reason="needs torchtitan and triton (make test installs both)")

WORLD = 2
SPMD_BACKEND = "partial_dtensor"
# torchtitan's plan: fused QKV, w1, w3 and lm_head column-wise; wo and w2 row-wise; the embedding row-wise
SHARDED = {"attention.qkv_linear.wqkv.weight", "attention.wo.weight", "feed_forward.w1.weight",
           "feed_forward.w2.weight", "feed_forward.w3.weight"}
TOL = {"rtol": 1e-5, "atol": 1e-5}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def ranks(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    import torch.multiprocessing as mp
    import torchtitan.models.llama3  # noqa: F401  (imported once here: the forked ranks inherit it)
    from torchtitan_tp_worker import run_rank

    out = tmp_path_factory.mktemp("torchtitan_tp")
    # fork, not spawn: a spawned rank spends most of its time importing torch, torchtitan and triton again
    mp.start_processes(run_rank, args=(WORLD, _free_port(), str(out), SPMD_BACKEND, True), nprocs=WORLD,
                       join=True, start_method="fork")
    return [torch.load(Path(out) / f"rank{r}.pt", weights_only=True) for r in range(WORLD)]


def test_torchtitan_plan_shards_the_model(ranks: list[dict[str, Any]]) -> None:
    from torchtitan_support import TINY

    want = {f"layers.{i}.{n}" for i in range(TINY["n_layers"]) for n in SHARDED} | {"lm_head.weight",
                                                                                       "tok_embeddings.weight"}
    for r in ranks:
        assert set(r["sharded_params"]) == want, r["rank"]


def test_tokens_identical_to_eager(ranks: list[dict[str, Any]]) -> None:
    from torchtitan_support import build_llama3, tokens
    from torchtitan_tp_worker import DECODE_STEPS, _greedy

    # an independent reference, in this process: the unsharded model, eager
    with torch.no_grad():
        _, ref = _greedy(build_llama3().eval(), tokens())
    assert ref.shape == (tokens().shape[0], DECODE_STEPS)
    for r in ranks:
        assert torch.equal(r["ref_tokens"], ref), r["rank"]
        assert torch.equal(r["tp_tokens"], ref), r["rank"]
        assert torch.equal(r["compiled_tokens"], ref), r["rank"]


def test_logits_match_eager(ranks: list[dict[str, Any]]) -> None:
    for r in ranks:
        torch.testing.assert_close(r["compiled_logits"], r["ref_logits"], **TOL)
        torch.testing.assert_close(r["compiled_logits"], r["tp_logits"], **TOL)


def test_training_step_matches_eager(ranks: list[dict[str, Any]]) -> None:
    for r in ranks:
        torch.testing.assert_close(r["compiled_loss"], r["ref_loss"], **TOL)
        torch.testing.assert_close(r["compiled_loss"], r["tp_loss"], **TOL)
        assert set(r["compiled_grads"]) == set(r["ref_grads"]), r["rank"]
        for name, ref in r["ref_grads"].items():
            got = r["compiled_grads"][name]
            assert got is not None and float(ref.abs().sum()) > 0, (r["rank"], name)
            torch.testing.assert_close(got, ref, **TOL, msg=lambda m, n=name, k=r["rank"]: f"rank {k} {n}: {m}")
            torch.testing.assert_close(got, r["tp_grads"][name], **TOL)


def test_graphs_are_real_only_and_sharded(ranks: list[dict[str, Any]]) -> None:
    from torchtitan_tp_worker import DECODE_STEPS

    for r in ranks:
        # one graph per sequence length (dynamic=False); training: forward and backward
        assert len(r["inference_graphs"]) == DECODE_STEPS, r["inference_graphs"]
        assert len(r["train_graphs"]) == 2, r["train_graphs"]
        for g in r["inference_graphs"] + r["train_graphs"]:
            assert g["complex_placeholder_before"], (r["rank"], g)  # the RoPE cache, a complex buffer
            assert g["complex_after"] == 0, (r["rank"], g)
            assert g["collectives"] > 0, (r["rank"], g)
