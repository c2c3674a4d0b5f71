"""The compiled kernels' cache folder follows every change of the kernels' sources, so a
kernel never loads machine code compiled against an older version of a function it calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gammon import _kernel_cache


def make_package(root: Path) -> Path:
    for name, text in {"core/a.py": "x = 1\n", "engine/b.py": "y = 2\n",
                       "server/c.py": "z = 3\n"}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_change_in_any_kernel_module_gives_a_new_folder(tmp_path: Path) -> None:
    package = make_package(tmp_path / "pkg")
    before = _kernel_cache.sources_digest(package)
    (package / "engine" / "b.py").write_text("y = 3\n")
    after_engine = _kernel_cache.sources_digest(package)
    (package / "core" / "a.py").write_text("x = 2\n")
    after_core = _kernel_cache.sources_digest(package)
    assert len({before, after_engine, after_core}) == 3


def test_modules_without_kernels_do_not_change_the_folder(tmp_path: Path) -> None:
    package = make_package(tmp_path / "pkg")
    before = _kernel_cache.sources_digest(package)
    (package / "server" / "c.py").write_text("z = 4\n")
    assert _kernel_cache.sources_digest(package) == before


def test_every_package_with_kernels_keys_the_folder(tmp_path: Path) -> None:
    """The training pipeline's kernels call the engine's, so a change in it, too, gives a
    new folder; and every package of the source that compiles a kernel is a kernel package."""
    package = make_package(tmp_path / "pkg")
    before = _kernel_cache.sources_digest(package)
    (package / "training").mkdir()
    (package / "training" / "d.py").write_text("w = 1\n")
    assert _kernel_cache.sources_digest(package) != before
    source = Path(_kernel_cache.__file__).parent
    compiling = {path.relative_to(source).parts[0] for path in source.rglob("*.py")
                 if "njit" in path.read_text(encoding="utf-8") and path.parent != source}
    assert compiling == set(_kernel_cache.KERNEL_PACKAGES)


def test_configure_sets_the_folder_keeps_the_newest_and_those_in_use_and_respects_the_user(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = make_package(tmp_path / "pkg")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    folders = []
    for version in range(5):
        (package / "core" / "a.py").write_text(f"x = {version}\n")
        monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
        _kernel_cache.configure(package)
        folders.append(Path(os.environ["NUMBA_CACHE_DIR"]))
        os.utime(folders[-1], (version, version))  # distinct ages, oldest first
    assert folders[-1].parent == tmp_path / "cache" / "gammon" / "numba"
    kept = sorted(p.name for p in folders[-1].parent.iterdir())
    assert kept == sorted(f.name for f in folders[-_kernel_cache.KEEP:])

    # a folder used within the last day may be another checkout's, in use: it stays
    recent = time.time() - _kernel_cache.IN_USE + 600
    for folder in folders[-_kernel_cache.KEEP:]:
        os.utime(folder, (recent, recent))
    (package / "core" / "a.py").write_text("x = 5\n")
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    _kernel_cache.configure(package)
    kept = sorted(p.name for p in folders[-1].parent.iterdir())
    assert len(kept) == _kernel_cache.KEEP + 1
    assert {f.name for f in folders[-_kernel_cache.KEEP:]} <= set(kept)

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    _kernel_cache.configure(package)
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


KERNEL_SOURCE = "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"

RUN_KERNEL = """
import json, os, sys
from pathlib import Path
from gammon import _kernel_cache  # configures gammon's own cache: undo that
os.environ.pop("NUMBA_CACHE_DIR", None)
if len(sys.argv) > 2:  # the folder a parent process left in the environment
    os.environ["NUMBA_CACHE_DIR"] = sys.argv[2]
package = Path(sys.argv[1])
_kernel_cache.configure(package)
sys.path.insert(0, str(package.parent))
from kernels.core.k import twice
assert twice(21) == 42
print(json.dumps({"hits": len(twice.stats.cache_hits), "misses": len(twice.stats.cache_misses),
                  "path": twice.stats.cache_path}))
"""


def run_kernel(package: Path, cache: Path, numba_cache_dir: str | None = None
               ) -> dict[str, object]:
    """Run the kernel of ``package`` in a new process, with ``NUMBA_CACHE_DIR`` as a parent
    process left it (None: unset)."""
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    environment.pop("NUMBA_CACHE_DIR", None)
    inherited = [] if numba_cache_dir is None else [numba_cache_dir]
    done = subprocess.run([sys.executable, "-c", RUN_KERNEL, str(package), *inherited],
                          env=environment,
                          capture_output=True, text=True, check=True, timeout=300)
    answer: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return answer


def test_a_second_checkout_of_the_same_sources_loads_the_compiled_kernels(
        tmp_path: Path) -> None:
    """A fresh clone elsewhere (CI's) finds the kernels another checkout compiled; a changed
    source still compiles anew."""
    checkouts = []
    for name in ("first", "second", "changed"):
        package = tmp_path / name / "kernels"
        (package / "core").mkdir(parents=True)
        (package / "engine").mkdir()
        (package / "core" / "k.py").write_text(KERNEL_SOURCE)
        checkouts.append(package)
    (checkouts[2] / "core" / "k.py").write_text(KERNEL_SOURCE + "\n# changed\n")
    cache = tmp_path / "cache"
    first = run_kernel(checkouts[0], cache)
    assert (first["hits"], first["misses"]) == (0, 1)
    second = run_kernel(checkouts[1], cache)
    assert (second["hits"], second["misses"]) == (1, 0)
    assert second["path"] == first["path"]
    changed = run_kernel(checkouts[2], cache)
    assert (changed["hits"], changed["misses"]) == (0, 1)


def test_a_child_process_files_its_kernels_as_its_parent_does(tmp_path: Path) -> None:
    """A process started by one that configured the cache (the server's analysis workers, a
    test's ``gammon serve``) inherits ``NUMBA_CACHE_DIR`` and still loads the shared kernels."""
    checkouts = []
    for name in ("first", "second"):
        package = tmp_path / name / "kernels"
        (package / "core").mkdir(parents=True)
        (package / "core" / "k.py").write_text(KERNEL_SOURCE)
        checkouts.append(package)
    cache = tmp_path / "cache"
    first = run_kernel(checkouts[0], cache)
    assert (first["hits"], first["misses"]) == (0, 1)
    chosen = cache / "gammon" / "numba" / _kernel_cache.sources_digest(checkouts[1])
    child = run_kernel(checkouts[1], cache, numba_cache_dir=str(chosen))
    assert (child["hits"], child["misses"]) == (1, 0)
    assert child["path"] == first["path"]
