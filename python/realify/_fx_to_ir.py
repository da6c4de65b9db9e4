"""Translate an FX graph (with meta["val"]) into realify's text IR."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx as fx
from torch.utils import _pytree as pytree

from .errors import GraphCaptureError

DTYPE_NAMES: dict[torch.dtype, str] = {
    torch.bool: "b8",
    torch.uint8: "u8",
    torch.int8: "i8",
    torch.int16: "i16",
    torch.int32: "i32",
    torch.int64: "i64",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.float32: "f32",
    torch.float64: "f64",
    torch.complex32: "c32",
    torch.complex64: "c64",
    torch.complex128: "c128",
}
DTYPES_BY_NAME: dict[str, torch.dtype] = {v: k for k, v in DTYPE_NAMES.items()}

# Tagged strings carry torch objects that are not plain data through the IR.
TAGS: dict[type, str] = {torch.device: "device", torch.layout: "layout", torch.memory_format: "memory_format"}


@dataclass
class Translation:
    """The IR text plus what is needed to map the lowered IR back to FX."""

    text: str
    placeholders: list[fx.Node]
    consts: list[fx.Node]
    nodes_by_value: dict[str, fx.Node]  # IR value name -> FX node that produced it
    callables: dict[str, Callable[..., Any]]  # "py:..." op name -> python callable
    out_spec: pytree.TreeSpec
    complex_values: int = 0
    value_names: dict[fx.Node, list[str]] = field(default_factory=dict)
    ir_nodes: list[fx.Node] = field(default_factory=list)  # FX node of each IR node, in IR order
    graph_attrs: list[str] = field(default_factory=list)  # get_attr targets of higher-order ops' bodies


def op_name(target: Any) -> str | None:
    if isinstance(target, torch._ops.OpOverload):
        return str(target)
    return None


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def format_float(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    r = repr(x)
    return r if any(c in r for c in ".en") else r + ".0"


def _dim_text(d: Any) -> str:
    if isinstance(d, int):
        return str(d)
    s = str(d)
    return s if s.isidentifier() else _quote(s)


def type_text(val: Any) -> str:
    if isinstance(val, torch.Tensor):
        if val.dtype not in DTYPE_NAMES:
            raise GraphCaptureError(f"dtype {val.dtype} has no IR name")
        return f"{DTYPE_NAMES[val.dtype]}[{', '.join(_dim_text(d) for d in val.shape)}]"
    if isinstance(val, torch.SymInt):
        return "symint"
    if isinstance(val, torch.SymFloat):
        return "symfloat"
    if isinstance(val, torch.SymBool):
        return "symbool"
    return "object"


class _Translator:
    def __init__(self, gm: fx.GraphModule) -> None:
        self.gm = gm
        self.used: set[str] = set()
        self.names: dict[fx.Node, list[str]] = {}
        self.by_value: dict[str, fx.Node] = {}
        self.callables: dict[str, Callable[..., Any]] = {}
        self.lines: list[str] = []
        self.complex_values = 0
        self.multi: set[fx.Node] = set()  # nodes whose value is a tuple or list
        self.ir_nodes: list[fx.Node] = []
        self.graph_attrs: dict[fx.Node, str] = {}  # get_attr of a GraphModule (a HOP's body): "@graph:<target>"

    def fresh(self, hint: str) -> str:
        name, k = hint, 0
        while name in self.used:
            k += 1
            name = f"{hint}_{k}"
        self.used.add(name)
        return name

    def define(self, node: fx.Node, vals: list[Any], multi: bool = False) -> list[str]:
        names = []
        for i, v in enumerate(vals):
            name = self.fresh(f"{node.name}_{i}" if multi else node.name)
            names.append(f"%{name}: {type_text(v)}")
            self.by_value[name] = node
            if isinstance(v, torch.Tensor) and v.is_complex():
                self.complex_values += 1
        self.names[node] = [n.split(":")[0][1:] for n in names]
        return names

    def value_ref(self, node: fx.Node) -> str:
        if node.op == "call_function" and node.target is operator.getitem:
            src, idx = node.args
            if isinstance(src, fx.Node) and src in self.multi:
                return "%" + self.names[src][idx]
        if node in self.multi:
            return "[" + ", ".join("%" + n for n in self.names[node]) + "]"
        if node not in self.names or len(self.names[node]) != 1:
            raise GraphCaptureError(f"node {node.name} is used as a single value but is not one")
        return "%" + self.names[node][0]

    def attr(self, a: Any) -> str:
        if isinstance(a, fx.Node) and a in self.graph_attrs:
            return _quote("@graph:" + self.graph_attrs[a])
        if isinstance(a, fx.Node):
            return self.value_ref(a)
        if a is None:
            return "none"
        if isinstance(a, bool):
            return "true" if a else "false"
        if isinstance(a, int):
            return str(a)
        if isinstance(a, float):
            return format_float(a)
        if isinstance(a, complex):
            return f"complex({format_float(a.real)}, {format_float(a.imag)})"
        if isinstance(a, str):
            return _quote("@" + a if a.startswith("@") else a)
        if isinstance(a, torch.dtype):
            return DTYPE_NAMES[a]
        for typ, tag in TAGS.items():
            if isinstance(a, typ):
                return _quote(f"@{tag}:{str(a).replace('torch.', '')}")
        if isinstance(a, (list, tuple)):
            return "[" + ", ".join(self.attr(x) for x in a) + "]"
        raise GraphCaptureError(f"argument {a!r} of type {type(a).__name__} cannot be expressed in the IR")

    def named_args(self, node: fx.Node) -> list[tuple[str, Any]]:
        target = node.target
        if isinstance(target, torch._ops.OpOverload):
            schema = target._schema.arguments
            if len(node.args) > len(schema):
                raise GraphCaptureError(f"{target} got more arguments than its schema has")
            out = [(schema[i].name, a) for i, a in enumerate(node.args)] + list(node.kwargs.items())
            return _same_device(node, out) + _layout_fact(node, out)
        return [(f"arg{i}", a) for i, a in enumerate(node.args)] + list(node.kwargs.items())

    def with_effects(self, node: fx.Node) -> None:
        """aot_autograd threads an effectful op (the _linalg_check_errors behind linalg.solve, inv, cholesky)
        through with_effects(token, op, *args): the IR gets the op itself, and the token is passed on unchanged."""
        token, op, *args = node.args
        if not isinstance(op, torch._ops.OpOverload) or op._schema.returns or not isinstance(token, fx.Node):
            raise GraphCaptureError(f"with_effects of {op} (an op with results) cannot be expressed in the IR")
        self.multi.add(node)
        self.names[node] = list(self.names[token])  # the token out is the token in (None at run time)
        schema = op._schema.arguments
        named = [(schema[i].name, a) for i, a in enumerate(args)] + list(node.kwargs.items())
        self.lines.append(f"  () = {op_name(op)}({', '.join(f'{k}={self.attr(v)}' for k, v in named)})")
        self.ir_nodes.append(node)

    def call(self, node: fx.Node) -> None:
        target = node.target
        if target is torch.ops.higher_order.with_effects:
            return self.with_effects(node)
        if target is operator.getitem and isinstance(node.args[0], fx.Node):
            src = node.args[0]
            if src in self.multi:
                return  # an output of a multi-output node
        name = op_name(target)
        if isinstance(target, torch._ops.HigherOrderOperator):
            # a HOP the C core copies (realify._hops made its operands and results real); always a tuple of results
            name = f"py:higher_order.{target.name()}"
            self.callables[name] = target
            if not isinstance(node.meta.get("val"), (list, tuple)):
                raise GraphCaptureError(f"{node.name} ({name[3:]}) has no tuple of results in meta['val']")
        elif name is None:
            name = f"py:{getattr(target, '__module__', None) or 'builtins'}.{getattr(target, '__qualname__', target)}"
            name = name.replace(" ", "_").replace("<", "_").replace(">", "_")
            self.callables[name] = target
        val = node.meta.get("val", _written_value(node))
        if isinstance(val, (list, tuple)):
            vals = list(val)
            self.multi.add(node)
        elif val is None and isinstance(target, torch._ops.OpOverload) and not target._schema.returns:
            vals = []  # an op that returns nothing (a check such as _linalg_check_errors)
        elif val is None and "val" not in node.meta:
            raise GraphCaptureError(
                f"node {node.name} has no meta['val']; capture the graph with torch.export, make_fx or aot_autograd"
            )
        elif val is None and node.users:
            vals = [None]  # an object other nodes take (_enter_autocast's context, for _exit_autocast)
        elif val is None:
            vals = []
        else:
            vals = [val]
        outs = self.define(node, vals, node in self.multi)
        args = ", ".join(f"{k}={self.attr(v)}" for k, v in self.named_args(node))
        lhs = ", ".join(outs) if outs else "()"
        self.lines.append(f"  {lhs} = {name}({args})")
        self.ir_nodes.append(node)


def _same_device(node: fx.Node, args: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """A _to_copy to the device its input is on (type_as writes one) says nothing: the argument is left out, so the
    C core can tell a cast from a move between devices (it never sees devices)."""
    if node.target is not torch.ops.aten._to_copy.default or not node.args or not isinstance(node.args[0], fx.Node):
        return args
    src = node.args[0].meta.get("val")
    if not isinstance(src, torch.Tensor):
        return args
    return [(k, v) for k, v in args if not (k == "device" and v is not None and torch.device(v) == src.device)]


def _layout_fact(node: fx.Node, args: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The IR records no strides. A complex clone that preserves its input's layout (the default) and that the trace
    shows contiguous is the same tensor as a clone to contiguous_format: saying so lets the C core rely on that
    layout (as_strided on it, which functionalized resize_ leaves behind, is then exact)."""
    if node.target is not torch.ops.aten.clone.default or any(k == "memory_format" for k, _ in args):
        return []
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor) or not val.is_complex():
        return []
    if not all(isinstance(d, int) for d in (*val.shape, *val.stride())):
        return []  # symbolic: contiguity would need a guard
    return [("memory_format", torch.contiguous_format)] if val.is_contiguous() else []


def _written_value(node: fx.Node) -> Any:
    """The value of an in-place op that returns its first argument (the copy_ write-backs that
    ExportedProgram.module() adds carry no meta["val"]): that argument's value. None otherwise."""
    target = node.target
    if not isinstance(target, torch._ops.OpOverload) or not node.args or not isinstance(node.args[0], fx.Node):
        return None
    rets, first = target._schema.returns, target._schema.arguments[0]
    aliased = len(rets) == 1 and rets[0].alias_info is not None and first.alias_info is not None
    if aliased and rets[0].alias_info.is_write and rets[0].alias_info.before_set == first.alias_info.before_set:
        return node.args[0].meta.get("val")
    return None


def const_kind(gm: fx.GraphModule, target: str) -> str:
    *path, leaf = target.split(".")
    mod: Any = gm
    for p in path:
        mod = getattr(mod, p)
    if isinstance(mod, torch.nn.Module):
        if leaf in mod._parameters:
            return "param"
        if leaf in mod._buffers:
            return "buffer"
    return "constant"


def fetch_attr(gm: fx.GraphModule, target: str) -> Any:
    obj: Any = gm
    for p in target.split("."):
        obj = getattr(obj, p)
    return obj


def fx_to_ir(gm: fx.GraphModule) -> Translation:
    t = _Translator(gm)
    placeholders, consts = [], []
    t.lines.append("graph {")
    output_node = None
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            if "val" not in node.meta:
                raise GraphCaptureError(
                    f"input {node.name} has no meta['val']; capture the graph with torch.export, make_fx or "
                    "aot_autograd"
                )
            (decl,) = t.define(node, [node.meta["val"]])
            t.lines.append(f"  input {decl}")
            placeholders.append(node)
        elif node.op == "get_attr":
            value = fetch_attr(gm, node.target)
            if isinstance(value, fx.GraphModule):  # a higher-order op's body: passed by name, not as a value
                t.graph_attrs[node] = node.target
                continue
            if not isinstance(value, torch.Tensor):
                raise GraphCaptureError(f"get_attr {node.target} is a {type(value).__name__}, not a tensor")
            (decl,) = t.define(node, [value])
            t.lines.append(f"  const {decl} = {const_kind(gm, node.target)} {_quote(node.target)}")
            consts.append(node)
        elif node.op == "call_function":
            t.call(node)
        elif node.op == "output":
            output_node = node
        elif node.op == "call_module" and node.target == "_guards_fn" and not node.users:
            # ep.module()'s input-shape guard: it checks the complex signature, which lowering
            # replaces; re-export (realify.lower on the ExportedProgram) makes new guards.
            continue
        else:
            raise GraphCaptureError(f"{node.op} node {node.name} is not supported; lower an aten-level graph")
    assert output_node is not None
    leaves, spec = pytree.tree_flatten(output_node.args[0])
    t.lines.append("  output (" + ", ".join(t.attr(x) for x in leaves) + ")")
    t.lines.append("}")
    return Translation(
        text="\n".join(t.lines) + "\n",
        placeholders=placeholders,
        consts=consts,
        nodes_by_value=t.by_value,
        callables=t.callables,
        out_spec=spec,
        complex_values=t.complex_values,
        value_names=t.names,
        ir_nodes=t.ir_nodes,
        graph_attrs=sorted(set(t.graph_attrs.values())),
    )


def install_attr(root: torch.nn.Module, target: str, value: Any, kind: str) -> None:
    """Set the dotted `target` on `root` as a parameter, buffer or plain attribute, adding submodules."""
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
