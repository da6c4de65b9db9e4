"""Atomic file writes: everything realify writes goes to a temporary folder beside the target and is renamed over
it only when complete, so an error or a signal mid-write leaves the previous file as it was.

A folder rather than a file because an ONNX model may come with external data files named after the model
(`model.onnx.data`): the writer writes under the target's own name in the folder, and each file it made moves
next to the target, the named one last.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator

SLOW_WRITE_ENV = "REALIFY_TEST_SLOW_WRITE"  # test hook: seconds to wait between writing and renaming


def check_output_path(path: str | os.PathLike[str], *, force: bool = True,
                      inputs: tuple[str | os.PathLike[str], ...] = ()) -> str:
    """The output path as a string, or ValueError/FileExistsError saying why it cannot be written."""
    p = os.fspath(path)
    if os.path.isdir(p):
        raise IsADirectoryError(f"{p}: is a directory")
    folder = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{p}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"{p}: the folder {folder} is not writable")
    for q in inputs:
        if os.path.exists(p) and os.path.samefile(p, q):
            raise ValueError(f"{p}: is also the input; write the result to another file")
    if not force and os.path.lexists(p):
        raise FileExistsError(f"{p}: exists (pass --force to replace it)")
    return p


def _pause_for_tests() -> None:
    delay = float(os.environ.get(SLOW_WRITE_ENV, "0") or 0)
    end = time.monotonic() + delay
    while time.monotonic() < end:  # short sleeps: a signal's handler runs between them
        time.sleep(0.05)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[str]:
    """Yield a path with the target's own name in a fresh folder beside it; on success every file written there
    replaces its namesake beside the target (os.replace, atomic within a filesystem), on failure none does."""
    target = os.path.abspath(os.fspath(path))
    folder, name = os.path.split(target)
    staging = tempfile.mkdtemp(prefix=f".{name}.", suffix=".partial", dir=folder)
    try:
        yield os.path.join(staging, name)
        _pause_for_tests()
        made = sorted(os.listdir(staging), key=lambda f: f == name)  # the named file last: it points at the rest
        if name not in made:
            raise OSError(f"{target}: the writer produced no file")
        blocked = {signal.SIGINT, signal.SIGTERM}
        old = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)  # no signal between the renames of one output
        try:
            for f in made:
                os.replace(os.path.join(staging, f), os.path.join(folder, f))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    with atomic_output(path) as tmp, open(tmp, "w") as f:
        f.write(text)
