"""`realify inspect`: what a user reads before lowering. Detection and the rule lookup happen in the C core;
this module maps the core's answers back to the FX nodes and their source lines."""

from __future__ import annotations

import inspect as pyinspect
from collections import Counter
from typing import Any

import torch
import torch.fx as fx

from . import _core
from ._fx_to_ir import const_kind, fx_to_ir
from .errors import RealifyError, user_source_line
from .lower import lower, module_check_guards_kwargs

TARGETS = ("portable", "tensorrt", "onnx", "executorch", "inductor")


def lower_accepts(option: str) -> bool:
    """Whether this build's realify.lower takes the keyword `option` (target=, fft=)."""
    return option in pyinspect.signature(lower).parameters


def _value_of(node: fx.Node | None) -> str:
    val = node.meta.get("val") if node is not None else None
    if isinstance(val, torch.Tensor):
        return f"{str(val.dtype).removeprefix('torch.')}{list(val.shape)}"
    return ""


def inspect_graph(gm: fx.GraphModule, *, targets: bool = True) -> dict[str, Any]:
    """A JSON-ready description of the complex part of `gm` and whether realify can lower it."""
    t = fx_to_ir(gm)
    info = _core.analyze(t.text)
    nodes = []
    for op, name, has_rule in _core.complex_nodes(t.text):
        fx_node = t.nodes_by_value.get(name)
        nodes.append({
            "op": op,
            "node": fx_node.name if fx_node is not None else name,
            "value": _value_of(fx_node),
            "has_rule": has_rule,
            "source": user_source_line(fx_node),
        })
    inputs = [{"index": i, "name": t.placeholders[i].name, "value": _value_of(t.placeholders[i])}
              for i in info["complex_inputs"]]
    consts = [{"target": t.consts[i].target, "kind": const_kind(gm, t.consts[i].target),
               "value": _value_of(t.consts[i])} for i in info["complex_consts"]]
    result: dict[str, Any] = {
        "complex_values": info["complex_values"],
        "subgraphs": info["subgraphs"],
        "complex_inputs": inputs,
        "complex_params": consts,
        "complex_outputs": list(info["complex_outputs"]),
        "complex_nodes": nodes,
        "ops_with_rules": dict(Counter(n["op"] for n in nodes if n["has_rule"])),
        "ops_without_rules": sorted({n["op"] for n in nodes if not n["has_rule"]}),
        "analysis": info["report"],
        "lowering": _try_lower(t),
    }
    result["targets"] = _try_targets(gm) if targets and result["lowering"]["ok"] else None
    if result["targets"] is None:
        result["targets_skipped"] = (
            "lowering fails" if not result["lowering"]["ok"] else "not asked" if not targets
            else "this build's realify.lower has no target= option"
        )
    return result


def _try_lower(t: Any) -> dict[str, Any]:
    """Run the core's rewrite on the IR (no FX rebuild): the first op that stops it, if any."""
    try:
        _core.lower(t.text)
    except _core.LowerError as err:
        _, code, op, name, message, _ = err.args  # status int, status name, op, node, message, node index
        fx_node = t.nodes_by_value.get(name)
        return {"ok": False, "code": code, "op": op, "node": fx_node.name if fx_node is not None else name,
                "message": message, "source": user_source_line(fx_node)}
    return {"ok": True}


def _try_targets(gm: fx.GraphModule) -> dict[str, str] | None:
    """Lower for every target and keep each one's verdict; None where realify.lower has no target= option."""
    if not lower_accepts("target"):
        return None
    verdicts = {}
    for name in TARGETS:
        try:
            lower(gm, target=name)  # type: ignore[call-arg]
            verdicts[name] = "ok"
        except (RealifyError, ValueError, NotImplementedError) as e:
            verdicts[name] = str(e).splitlines()[0]
    return verdicts


def inspect_program(ep: torch.export.ExportedProgram, *, targets: bool = True) -> dict[str, Any]:
    return inspect_graph(ep.module(**module_check_guards_kwargs()), targets=targets)


def format_inspection(r: dict[str, Any]) -> str:
    """The human-readable form of inspect_graph's result."""
    out = [f"complex values: {r['complex_values']}   complex subgraphs: {r['subgraphs']}"]
    out.append("complex inputs: " + (", ".join(f"{i['index']}:{i['name']} {i['value']}" for i in r["complex_inputs"])
                                     or "none"))
    out.append("complex params/buffers/constants: " + (
        ", ".join(f"{c['target']} ({c['kind']}) {c['value']}" for c in r["complex_params"]) or "none"))
    out.append("complex outputs: " + (", ".join(str(i) for i in r["complex_outputs"]) or "none"))
    out.append("subgraphs and boundaries:")
    out += ["  " + line for line in r["analysis"].splitlines() if not line.startswith("complex ")]
    first_source: dict[str, str | None] = {}
    for n in r["complex_nodes"]:
        first_source.setdefault(n["op"], n["source"])
    out.append(f"ops with rules ({len(r['ops_with_rules'])}):")
    for op, count in sorted(r["ops_with_rules"].items()):
        out.append(f"  {op} x{count}   first at {first_source[op] or 'no source line'}")
    missing = [n for n in r["complex_nodes"] if not n["has_rule"]]
    out.append(f"ops without rules ({len(r['ops_without_rules'])}):" if missing else "ops without rules: none")
    for n in missing:
        out.append(f"  {n['op']} (node {n['node']!r} {n['value']}) at {n['source'] or 'no source line recorded'}")
    low = r["lowering"]
    if low["ok"]:
        out.append("lowering: ok")
    else:
        out.append(f"lowering: fails at {low['op']} (node {low['node']!r}): {low['code']}: {low['message']}; "
                   f"at {low['source'] or 'no source line recorded'}")
    if r["targets"] is None:
        out.append(f"targets: not checked ({r['targets_skipped']})")
    else:
        out.append("targets:")
        out += [f"  {name}: {verdict}" for name, verdict in r["targets"].items()]
    return "\n".join(out)
