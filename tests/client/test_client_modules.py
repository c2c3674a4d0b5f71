"""The client's modules that need no browser, in Node: the match page's controller
(round/ctrl.js) driven through its live feed with no DOM (tests/client/js/*.test.mjs, Node's
built-in test runner). Skipped, with the reason, when Node is missing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

JS_TESTS = sorted((Path(__file__).parent / "js").glob("*.test.mjs"))
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="Node.js is missing (apt-get install nodejs)")
def test_the_client_modules_pass_their_node_tests() -> None:
    assert JS_TESTS, "no Node tests found"
    result = subprocess.run([str(NODE), "--test", *map(str, JS_TESTS)], capture_output=True,
                            text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
