"""Where numba keeps the compiled kernels: one folder per version of the kernels' sources.

numba's own cache (``cache=True``) is checked against the timestamp of the file that defines
a function only, so a kernel whose callee in another module changed can load stale machine
code and fail (``SystemError: ... returned a result with an exception set``). Keying the
whole cache on a digest of every source file of the packages that hold kernels (``core`` and
``engine``) makes any change start a fresh cache. ``NUMBA_CACHE_DIR`` set by the user wins.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

KERNEL_PACKAGES = ("core", "engine")
KEEP = 3
"""Cache folders kept (the most recently used); older ones are removed when a new one starts."""


def sources_digest(package: Path) -> str:
    """A digest of every ``.py`` file under the kernel packages of ``package``."""
    digest = hashlib.sha256()
    for name in KERNEL_PACKAGES:
        for path in sorted((package / name).rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gammon" / "numba"


def configure(package: Path = Path(__file__).parent) -> None:
    """Point numba at this version's cache folder (before numba is imported)."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    root = cache_root()
    folder = root / sources_digest(package)
    try:
        fresh = not folder.exists()
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
    except OSError:
        return  # not writable: numba's default (next to the sources) stays
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if fresh:
        older = sorted((p for p in root.iterdir() if p.is_dir() and p != folder),
                       key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in older[KEEP - 1:]:
            shutil.rmtree(stale, ignore_errors=True)
