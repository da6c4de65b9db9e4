/* The declared real op set: every real aten op that a rule may emit, each with
 * the deployment targets that accept it. Lowering output is checked against it
 * (realify.targets); an op missing here is a test failure, not a surprise at
 * deployment.
 *
 * The target bits are facts read from each project, recorded here by us:
 *   CORE  torch 2.13 native_functions: the op carries the `core` tag.
 *   TRT   Torch-TensorRT (main, 2026-08): a converter in
 *         py/torch_tensorrt/dynamo/conversion/{aten_ops_converters,
 *         ops_evaluators,prims_ops_converters}.py, or the op is in its
 *         decomposition table (lowering/_decomposition_groups.py: core ATen
 *         decompositions less the disabled set, plus the enabled set).
 *   ONNX  torch.onnx (dynamo exporter, torch 2.13 + onnxscript 0.7): the op
 *         has a torchlib translation or a core ATen decomposition; the ONNX
 *         ops it becomes are checked against onnx-tensorrt docs/operators.md
 *         (TensorRT 10, opset <= 20) by tests/python/test_deploy_onnx.py.
 *   ET    ExecuTorch 1.5 edge dialect: core ATen, an op its to_edge
 *         decompositions remove, or the *_copy form of a view op.
 *   OV    OpenVINO 2026.4 PyTorch frontend: the op is in its torch.export
 *         (FX) op table.
 *   CML   coremltools 9.0 PyTorch frontend: a registered op translation.
 * Ops with a CompositeImplicitAutograd kernel are decomposed by torch.export
 * before any target sees them, so every target but CORE accepts them.
 *
 * Sorted by name (binary search). */
#include "lower/opset.h"

#include <stdlib.h>
#include <string.h>

#define CORE RF_TARGET_CORE_ATEN
#define TRT RF_TARGET_TENSORRT
#define ONNX RF_TARGET_ONNX
#define ET RF_TARGET_EXECUTORCH
#define OV RF_TARGET_OPENVINO
#define CML RF_TARGET_COREML

static const rf_opset_entry opset[] = {
    {"aten._chunk_cat.default", TRT | ONNX | ET},
    {"aten._linalg_check_errors.default", 0}, /* linalg solve family: raises on a nonzero info; copied from the input graph */
    {"aten._linalg_eigh.default", 0}, /* linalg spectral family: no target has eigh */
    {"aten._linalg_svd.default", 0}, /* linalg spectral family: no target has svd */
    {"aten._to_copy.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten._unsafe_index.Tensor", TRT | ONNX | ET | OV | CML},
    {"aten._unsafe_index_put.default", TRT | ONNX | ET},
    {"aten._unsafe_masked_index.default", TRT | ONNX | ET},
    {"aten._unsafe_masked_index_put_accumulate.default", TRT | ONNX | ET},
    {"aten._unsafe_view.default", TRT | ONNX | ET | OV | CML},
    {"aten.abs.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.acos.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.acosh.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.add.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.add.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.addbmm.default", ONNX},
    {"aten.addcdiv.default", TRT | ONNX | ET},
    {"aten.addcmul.default", TRT | ONNX | ET | OV},
    {"aten.addmm.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.addmv.default", ONNX},
    {"aten.addr.default", TRT | ONNX | ET},
    {"aten.alias.default", CORE | ONNX | ET | OV},
    {"aten.alias_copy.default", TRT | ONNX | ET | OV | CML},
    {"aten.all.default", TRT | ONNX | ET | OV | CML},
    {"aten.all.dim", TRT | ONNX | ET | CML},
    {"aten.all.dims", TRT | ONNX | ET | CML},
    {"aten.amax.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.any.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.any.dim", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.any.dims", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.argmax.default", CORE | TRT | ONNX | ET | OV | CML}, /* linalg solve and spectral families */
    {"aten.argwhere.default", TRT | ONNX | ET | OV | CML},
    {"aten.as_strided.default", CORE | TRT | ONNX | ET | OV},
    {"aten.as_strided_copy.default", ET | OV},
    {"aten.as_strided_scatter.default", 0},
    {"aten.asin.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.asinh.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.atan.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.atan2.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.atanh.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.baddbmm.default", TRT | ONNX | ET | OV | CML},
    /* the bit ops and dtype views of patterns/rope_words.c, emitted for Inductor only (pattern rope.words): deploy targets unchecked */
    {"aten.bitwise_and.Scalar", CORE},
    {"aten.bitwise_left_shift.Tensor_Scalar", 0},
    {"aten.bitwise_or.Tensor", CORE},
    {"aten.bitwise_right_shift.Tensor_Scalar", 0},
    {"aten.block_diag.default", TRT | ONNX | ET},
    {"aten.bmm.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.broadcast_tensors.default", TRT | ONNX | ET | OV | CML},
    {"aten.cat.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.channel_shuffle.default", TRT | ONNX | ET | OV},
    {"aten.chunk.default", TRT | ONNX | ET | OV | CML},
    {"aten.clone.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.col2im.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.constant_pad_nd.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.convolution.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.copy.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.copy_.default", TRT | ONNX | ET | OV},
    {"aten.cos.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.cosh.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.count_nonzero.default", TRT | ONNX | ET},
    {"aten.count_nonzero.dim_IntList", TRT | ONNX | ET},
    {"aten.cumprod.default", CML},
    {"aten.cumsum.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.detach.default", TRT | ONNX | ET | OV | CML},
    {"aten.diag.default", TRT | ONNX | ET | OV | CML},
    {"aten.diag_embed.default", TRT | ONNX | ET},
    {"aten.diagonal.default", CORE | TRT | ONNX | ET | CML},
    {"aten.diagonal_backward.default", TRT | ONNX | ET},
    {"aten.diagonal_copy.default", TRT | ONNX | ET | CML},
    {"aten.diagonal_scatter.default", 0},
    {"aten.dist.default", 0},
    {"aten.div.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.div.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.div.Tensor_mode", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.dot.default", TRT | ONNX | ET | OV | CML},
    {"aten.einsum.default", TRT | ONNX | ET | OV | CML},
    {"aten.empty.memory_format", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.empty_like.default", TRT | ONNX | ET | CML},
    {"aten.empty_permuted.default", 0},
    {"aten.empty_strided.default", CORE | ONNX | ET},
    {"aten.eq.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.eq.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.exp.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.exp2.default", ONNX | CML},
    {"aten.expand.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.expand_copy.default", TRT | ONNX | ET | OV | CML},
    {"aten.expm1.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.eye.default", TRT | ONNX | ET | CML},
    {"aten.eye.m", TRT | ONNX | ET | OV | CML},
    {"aten.fill.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.fill.Tensor", TRT | ONNX | ET | OV | CML},
    {"aten.flatten.using_ints", TRT | ONNX | ET | OV | CML},
    {"aten.flip.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.full.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.full_like.default", CORE | ONNX | ET | OV | CML},
    {"aten.gather.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.ge.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.ge.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.gt.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.gt.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.im2col.default", TRT | ONNX | ET | CML},
    {"aten.index.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.index_add.default", TRT | ONNX | ET | OV},
    {"aten.index_copy.default", TRT | ONNX | ET | OV},
    {"aten.index_fill.int_Scalar", TRT | ONNX | ET | OV},
    {"aten.index_fill.int_Tensor", TRT | ONNX | ET},
    {"aten.index_put.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.index_select.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.isfinite.default", TRT | ONNX | ET | OV | CML},
    {"aten.isinf.default", CORE | TRT | ONNX | ET | OV},
    {"aten.isnan.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.ldexp.Tensor", 0},
    {"aten.le.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.le.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.lerp.Scalar", TRT | ONNX | ET},
    {"aten.lerp.Tensor", TRT | ONNX | ET},
    {"aten.lift_fresh_copy.default", ONNX | OV | CML},
    {"aten.linalg_cross.default", TRT | ONNX | ET | OV},
    {"aten.linalg_inv_ex.default", 0}, /* linalg solve family */
    {"aten.linalg_lstsq.default", 0}, /* linalg spectral family */
    {"aten.linalg_matrix_exp.default", 0},
    {"aten.linalg_pinv.atol_rtol_tensor", 0}, /* linalg spectral family */
    {"aten.linalg_solve_ex.default", 0}, /* linalg solve family */
    {"aten.linalg_vector_norm.default", TRT | ONNX | OV | CML},
    {"aten.linspace.Scalar_Tensor", TRT | ONNX | ET | CML},
    {"aten.linspace.Tensor_Scalar", TRT | ONNX | ET | CML},
    {"aten.linspace.Tensor_Tensor", TRT | ONNX | ET | CML},
    {"aten.linspace.default", TRT | ONNX | ET | OV | CML},
    {"aten.log.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.log10.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.log1p.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.log2.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.logaddexp.default", TRT | ONNX | ET | OV},
    {"aten.logcumsumexp.default", ONNX | CML},
    {"aten.logical_and.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.logical_not.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.logical_or.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.logical_xor.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.logspace.Scalar_Tensor", TRT | ONNX | ET},
    {"aten.logspace.Tensor_Scalar", TRT | ONNX | ET},
    {"aten.logspace.Tensor_Tensor", TRT | ONNX | ET},
    {"aten.logspace.default", TRT | ONNX | ET},
    {"aten.logsumexp.default", TRT | ONNX | ET | OV | CML},
    {"aten.lt.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.lt.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.masked_fill.Scalar", TRT | ONNX | ET | OV | CML},
    {"aten.masked_fill.Tensor", TRT | ONNX | ET | OV | CML},
    {"aten.masked_scatter.default", CORE | ONNX | ET | OV},
    {"aten.masked_select.default", 0},
    {"aten.matmul.default", TRT | ONNX | ET | OV | CML},
    {"aten.maximum.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.mean.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.mean.dim", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.minimum.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.mm.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.movedim.int", TRT | ONNX | ET | OV | CML},
    {"aten.mul.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.mul.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.mv.default", TRT | ONNX | ET | CML},
    {"aten.nan_to_num.default", TRT | ONNX | ET | OV},
    {"aten.narrow.default", TRT | ONNX | ET | OV | CML},
    {"aten.narrow_copy.default", ET},
    {"aten.native_channel_shuffle.default", TRT | ONNX | ET | OV | CML},
    {"aten.ne.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.ne.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.neg.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.new_empty.default", TRT | ONNX | ET | CML},
    {"aten.new_empty_strided.default", ONNX},
    {"aten.new_full.default", TRT | ONNX | ET | OV | CML},
    {"aten.new_ones.default", TRT | ONNX | ET | OV},
    {"aten.new_zeros.default", TRT | ONNX | ET | OV | CML},
    {"aten.nonzero.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.nonzero_static.default", 0},
    {"aten.norm.Scalar", TRT | ONNX | ET | CML},
    {"aten.norm.ScalarOpt_dim", TRT | ONNX | ET | CML},
    {"aten.numpy_T.default", TRT | ONNX | ET | OV | CML},
    {"aten.ones.default", TRT | ONNX | ET | OV | CML},
    {"aten.ones_like.default", TRT | ONNX | ET | OV | CML},
    {"aten.outer.default", TRT | ONNX | ET | OV | CML},
    {"aten.pad.default", TRT | ONNX | ET | OV | CML},
    {"aten.permute.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.permute_copy.default", ET | OV | CML},
    {"aten.pixel_shuffle.default", TRT | ONNX | ET | OV | CML},
    {"aten.pixel_unshuffle.default", TRT | ONNX | ET | OV | CML},
    {"aten.pow.Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.pow.Tensor_Scalar", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.pow.Tensor_Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.prod.default", CORE | TRT | ONNX | ET | OV},
    {"aten.prod.dim_int", CORE | TRT | ONNX | ET | OV},
    {"aten.put.default", 0},
    {"aten.reciprocal.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.reflection_pad1d.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.reflection_pad2d.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.reflection_pad3d.default", CORE | TRT | ONNX | ET | OV},
    {"aten.renorm.default", TRT | ONNX | ET},
    {"aten.repeat.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.replication_pad1d.default", TRT | ONNX | ET | CML},
    {"aten.replication_pad2d.default", CORE | TRT | ONNX | ET | CML},
    {"aten.replication_pad3d.default", CORE | TRT | ONNX | ET},
    {"aten.reshape.default", TRT | ONNX | ET | OV | CML},
    {"aten.resize.default", 0},
    {"aten.resize_as.default", TRT | ONNX | ET},
    {"aten.roll.default", TRT | ONNX | ET | OV | CML},
    {"aten.rot90.default", TRT | ONNX | ET | OV},
    {"aten.rsqrt.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.rsub.Scalar", TRT | ONNX | ET | OV | CML},
    {"aten.rsub.Tensor", TRT | ONNX | ET | OV | CML},
    {"aten.scalar_tensor.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.scatter.reduce", CML},
    {"aten.scatter.src", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.scatter.value", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.scatter.value_reduce", CML},
    {"aten.scatter_add.default", CORE | ONNX | ET | OV | CML},
    {"aten.select.int", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.select_backward.default", TRT | ONNX | ET},
    {"aten.select_copy.int", ET | OV | CML},
    {"aten.select_scatter.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.sgn.default", TRT | ONNX | ET},
    {"aten.sigmoid.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.silu.default", TRT | ONNX | ET | OV | CML},
    {"aten.sin.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.sinc.default", TRT | ONNX | ET},
    {"aten.sinh.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.slice.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.slice_backward.default", TRT | ONNX | ET},
    {"aten.slice_copy.Tensor", ET | OV | CML},
    {"aten.slice_scatter.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.split.Tensor", TRT | ONNX | ET | OV | CML},
    {"aten.split_copy.Tensor", ET},
    {"aten.split_with_sizes.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.split_with_sizes_copy.default", TRT | ONNX | ET | OV | CML},
    {"aten.sqrt.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.squeeze.default", TRT | ONNX | ET | CML},
    {"aten.squeeze.dim", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.squeeze.dims", CORE | TRT | ET | OV | CML},
    {"aten.squeeze_.default", CML},
    {"aten.squeeze_.dim", CML},
    {"aten.squeeze_copy.default", TRT | ONNX | ET | CML},
    {"aten.squeeze_copy.dim", TRT | ONNX | ET | CML},
    {"aten.squeeze_copy.dims", TRT | ONNX | ET | OV | CML},
    {"aten.stack.default", TRT | ONNX | ET | OV | CML},
    {"aten.std.correction", TRT | ONNX | ET | OV | CML},
    {"aten.std_mean.correction", TRT | ONNX | ET},
    {"aten.sub.Scalar", CORE | TRT | ONNX | ET | CML},
    {"aten.sub.Tensor", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.sum.default", TRT | ONNX | ET | OV | CML},
    {"aten.sum.dim_IntList", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.sym_numel.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.sym_size.int", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.sym_stride.int", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.t.default", TRT | ONNX | ET | OV | CML},
    {"aten.t_copy.default", TRT | ONNX | ET},
    {"aten.take.default", TRT | ONNX | ET},
    {"aten.tan.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.tanh.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.to.device", TRT | ONNX | ET | OV | CML},
    {"aten.to.dtype", TRT | ONNX | ET | OV | CML},
    {"aten.to.dtype_layout", TRT | ONNX | ET | OV | CML},
    {"aten.trace.default", TRT | ONNX | ET | CML},
    {"aten.transpose.int", TRT | ONNX | ET | OV | CML},
    {"aten.transpose_.default", CML},
    {"aten.transpose_copy.int", TRT | ONNX | ET | CML},
    {"aten.tril.default", TRT | ONNX | ET | OV | CML},
    {"aten.triu.default", TRT | ONNX | ET | OV | CML},
    {"aten.type_as.default", TRT | ONNX | ET | OV | CML},
    {"aten.unbind.int", TRT | ONNX | ET | OV | CML},
    {"aten.unbind_copy.int", ET | CML},
    {"aten.unflatten.int", TRT | ONNX | ET | OV | CML},
    {"aten.unfold.default", TRT | ONNX | OV},
    {"aten.unfold_backward.default", TRT | ONNX | ET},
    {"aten.unfold_copy.default", TRT | ONNX | ET},
    {"aten.unsafe_split.Tensor", TRT | ONNX | ET},
    {"aten.unsafe_split_with_sizes.default", TRT | ONNX | ET},
    {"aten.unsqueeze.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.unsqueeze_.default", CML},
    {"aten.unsqueeze_copy.default", TRT | ONNX | ET | OV | CML},
    {"aten.var.correction", CORE | TRT | ET | OV | CML},
    {"aten.var_mean.correction", TRT | OV},
    {"aten.vdot.default", TRT | ONNX | ET},
    {"aten.view.default", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.view.dtype", 0},
    {"aten.view_copy.default", ONNX | ET | OV | CML},
    {"aten.where.ScalarSelf", 0},
    {"aten.where.self", CORE | TRT | ONNX | ET | OV | CML},
    {"aten.zero.default", TRT | ONNX | ET | OV},
    {"aten.zeros.default", TRT | ONNX | ET | OV | CML},
    {"aten.zeros_like.default", TRT | ONNX | ET | OV | CML},
    /* realify's own operators (torch.library, python/realify): the platform FFT behind fft="native", which
     * only eager and Inductor can call, and the RoPE op that exports to ONNX RotaryEmbedding (opset >= 23) */
    {"realify.dft.default", ONNX}, /* fft="onnx-dft": exported as ONNX DFT; TensorRT's parser takes it from 11.2 */
    {"realify.fft_c2c.default", 0},
    {"realify.fft_c2r.default", 0},
    {"realify.fft_r2c.default", 0},
    {"realify.rotary_embedding.default", ONNX},
};

#define NOPS (sizeof opset / sizeof opset[0])

static int by_name(const void *key, const void *elem) {
    return strcmp((const char *)key, ((const rf_opset_entry *)elem)->op);
}

const rf_opset_entry *rf_opset_find(const char *op) {
    if (!op) return NULL;
    return bsearch(op, opset, NOPS, sizeof opset[0], by_name);
}

size_t rf_opset_count(void) { return NOPS; }

const char *rf_opset_entry_at(size_t i, unsigned *targets) {
    if (i >= NOPS) return NULL;
    if (targets) *targets = opset[i].targets;
    return opset[i].op;
}

int rf_opset_targets(const char *op, unsigned *targets) {
    const rf_opset_entry *e = rf_opset_find(op);
    if (!e) return 0;
    if (targets) *targets = e->targets;
    return 1;
}

static const struct {
    const char *name;
    unsigned bit;
} target_names[] = {
    {"core_aten", CORE}, {"tensorrt", TRT}, {"onnx", ONNX}, {"executorch", ET}, {"openvino", OV}, {"coreml", CML},
};

unsigned rf_target_bit(const char *name) {
    if (!name) return 0;
    for (size_t i = 0; i < sizeof target_names / sizeof target_names[0]; i++)
        if (strcmp(target_names[i].name, name) == 0) return target_names[i].bit;
    return 0;
}

const char *rf_target_name_at(size_t i, unsigned *bit) {
    if (i >= sizeof target_names / sizeof target_names[0]) return NULL;
    if (bit) *bit = target_names[i].bit;
    return target_names[i].name;
}
