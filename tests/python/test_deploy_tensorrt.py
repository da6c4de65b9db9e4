"""Deploy (e): Torch-TensorRT converter coverage. TensorRT cannot be installed here (DESIGN.md §6), so the lowered
program, after the core ATen decompositions Torch-TensorRT runs, is checked op by op against its converter
registry: a node without a converter is where the TensorRT engine would split."""

from __future__ import annotations

import pytest
import torch
from deploy_support import lowered, zoo_params

# aten overloads with a converter in Torch-TensorRT (py/torch_tensorrt/dynamo/conversion/aten_ops_converters.py,
# ops_evaluators.py, prims_ops_converters.py on main, 2026-08; `.out` variants left out), recorded by us.
# A name without an overload stands for every overload.
TENSORRT_CONVERTERS = frozenset(
    """
    _adaptive_avg_pool2d.default _adaptive_avg_pool3d.default _cdist_forward.default _embedding_bag.default
    _native_batch_norm_legit.no_stats _native_batch_norm_legit_no_training.default _pad_circular.default
    _pdist_forward.default _prelu_kernel.default _reshape_copy.default
    _scaled_dot_product_cudnn_attention.default _scaled_dot_product_efficient_attention.default
    _scaled_dot_product_flash_attention.default _softmax.default _to_copy.default abs.default acos.default
    acosh.default adaptive_avg_pool1d.default adaptive_avg_pool2d.default adaptive_avg_pool3d.default add.Scalar
    add.Tensor addmm.default amax.default amin.default any.default any.dim any.dims arange.start_step
    argmax.default argmin.default as_strided.default asin.default asinh.default atan.default atan2.default
    atanh.default avg_pool1d.default avg_pool2d.default avg_pool3d.default batch_norm batch_norm.default
    bitwise_and.Scalar bitwise_and.Scalar_Tensor bitwise_and.Tensor bitwise_not.default bitwise_or.Scalar
    bitwise_or.Scalar_Tensor bitwise_or.Tensor bitwise_xor.Scalar bitwise_xor.Scalar_Tensor bitwise_xor.Tensor
    bmm.default cat.default ceil.default clamp.Tensor clamp.default clip.Tensor clip.default clone.default
    constant_pad_nd.default convolution.default copy.default cos.default cosh.default cumsum.default
    detach.default diagonal.default div.Scalar div.Scalar_mode div.Tensor div.Tensor_mode dot.default
    elu.default embedding.default embedding_bag.default empty.memory_format eq.Scalar eq.Tensor erf.default
    exp.default expand.default expm1.default flip.default floor.default floor_divide.Scalar floor_divide.default
    fmod.Scalar fmod.Tensor full.default gather.default ge.Scalar ge.Tensor gelu.default grid_sampler
    grid_sampler.default grid_sampler_2d grid_sampler_2d.default gt.Scalar gt.Tensor hardsigmoid.default
    hardtanh.default index.Tensor index_copy.default index_put.default index_select.default isinf.default
    isnan.default le.Scalar le.Tensor leaky_relu.default linalg_cross.default linear.default log.default
    log10.default log1p.default log2.default logical_and.default logical_not.default logical_or.default
    logical_xor.default lt.Scalar lt.Tensor matmul matmul.default max.default max.dim max_pool1d.default
    max_pool2d.default max_pool3d.default maximum.default mean.default mean.dim min.default min.dim
    minimum.default mm.default mul.Scalar mul.Tensor mv.default native_batch_norm.default native_dropout.default
    native_group_norm.default native_layer_norm.default ne.Scalar ne.Tensor neg.default nonzero.default
    pad.default permute.default pixel_shuffle.default pixel_unshuffle.default pow.Scalar pow.Tensor_Scalar
    pow.Tensor_Tensor prod.default prod.dim_int rand.default randn.default randperm.default reciprocal.default
    reflection_pad1d.default reflection_pad2d.default reflection_pad3d.default relu.default remainder.Scalar
    remainder.Tensor repeat.default replication_pad1d.default replication_pad2d.default
    replication_pad3d.default reshape.default resize_.default roll.default round.default rsqrt.default
    scalar_tensor.default scaled_dot_product_attention.default scatter.src scatter.value select.int
    sigmoid.default sign.default sin.default sinh.default slice.Tensor slice_scatter.default softplus.default
    sort.default split.Tensor split.sizes split_with_sizes.default sqrt.default squeeze.dim squeeze.dims
    sub.Scalar sub.Tensor sum.default sum.dim_IntList sym_numel.default sym_size.int tan.default tanh.default
    tile.default topk.default trunc.default unsqueeze.default upsample_bicubic2d.vec upsample_bilinear2d.vec
    upsample_linear1d.vec upsample_nearest1d.vec upsample_nearest2d.vec upsample_nearest3d.vec
    upsample_trilinear3d.vec view.default where.self
""".split()
)


# Removed or rewritten by Torch-TensorRT's lowering passes before conversion: remove_assert_nodes drops the
# asserts; replace_full_like_with_full turns full_like into full.default (a converter) over the input's static
# shape, which is why the check below also asks that every full_like input has a static shape.
TENSORRT_REMOVED = frozenset({"_assert_scalar.default", "_assert_tensor_metadata.default", "full_like.default"})


def has_converter(target: object) -> bool:
    if not isinstance(target, torch._ops.OpOverload):
        return getattr(target, "__name__", "") == "getitem"  # tuple indexing: a TensorRT evaluator
    name = str(target)[len("aten.") :]
    return name in TENSORRT_REMOVED or name in TENSORRT_CONVERTERS or name.split(".")[0] in TENSORRT_CONVERTERS


def rewritable(node: torch.fx.Node) -> bool:
    """False where a Torch-TensorRT lowering pass would not apply: full_like of a dynamically shaped input."""
    if node.target is not torch.ops.aten.full_like.default:
        return True
    shape = node.args[0].meta["val"].shape  # type: ignore[union-attr]
    return all(isinstance(s, int) for s in shape)


def unconverted(program: torch.export.ExportedProgram) -> set[str]:
    decomposed = program.run_decompositions()
    return {
        str(n.target)
        for n in decomposed.graph.nodes
        if n.op == "call_function" and (not has_converter(n.target) or not rewritable(n))
    }


@pytest.mark.parametrize("name", zoo_params())
def test_every_node_of_the_lowered_zoo_model_has_a_tensorrt_converter(name: str) -> None:
    lw = lowered(name)
    missing = unconverted(lw.program)
    assert not missing, f"{name}: TensorRT would split the engine at {sorted(missing)}"
    for node in lw.program.graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and lw.entry.truncate_double:
            assert val.dtype != torch.float64, node.format_node()  # TensorRT has no float64


def test_the_check_sees_what_tensorrt_lacks() -> None:
    class Hypot(torch.nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return torch.hypot(x, y)  # what realify used to emit for |z|

    x = torch.randn(3)
    assert unconverted(torch.export.export(Hypot(), (x, x))) == {"aten.hypot.default"}


def test_full_like_counts_as_converted_only_over_a_static_shape() -> None:
    class Fill(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.full_like(x, 2.0) * x

    x = torch.randn(4, 3)
    assert unconverted(torch.export.export(Fill(), (x,))) == set()
    dynamic = torch.export.export(Fill(), (x,), dynamic_shapes=({0: torch.export.Dim("n")},))
    assert "aten.full_like.default" in unconverted(dynamic)
