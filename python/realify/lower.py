"""realify.lower: FX graph -> C core -> new real-only FX graph."""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx as fx
from torch.utils import _pytree as pytree

from . import _core
from ._fx_to_ir import DTYPES_BY_NAME, Translation, fetch_attr, fx_to_ir
from ._ir_to_fx import IRGraph, Rebuilder, const_tensor, parse_ir
from ._meta import recompute_meta
from .errors import ComplexDtypeRemainsError, RealifyError, UnsupportedOpError, user_source_line
from .targets import check_target, validate_target


@dataclass(frozen=True)
class Boundary:
    """A complex tensor that crosses the lowered graph's boundary as real [..., 2]."""

    position: int | str  # input index, constant target, or flat output index
    name: str
    complex_dtype: torch.dtype
    real_dtype: torch.dtype


@dataclass
class Signature:
    inputs: list[Boundary] = field(default_factory=list)
    consts: list[Boundary] = field(default_factory=list)
    outputs: list[Boundary] = field(default_factory=list)


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


def lower(
    model: fx.GraphModule | torch.export.ExportedProgram, *, truncate_double: bool = False, target: str = "portable"
) -> Any:
    """Rewrite every complex value of `model` into real ops.

    A GraphModule gives a new GraphModule; an ExportedProgram gives a new
    ExportedProgram. Complex inputs, parameters, buffers, constants and outputs
    become real tensors of shape S+(2,) in view_as_real layout. `model` is not
    modified. `target` ("portable", "tensorrt", "onnx", "executorch", "inductor",
    "openvino", "coreml") names who receives the result: every op realify
    emitted is checked against that target's op set (realify.targets).
    """
    if isinstance(model, torch.export.ExportedProgram):
        from ._export import lower_exported_program

        return lower_exported_program(model, truncate_double=truncate_double, target=target)
    if isinstance(model, fx.GraphModule):
        return lower_graph_module(model, truncate_double=truncate_double, target=target)[0]
    raise TypeError(f"realify.lower takes a GraphModule or an ExportedProgram, not {type(model).__name__}")


def _raise_lower_error(err: Any, t: Translation) -> None:
    code, op, node_name, message = err.args
    fx_node = t.nodes_by_value.get(node_name)
    shown = fx_node.name if fx_node is not None else node_name
    if code == "unsupported op":
        raise UnsupportedOpError(op, shown, user_source_line(fx_node), message) from None
    where = user_source_line(fx_node) or "unknown source line"
    raise RealifyError(f"realify failed on {op} (node {shown!r}) at {where}: {code}: {message}") from None


def _install(root: torch.nn.Module, target: str, value: torch.Tensor, kind: str) -> None:
    *path, leaf = target.split(".")
    mod = root
    for p in path:
        if not hasattr(mod, p):
            mod.add_module(p, torch.nn.Module())
        mod = getattr(mod, p)
    if kind == "param":
        param = value if isinstance(value, torch.nn.Parameter) else torch.nn.Parameter(value, value.requires_grad)
        mod.register_parameter(leaf, param)
    elif kind == "buffer":
        mod.register_buffer(leaf, value)
    else:
        setattr(mod, leaf, value)


def _real_const(value: torch.Tensor, real_dtype: torch.dtype) -> torch.Tensor:
    """view_as_real of a complex constant: a view unless a dtype change forces a copy."""
    data = torch.view_as_real(value.detach().resolve_conj())
    if data.dtype != real_dtype:
        data = data.to(real_dtype)
    if isinstance(value, torch.nn.Parameter):
        return torch.nn.Parameter(data, requires_grad=value.requires_grad)
    return data


def _source_node(name: str, t: Translation) -> fx.Node | None:
    """The original node a lowered value came from: its name, or a prefix of it."""
    while True:
        if name in t.nodes_by_value:
            return t.nodes_by_value[name]
        if "_" not in name:
            return None
        name = name.rsplit("_", 1)[0]


def _graph_device(gm: fx.GraphModule, t: Translation) -> torch.device:
    """Where the core's constants go: the device of the graph's first tensor input or constant."""
    vals = [p.meta.get("val") for p in t.placeholders] + [fetch_attr(gm, c.target) for c in t.consts]
    for val in vals:
        if isinstance(val, torch.Tensor) and val.device.type != "meta":
            return val.device
    return torch.device("cpu")


def _rebuild(gm: fx.GraphModule, t: Translation, ir: IRGraph) -> fx.GraphModule:
    graph = fx.Graph()
    graph._codegen = copy.deepcopy(gm.graph._codegen)
    rb = Rebuilder(graph, t.callables)
    for decl, orig in zip(ir.inputs, t.placeholders, strict=True):
        p = graph.placeholder(orig.name, type_expr=orig.type)
        p.meta = {k: v for k, v in orig.meta.items() if k != "val"}
        rb.env[decl.name] = p
    root = torch.nn.Module()
    device = _graph_device(gm, t)
    for c in ir.consts:
        if c.data is not None:  # a constant the C core made (DFT matrices, twiddles): a buffer
            _install(root, c.target, const_tensor(c, device), "buffer")
            rb.env[c.decl.name] = graph.get_attr(c.target)
            continue
        value = fetch_attr(gm, c.target)
        if c.decl.packed_from is not None:
            value = _real_const(value, DTYPES_BY_NAME[c.decl.dtype])
        _install(root, c.target, value, c.kind)
        rb.env[c.decl.name] = graph.get_attr(c.target)
    for n in ir.nodes:
        rb.call(n)
    leaves = [rb.arg(a) for a, _ in ir.outputs]
    graph.output(pytree.tree_unflatten(leaves, t.out_spec))
    for node in graph.nodes:
        if node.op == "call_function":
            src = _source_node(node.name, t)
            if src is not None:
                for key in ("stack_trace", "nn_module_stack", "source_fn_stack"):
                    if key in src.meta:
                        node.meta[key] = src.meta[key]
    new_gm = fx.GraphModule(root, graph, class_name=type(gm).__name__)
    new_gm.meta.update(gm.meta)
    return new_gm


def _signature(ir: IRGraph, t: Translation) -> Signature:
    sig = Signature()
    for i, d in enumerate(ir.inputs):
        if d.packed_from:
            sig.inputs.append(
                Boundary(i, t.placeholders[i].name, DTYPES_BY_NAME[d.packed_from], DTYPES_BY_NAME[d.dtype])
            )
    for c in ir.consts:
        if c.decl.packed_from:
            sig.consts.append(
                Boundary(c.target, c.decl.name, DTYPES_BY_NAME[c.decl.packed_from], DTYPES_BY_NAME[c.decl.dtype])
            )
    decls = {d.name: d for n in ir.nodes for d in n.outs}
    decls.update({d.name: d for d in ir.inputs})
    for j, (a, mark) in enumerate(ir.outputs):
        if mark:
            real = DTYPES_BY_NAME[decls[a.name].dtype]
            sig.outputs.append(Boundary(j, a.name, DTYPES_BY_NAME[mark], real))
    return sig


def check_real_only(gm: fx.GraphModule) -> None:
    """Raise unless no value, constant or dtype argument of gm is complex."""

    def bad(x: Any) -> bool:
        if isinstance(x, torch.Tensor):
            return x.is_complex()
        if isinstance(x, torch.dtype):
            return x.is_complex
        return isinstance(x, complex)

    for node in gm.graph.nodes:
        vals = pytree.tree_leaves(node.meta.get("val"))
        if node.op == "get_attr":
            vals.append(fetch_attr(gm, node.target))
        if node.op == "call_function":
            vals += pytree.tree_leaves((node.args, node.kwargs))
        if any(bad(v) for v in vals):
            raise ComplexDtypeRemainsError(f"node {node.name} ({node.format_node()}) still holds a complex dtype")
    gm.graph.lint()


def lower_graph_module(
    gm: fx.GraphModule, *, truncate_double: bool = False, target: str = "portable"
) -> tuple[fx.GraphModule, LoweringReport]:
    validate_target(target)
    t = fx_to_ir(gm)
    info = _core.analyze(t.text)
    try:
        out_text = _core.lower(t.text, truncate_double=truncate_double)
    except _core.LowerError as err:
        _raise_lower_error(err, t)
        raise
    ir = parse_ir(out_text)
    new_gm = _rebuild(gm, t, ir)
    sig = _signature(ir, t)
    recompute_meta(new_gm, t.placeholders, sig, truncate_double, _originals_by_name(gm))
    new_gm.graph.eliminate_dead_code(is_impure_node=_is_impure)
    new_gm.recompile()
    check_real_only(new_gm)
    check_target(new_gm, _originals_by_name(gm), target)
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
    )
    new_gm.meta["realify_report"] = report
    return new_gm, report


def _originals_by_name(gm: fx.GraphModule) -> dict[str, fx.Node]:
    return {n.name: n for n in gm.graph.nodes}


def _is_impure(node: fx.Node) -> bool:
    return node.op in ("placeholder", "output") or node.is_impure()


def _count_ops(gm: fx.GraphModule) -> int:
    return sum(1 for n in gm.graph.nodes if n.op == "call_function")


def module_check_guards_kwargs() -> dict[str, Any]:
    params = inspect.signature(torch.export.ExportedProgram.module).parameters
    return {"check_guards": False} if "check_guards" in params else {}
