"""GNU Backgammon's commands run from a script it runs (``gnubg -t -q -p SCRIPT``): what a
command printed, and whether gnubg refused it.

Shared by ``make_movegen_reference.py``, ``make_match_id_reference.py`` and the GNU
Backgammon side of ``check_match_files_with_gnubg.py``. It imports nothing from gammon, so
what those scripts record stays an independent reference.
"""

from __future__ import annotations

import ctypes
import os
import sys
import tempfile

REFUSALS = ("nknown", "Usage", "ncorrect", "llegal", "annot", "can't", "Not a valid")
"""What gnubg prints when it does not do what a command says (unknown command, usage,
incorrect or illegal argument, cannot, can't, not a valid ID)."""


def command(text: str, *, check: bool = False) -> str:
    """Run the gnubg command ``text`` and return what it printed on stdout and stderr.

    gnubg prints through C stdio, so file descriptors 1 and 2 are redirected to a file
    while it runs, with C's buffers flushed before and after. With ``check``, stop the
    script if gnubg printed a refusal (:data:`REFUSALS`).
    """
    import gnubg  # only importable inside GNU Backgammon

    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    sys.stderr.flush()
    libc.fflush(None)
    with tempfile.TemporaryFile() as capture:
        saved_out, saved_err = os.dup(1), os.dup(2)
        os.dup2(capture.fileno(), 1)
        os.dup2(capture.fileno(), 2)
        try:
            gnubg.command(text)
        finally:
            libc.fflush(None)
            os.dup2(saved_out, 1)
            os.dup2(saved_err, 2)
            os.close(saved_out)
            os.close(saved_err)
        capture.seek(0)
        output = capture.read().decode("utf-8", "replace")
    if check and any(refusal in output for refusal in REFUSALS):
        raise SystemExit(f"gnubg refused {text!r}: {output}")
    return output
