"""FX graph -> C core -> new real-only FX graph."""

from __future__ import annotations

import copy
import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx as fx
from torch.utils import _pytree as pytree

from . import _core, _fallback, native_fft
from . import rotary as _rotary  # noqa: F401  (registers torch.ops.realify.rotary_embedding for rebuilt graphs)
from ._decompose import decompose_composites, is_complex_leaf
from ._functionalize import functionalize_graph
from ._fx_to_ir import DTYPES_BY_NAME, Translation, fetch_attr, fx_to_ir, install_attr
from ._hops import lower_hop_bodies
from ._ir_to_fx import IRGraph, Rebuilder, const_tensor, read_graph
from ._meta import recompute_meta
from ._options import PLANAR_CONSTS, PLANAR_INPUTS, LowerOptions
from ._precision import FftSource, dft_matmul_sources
from ._signature import Boundary, Signature
from .errors import (
    ComplexDtypeRemainsError,
    RealifyError,
    Status,
    TargetOpError,
    UnsupportedOpError,
    user_source_line,
)
from .runtime import PackedArgCheck, unpack, unpack_storage


@dataclass
class LoweringReport:
    """What detection found and what lowering did, for users and tests."""

    complex_values: int
    subgraphs: int
    complex_input_names: list[str]
    complex_const_targets: list[str]
    complex_output_indices: list[int]
    nodes_before: int
    nodes_after: int
    analysis: str
    signature: Signature
    ir_before: str
    ir_after: str
    # the input graph's FFT nodes that became DFT matmuls (fft="matmul"): TF32 would reach them (realify._precision)
    dft_matmul_sources: list[FftSource] = field(default_factory=list)
    # fallback="eager": the ops that run as the original complex op, in a graph break (realify._fallback)
    eager_fallbacks: list[_fallback.EagerFallback] = field(default_factory=list)
    # the lowering report of the C core: one line per multi-op pattern that fired ("pattern rope.op: OP %node")
    patterns: list[str] = field(default_factory=list)


def _raise_lower_error(err: Any, t: Translation, target: str) -> None:
    code, status_name, op, node_name, message, node_index = err.args
    fx_node = t.ir_nodes[node_index] if node_index is not None else t.nodes_by_value.get(node_name)
    if Status(code) is Status.ERR_TARGET:  # node_name: the node realify emitted; fx_node: what it lowered
        declared = _core.op_targets(op) is not None
        raise TargetOpError(target, op, node_name, user_source_line(fx_node), declared) from None
    if Status(code) is Status.ERR_NOMEM:  # the core freed what it had allocated
        raise MemoryError(f"realify: out of memory in the C core ({message})") from None
    shown = fx_node.name if fx_node is not None else node_name
    if Status(code) is Status.ERR_UNSUPPORTED:
        made_of = fx_node.meta.get("realify_decomposed_from") if fx_node is not None else None
        if made_of:  # realify._decompose wrote this node: say which of the user's ops it comes from
            message = f"{message} (in the decomposition of {made_of})"
        raise UnsupportedOpError(op, shown, user_source_line(fx_node), message) from None
    where = user_source_line(fx_node) or "unknown source line"
    raise RealifyError(f"realify failed on {op} (node {shown!r}) at {where}: {status_name}: {message}") from None


def _real_const(value: torch.Tensor, real_dtype: torch.dtype, storage: bool) -> torch.Tensor:
    """The [..., 2] form of a complex constant, still a Parameter if it was one; with `storage`, a view of
    the real form of its whole storage (the graph reads it with as_strided)."""
    data = (unpack_storage if storage else unpack)(value.detach(), real_dtype)
    if isinstance(value, torch.nn.Parameter):
        return torch.nn.Parameter(data, requires_grad=value.requires_grad)
    return data


def _own_copy(value: torch.Tensor, storage: bool) -> torch.Tensor:
    """A copy of value; with `storage`, of its whole storage, seen with value's geometry (as_strided reads it)."""
    if storage:
        whole = torch.as_strided(value.detach(), (value.untyped_storage().nbytes() // value.element_size(),), (1,))
        data = torch.as_strided(whole.clone(), value.shape, value.stride(), value.storage_offset())
    else:
        data = value.detach().clone()
    if isinstance(value, torch.nn.Parameter):
        return torch.nn.Parameter(data, requires_grad=value.requires_grad)
    return data


def _planar_const(value: torch.Tensor, real_dtype: torch.dtype) -> torch.Tensor:
    """A complex constant as planar [2, ...] real (a contiguous copy made once, at lowering time)."""
    with torch.no_grad():
        data = torch.stack([value.real, value.imag]).to(real_dtype).contiguous()
    if isinstance(value, torch.nn.Parameter):
        return torch.nn.Parameter(data, requires_grad=value.requires_grad)
    return data


def _narrowed_const(value: torch.Tensor, real_dtype: torch.dtype) -> torch.Tensor:
    """A float64 parameter or buffer narrowed by truncate_double: a float32 copy, still a Parameter if it was one."""
    with torch.no_grad():
        data = value.detach().to(real_dtype)
    if isinstance(value, torch.nn.Parameter):
        return torch.nn.Parameter(data, requires_grad=value.requires_grad)
    return data


def _graph_device(gm: fx.GraphModule, t: Translation) -> torch.device:
    """Where the core's constants go: the device of the graph's first tensor input or constant."""
    vals = [p.meta.get("val") for p in t.placeholders] + [fetch_attr(gm, c.target) for c in t.consts]
    for val in vals:
        if isinstance(val, torch.Tensor) and val.device.type != "meta":
            return val.device
    return torch.device("cpu")


_PROVENANCE_KEYS = ("stack_trace", "nn_module_stack", "source_fn_stack")


def _rebuild(gm: fx.GraphModule, t: Translation, ir: IRGraph) -> tuple[fx.GraphModule, dict[fx.Node, fx.Node]]:
    """The lowered graph as FX, and for each new call node the input node it was lowered from."""
    graph = fx.Graph()
    graph._codegen = copy.deepcopy(gm.graph._codegen)
    rb = Rebuilder(graph, t.callables)
    for decl, orig in zip(ir.inputs, t.placeholders, strict=True):
        p = graph.placeholder(orig.name, type_expr=orig.type)
        p.meta = {k: v for k, v in orig.meta.items() if k != "val"}
        rb.env[decl.name] = p
    root = torch.nn.Module()
    for target in t.graph_attrs:  # higher-order ops' bodies (lowered already by realify._hops)
        install_attr(root, target, fetch_attr(gm, target), "module")
    device = _graph_device(gm, t)
    written = {
        n.args[0].target
        for n in gm.graph.nodes
        if n.target is torch.ops.aten.copy_.default and isinstance(n.args[0], fx.Node) and n.args[0].op == "get_attr"
    }
    for c in ir.consts:
        if c.data is not None:  # a constant the C core made (DFT matrices, twiddles): a buffer
            install_attr(root, c.target, const_tensor(c, device), "buffer")
            rb.env[c.decl.name] = graph.get_attr(c.target)
            continue
        value = fetch_attr(gm, c.target)
        if c.decl.packed_from is not None and not DTYPES_BY_NAME[c.decl.packed_from].is_complex:
            value = _narrowed_const(value, DTYPES_BY_NAME[c.decl.dtype])  # truncate_double: the core's !f64
        elif c.decl.packed_from is not None and c.decl.planar:
            value = _planar_const(value, DTYPES_BY_NAME[c.decl.dtype])
        elif c.decl.packed_from is not None:
            value = _real_const(value, DTYPES_BY_NAME[c.decl.dtype], c.decl.storage)
            if c.target in written:  # its real view would write into the input module's complex buffer
                value = _own_copy(value, c.decl.storage)
        install_attr(root, c.target, value, c.kind)
        rb.env[c.decl.name] = graph.get_attr(c.target)
    origins: dict[fx.Node, fx.Node] = {}
    for n in ir.nodes:
        made = rb.call(n)
        if n.origin is None:
            continue
        src = t.ir_nodes[n.origin]
        for node in made:
            origins[node] = src
            node.meta.update({k: src.meta[k] for k in _PROVENANCE_KEYS if k in src.meta})
    leaves = [rb.arg(a) for a, _ in ir.outputs]
    graph.output(pytree.tree_unflatten(leaves, t.out_spec))
    new_gm = fx.GraphModule(root, graph, class_name=type(gm).__name__)
    new_gm.meta.update(gm.meta)
    return new_gm, origins


def _signature(ir: IRGraph, t: Translation) -> Signature:
    sig = Signature()
    for i, d in enumerate(ir.inputs):
        if d.packed_from:
            sig.inputs.append(
                Boundary(
                    i,
                    t.placeholders[i].name,
                    DTYPES_BY_NAME[d.packed_from],
                    DTYPES_BY_NAME[d.dtype],
                    d.planar,
                    d.storage,
                )
            )
    for c in ir.consts:
        if c.decl.packed_from:
            sig.consts.append(
                Boundary(
                    c.target,
                    c.decl.name,
                    DTYPES_BY_NAME[c.decl.packed_from],
                    DTYPES_BY_NAME[c.decl.dtype],
                    c.decl.planar,
                    c.decl.storage,
                )
            )
    decls = {d.name: d for n in ir.nodes for d in n.outs}
    decls.update({d.name: d for d in ir.inputs})
    decls.update({c.decl.name: c.decl for c in ir.consts})  # a parameter or buffer returned unchanged
    for j, (a, mark) in enumerate(ir.outputs):
        if mark:
            real = DTYPES_BY_NAME[decls[a.name].dtype]
            sig.outputs.append(Boundary(j, a.name, DTYPES_BY_NAME[mark], real))
    return sig


def check_real_only(gm: fx.GraphModule) -> None:
    """Raise unless no value, constant or dtype argument of gm is complex."""

    for node in gm.graph.nodes:
        vals = pytree.tree_leaves(node.meta.get("val"))
        if node.op == "get_attr":
            vals.append(fetch_attr(gm, node.target))
        if node.op == "call_function":
            vals += pytree.tree_leaves((node.args, node.kwargs))
        if any(is_complex_leaf(v) for v in vals):
            raise ComplexDtypeRemainsError(f"node {node.name} ({node.format_node()}) still holds a complex dtype")
    gm.graph.lint()


def lower_graph_module(
    gm: fx.GraphModule, options: LowerOptions | None = None, **keywords: Any
) -> tuple[fx.GraphModule, LoweringReport]:
    """Lower `gm` with `options` (realify.LowerOptions), or with LowerOptions made from `keywords`, its fields
    (`planar` here may also be the RF_PLANAR_* bits, PLANAR_CONSTS | PLANAR_INPUTS, which set `planar` and
    `planar_inputs`). Returns the new graph and its report; gm is untouched."""
    if options is None:
        bits = keywords.get("planar")
        if isinstance(bits, int) and not isinstance(bits, bool):
            keywords.update(planar=bool(bits & PLANAR_CONSTS), planar_inputs=bool(bits & PLANAR_INPUTS))
        options = LowerOptions(**keywords)
    elif keywords:
        raise TypeError(f"lower_graph_module takes options or keywords, not both: {sorted(keywords)}")
    return _lower_graph(gm, options)


def _lower_graph(gm: fx.GraphModule, opts: LowerOptions) -> tuple[fx.GraphModule, LoweringReport]:
    """An op realify cannot lower raises UnsupportedOpError, or with opts.eager_fallback runs as the original complex
    op in a graph break (realify._fallback)."""
    if opts.strategy != "matmul":  # the result holds realify's FFT operators: let Inductor call the platform FFT
        native_fft.register_inductor_decompositions()
    gm = decompose_composites(gm)  # composites torch.export keeps, on complex values, as the ATen ops they are made of
    gm = functionalize_graph(gm)  # in-place ops on complex values become functional (a new graph; gm is kept)
    # a body's boundaries are values of the graph around it, never the caller's: no planar layout, no fallback
    body_opts = dataclasses.replace(opts, planar=False, planar_inputs=False, fallback="error")
    gm = lower_hop_bodies(gm, lambda body: _lower_graph(body, body_opts))  # bodies real, operands and results too
    fallbacks: list[_fallback.EagerFallback] = []
    while True:
        try:
            new_gm, report = _lower_once(gm, opts)
            break
        except UnsupportedOpError as e:
            if not opts.eager_fallback or any(f.node == e.node for f in fallbacks):
                raise
            fallbacks.append(_fallback.EagerFallback(e.op, e.node, e.source))
            gm = _fallback.isolate(gm, e.node)  # a new graph again: the given one is kept
    report.eager_fallbacks = fallbacks
    _fallback.warn(fallbacks)
    return new_gm, report


def _lower_once(gm: fx.GraphModule, opts: LowerOptions) -> tuple[fx.GraphModule, LoweringReport]:
    t = fx_to_ir(gm)
    info = _core.analyze(t.text)
    try:
        out_text, out_graph = _core.lower(t.text, graph=True, **opts.core_kwargs())
    except _core.LowerError as err:
        _raise_lower_error(err, t, opts.target)
        raise
    ir = read_graph(out_graph)
    new_gm, origins = _rebuild(gm, t, ir)
    sig = _signature(ir, t)
    recompute_meta(new_gm, t.placeholders, sig, origins)
    placeholders = [n for n in new_gm.graph.nodes if n.op == "placeholder"]
    new_gm.register_forward_pre_hook(PackedArgCheck(sig, placeholders, [p.meta.get("val") for p in placeholders]))
    new_gm.graph.eliminate_dead_code(is_impure_node=_is_impure)
    new_gm.recompile()
    check_real_only(new_gm)
    report = LoweringReport(
        complex_values=info["complex_values"],
        subgraphs=info["subgraphs"],
        complex_input_names=[t.placeholders[i].name for i in info["complex_inputs"]],
        complex_const_targets=[t.consts[i].target for i in info["complex_consts"]],
        complex_output_indices=list(info["complex_outputs"]),
        nodes_before=_count_ops(gm),
        nodes_after=_count_ops(new_gm),
        analysis=info["report"],
        signature=sig,
        ir_before=t.text,
        ir_after=out_text,
        dft_matmul_sources=dft_matmul_sources(new_gm, origins),
        patterns=list(out_graph["report"]),
    )
    new_gm.meta["realify_report"] = report
    return new_gm, report


def _is_impure(node: fx.Node) -> bool:
    """Kept by dead-code elimination. An op that returns nothing is there for its effect (`_linalg_check_errors`
    raises on a singular matrix); torch 2.11's `is_impure` does not say so, newer releases do."""
    if node.op in ("placeholder", "output") or node.is_impure():
        return True
    schema = getattr(node.target, "_schema", None)
    return node.op == "call_function" and schema is not None and not schema.returns


def _count_ops(gm: fx.GraphModule) -> int:
    return sum(1 for n in gm.graph.nodes if n.op == "call_function")


def module_check_guards_kwargs() -> dict[str, Any]:
    params = inspect.signature(torch.export.ExportedProgram.module).parameters
    return {"check_guards": False} if "check_guards" in params else {}
