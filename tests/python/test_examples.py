"""The example models (examples/realify_examples) and the demo live outside the installed package."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import realify
from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = str(Path(realify.__file__).resolve().parents[1])


def test_installed_package_holds_no_example_models() -> None:
    assert find_packages(where=str(ROOT / "python")) == ["realify"]
    for name in ("realify.zoo", "realify.demo", "realify.models"):
        assert importlib.util.find_spec(name) is None, name


def test_demo_script_finds_the_examples_from_any_directory(tmp_path: Path) -> None:
    """`make demo` runs examples/demo.py as a script: its own folder puts realify_examples on the path."""
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py"), "--help"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "--tp-inner" in proc.stdout
