"""Options checked by type at the API boundary, before any work: `truncate_double="no"` must not read as True."""

from __future__ import annotations

from typing import Any


def check_options(**options: Any) -> None:
    """Flags must be bools, names strings, callbacks callable; TypeError naming the option otherwise."""
    for name, value in options.items():
        if name in ("truncate_double", "planar", "rotary_op", "direct", "hoist"):
            if not isinstance(value, bool):
                raise TypeError(f"realify: {name} must be True or False, not {value!r}")
        elif name in ("fft", "target", "backend_name", "mode"):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"realify: {name} must be a string, not {value!r}")
        elif name == "on_lowered":
            if value is not None and not callable(value):
                raise TypeError(f"realify: on_lowered must be a callable taking a CompileEvent, not {value!r}")
        else:  # pragma: no cover - a caller names an option this does not know
            raise AssertionError(f"check_options: unknown option {name}")
