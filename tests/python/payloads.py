"""A pickle that runs code when it is loaded: the payload tests/python/test_security.py and tools/hostile_cases.py
plant in artifacts. It only writes a marker file, so a test can tell that the code ran."""

from __future__ import annotations

import io
import pickle
from pathlib import Path

import torch


class Payload:
    """Unpickling this calls eval, which writes `marker`."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (eval, (f"open({self.marker!r}, 'w').write('ran')",))


def payloads(marker: Path) -> dict[str, bytes]:
    """The payload as torch.save writes it (a zip with data.pkl) and as a bare pickle."""
    buf = io.BytesIO()
    torch.save(Payload(str(marker)), buf)
    return {"torch.save": buf.getvalue(), "pickle": pickle.dumps(Payload(str(marker)), protocol=2)}
