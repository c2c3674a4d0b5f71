"""Import a benchmark script of ``benchmarks/`` (a folder of scripts, not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def benchmark(name: str) -> ModuleType:
    """The module ``benchmarks/<name>.py``, imported once."""
    if str(BENCHMARKS) not in sys.path:  # the scripts import their shared modules by name
        sys.path.insert(0, str(BENCHMARKS))
    module_name = f"benchmark_{name}"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]
