"""The browser client type-checks: ``tsc --noEmit`` over its modules (tsconfig.json:
JavaScript checked against JSDoc and the generated wire types, no build step). TypeScript
comes from npm (package.json pins it, package-lock.json fixes it); ``npm ci`` installs it
when node_modules is missing. Skipped, with the reason, when Node.js or npm is missing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tsc() -> Path:
    if shutil.which("node") is None:
        pytest.skip("Node.js is missing (apt-get install nodejs npm)")
    tsc = ROOT / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is missing (apt-get install npm)")
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
    return tsc


def test_the_client_type_checks() -> None:
    done = subprocess.run([str(_tsc()), "--noEmit", "-p", "tsconfig.json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"tsc found errors:\n{done.stdout}\n{done.stderr}"
