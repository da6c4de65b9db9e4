"""After the corpus packages are installed: torchaudio's compiled libraries are built for one torch release and
fail to load on another, which makes `import torchaudio` fail. Its transforms the corpus uses (Spectrogram,
MelSpectrogram, InverseSpectrogram, GriffinLim) are Python over torch.stft, so the libraries are moved aside (to
lib/disabled/) when, and only when, they do not load. Idempotent; prints what it did."""

from __future__ import annotations

import ctypes
import importlib.util
import sys
from pathlib import Path


def main() -> int:
    spec = importlib.util.find_spec("torchaudio")
    if spec is None or spec.origin is None:
        print("corpus_setup: torchaudio not installed, nothing to do")
        return 0
    import torch  # noqa: F401  (torchaudio's libraries link against torch's, which must be loaded first)

    lib = Path(spec.origin).parent / "lib"
    disabled = lib / "disabled"
    for so in sorted(lib.glob("*.so")):
        try:
            ctypes.CDLL(str(so))
        except OSError as e:
            disabled.mkdir(exist_ok=True)
            so.replace(disabled / so.name)
            print(f"corpus_setup: moved aside {so.name} (does not load with this torch: {str(e)[:80]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
