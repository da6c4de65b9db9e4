"""One lock for the parts of torch whose global state is not thread-safe.

torch.export's decompositions register Python kernels on ops for the duration of a trace ("Trying to override a
python impl" when two threads trace at once), its deserializer keeps the current deserializer in a global, and
dynamo's backend registry checks, then registers. realify takes dynamo's own compile lock (an RLock) around each
of these: torch.compile already holds it while a backend runs, so the backend and realify.lower called from other
threads wait for each other in one order and cannot deadlock.
"""

from __future__ import annotations

import threading

_fallback = threading.RLock()


def torch_lock() -> threading.RLock:
    try:
        from torch._dynamo.convert_frame import compile_lock
    except ImportError:  # pragma: no cover - dynamo is part of every supported torch
        return _fallback
    return compile_lock
