"""Where numba keeps the compiled kernels: one folder per version of the kernels' sources,
the same folder for every copy of those sources.

numba's own cache (``cache=True``) is checked against the file that defines a function only,
so a kernel whose callee in another module changed can load stale machine code and fail
(``SystemError: ... returned a result with an exception set``). Keying the whole cache on a
digest of every source file of the packages that hold kernels (``core``, ``engine`` and
``training``) makes any change start a fresh cache.

numba also files each module's kernels under a hash of the folder the module lies in, so a
second checkout of the same sources (a fresh clone, CI's) compiled everything again. Inside
the digest's folder our kernels are filed by their path within the package instead
(:class:`PackageLocator`), so every checkout of the same sources shares one cache.
``NUMBA_CACHE_DIR`` set by the user wins, with numba's own filing; set by this module in a
parent process (a server's analysis workers, a test's ``gammon serve``) it is the same folder,
and the child files its kernels as the parent does.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path
from typing import Any, ClassVar

KERNEL_PACKAGES = ("core", "engine", "training")
KEEP = 3
"""Cache folders kept (the most recently used); older ones are removed when a new one starts,
unless they were used within :data:`IN_USE` seconds."""
IN_USE = 24 * 3600
"""A folder used this recently (each process that loads the kernels touches its folder) may
be another checkout's, of other sources, in use now: removing it would make that
checkout's processes compile every kernel again, each of them, at every removal."""


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
    """Point numba at this version's cache folder (before numba compiles anything)."""
    root = cache_root()
    folder = root / sources_digest(package)
    inherited = os.environ.get("NUMBA_CACHE_DIR")
    if inherited is not None:
        if Path(inherited) == folder:  # a child of a process that chose it: file as it does
            PackageLocator.register(package, folder)
        return
    try:
        fresh = not folder.exists()
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
    except OSError:
        return  # not writable: numba's default (next to the sources) stays
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    PackageLocator.register(package, folder)
    if fresh:
        older = sorted((p for p in root.iterdir() if p.is_dir() and p != folder),
                       key=lambda p: p.stat().st_mtime, reverse=True)
        now = time.time()
        for stale in older[KEEP - 1:]:
            if now - stale.stat().st_mtime > IN_USE:
                shutil.rmtree(stale, ignore_errors=True)


def _locator_base() -> type[Any]:
    # numba's locator protocol (numba.core.caching): a locator names the folder a function's
    # cache lies in, a stamp of its source and a disambiguator; the first class whose
    # from_function answers is used.
    from numba.core.caching import _CacheLocator
    return _CacheLocator


class PackageLocator(_locator_base()):  # type: ignore[misc]
    """Files a kernel of a registered package under its path inside the package, with the
    digest of its source's bytes as the stamp: nothing of where the checkout lies."""

    folders: ClassVar[dict[Path, Path]] = {}
    """Each registered package's folder → the cache folder of its sources' version."""

    def __init__(self, cache_path: Path, py_file: Path, lineno: int) -> None:
        self._cache_path = str(cache_path)
        self._py_file = py_file
        self._lineno = lineno

    @classmethod
    def register(cls, package: Path, folder: Path) -> None:
        cls.folders[package.resolve()] = folder
        from numba.core import caching
        impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
        if impl is None:  # a numba without this protocol: its own filing stays
            return
        if cls not in impl._locator_classes:
            impl._locator_classes.insert(0, cls)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> PackageLocator | None:
        source = Path(py_file).resolve()
        for package, folder in cls.folders.items():
            if source.is_relative_to(package):
                locator = cls(folder / source.parent.relative_to(package), source,
                              py_func.__code__.co_firstlineno)
                try:
                    locator.ensure_cache_path()
                except OSError:
                    return None
                return locator
        return None

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return hashlib.sha256(self._py_file.read_bytes()).hexdigest()

    def get_disambiguator(self) -> str:
        return str(self._lineno)
