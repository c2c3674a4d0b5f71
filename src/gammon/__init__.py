"""gammon: backgammon rules, engine, formats and server."""

from gammon import _kernel_cache

_kernel_cache.configure()
