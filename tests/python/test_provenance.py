"""realify judges only what it wrote: the user's own real ops (attention in its CPU variants, layer norms,
multi-output ops, custom ops, collectives) pass through lowering for every target with their identity, meta and
stack trace, two of each, whatever their names (the C core marks what it copied; src/lower/legality.c)."""

from __future__ import annotations

import collections

import pytest
import realify
import torch
import torch.nn.functional as F
from realify.targets import TARGETS
from torch.fx.experimental.proxy_tensor import make_fx


@torch.library.custom_op("realify_test::mystery", mutates_args=())
def mystery(x: torch.Tensor) -> torch.Tensor:
    return x.sin() * 2


@mystery.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


def rope(x: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    z = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(z * freqs).flatten(-2).type_as(x)


class UserOps(torch.nn.Module):
    """Complex RoPE around two of each op realify has no business with."""

    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.norm_a = torch.nn.LayerNorm(dim)
        self.norm_b = torch.nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor, freqs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        q, k = rope(x, freqs), rope(2 * x, freqs)
        a = F.scaled_dot_product_attention(q, k, x, is_causal=True)
        b = F.scaled_dot_product_attention(k, q, a)
        a, b = self.norm_a(a), self.norm_b(b)
        var_a, mean_a = torch.var_mean(a, -1)
        var_b, mean_b = torch.var_mean(b, -1)
        top_a, top_b = torch.topk(a, 2).values, torch.topk(b, 2).values
        c = mystery(a) + mystery(b)
        return rope(c, freqs), var_a + mean_b, var_b * mean_a, top_a - top_b


def inputs() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    x = torch.randn(2, 2, 6, 8)
    freqs = torch.polar(torch.ones(6, 4), torch.randn(6, 4))
    return x, freqs


USER_OPS = ("scaled_dot_product", "layer_norm", "var_mean", "topk", "mystery", "all_reduce", "wait_tensor")


def user_nodes(gm: torch.fx.GraphModule) -> dict[str, list[torch.fx.Node]]:
    """The call nodes of the user's own real ops, by op (on real values realify copies them)."""
    by_op: dict[str, list[torch.fx.Node]] = collections.defaultdict(list)
    for n in gm.graph.nodes:
        op = str(n.target)
        if n.op == "call_function" and any(u in op for u in USER_OPS):
            by_op[op].append(n)
    return by_op


def captured(capture: str) -> torch.fx.GraphModule:
    model = UserOps().eval()
    if capture == "make_fx":  # what the backend sees: SDPA in its CPU variant, layer norm as native_layer_norm
        return make_fx(model)(*inputs())
    return torch.export.export(model, inputs()).module()


@pytest.mark.parametrize("capture", ["make_fx", "export"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_user_ops_survive_lowering_for_every_target(capture: str, target: str) -> None:
    gm = captured(capture)
    before = user_nodes(gm)
    assert sum(len(v) for v in before.values()) >= 8, before  # attention, norms, var_mean, topk, the custom op
    assert any("scaled_dot_product" in op for op in before) and "realify_test.mystery.default" in before
    lowered = realify.lower(gm, target=target)
    after = user_nodes(lowered)
    assert {op: len(v) for op, v in after.items()} == {op: len(v) for op, v in before.items()}
    for op, nodes in before.items():
        for old, new in zip(nodes, after[op], strict=True):
            assert new.meta.get("stack_trace") == old.meta.get("stack_trace")
            old_vals, new_vals = (torch.utils._pytree.tree_leaves(n.meta["val"]) for n in (old, new))
            assert [(v.dtype, v.shape) for v in new_vals] == [(v.dtype, v.shape) for v in old_vals]
    x, freqs = inputs()
    want = UserOps().eval()(x, freqs) if capture == "make_fx" else gm(x, freqs)
    got = lowered(x, torch.view_as_real(freqs))
    for w, g in zip(want, got, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)


def test_collectives_pass_through_every_target() -> None:
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore

    own_group = not dist.is_initialized()
    if own_group:
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=2)
    try:
        _check_collectives()
    finally:  # later tests in this process (a forked TP run among them) must not inherit it
        if own_group:
            dist.destroy_process_group()


def _check_collectives() -> None:
    import torch.distributed as dist
    import torch.distributed._functional_collectives as funcol

    def tp_rope(x: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
        y = rope(x, freqs)
        return funcol.all_reduce(y, "sum", dist.group.WORLD) + funcol.all_reduce(2 * y, "sum", dist.group.WORLD)

    x, freqs = inputs()
    gm = make_fx(tp_rope)(x, freqs)
    before = user_nodes(gm)
    assert len(before["_c10d_functional.all_reduce.default"]) == 2
    for target in TARGETS:
        after = user_nodes(realify.lower(gm, target=target))
        assert {op: len(v) for op, v in after.items()} == {op: len(v) for op, v in before.items()}


def test_an_op_realify_emits_is_still_judged_in_c() -> None:
    def f(z: torch.Tensor, r: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return mystery(r), torch.linalg.matrix_exp(z)

    z, r = torch.randn(3, 3, dtype=torch.complex64), torch.randn(3, 3)
    gm = make_fx(f)(z, r)
    realify.lower(gm, target="portable")
    with pytest.raises(realify.TargetOpError, match="target='onnx' does not accept") as info:
        realify.lower(gm, target="onnx")
    assert info.value.op == "aten.linalg_matrix_exp.default"


class FNetBlock(torch.nn.Module):
    """FNet's encoder block: Fourier mixing between two LayerNorms (native_layer_norm after aot_autograd)."""

    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.mix_norm = torch.nn.LayerNorm(dim)
        self.out_norm = torch.nn.LayerNorm(dim)
        self.ff = torch.nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.mix_norm(x + torch.fft.fft2(x).real)
        return self.out_norm(x + self.ff(x))


@pytest.mark.parametrize("fft", ["auto", "matmul", "native"])
def test_fnet_block_with_two_layer_norms_compiles_in_inference(fft: str) -> None:
    torch._dynamo.reset()
    torch.manual_seed(0)
    model, x = FNetBlock().eval(), torch.randn(2, 8, 16)
    compiled = torch.compile(model, backend="realify", fullgraph=True, options={"backend": "eager", "fft": fft})
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-5)
