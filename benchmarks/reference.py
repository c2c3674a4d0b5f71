"""GNU Backgammon as the referee: how far the engine's checker plays are from GNU
Backgammon's, per position class (``gammon bench reference``).

Every other figure of the project is against pubeval or against position sets labelled by
the project's own networks, which is self-referential. Here an independent engine grades
the plays: for each decision of a position set (default
``benchmarks/data/positions-v2.npz``, see ``benchmarks/positions.py``), **every legal
play's resulting position** is evaluated by GNU Backgammon at ``--gnubg-ply`` (cubeless
money equity, gammons and backgammons counted, no Jacoby rule), our player (``--weights``,
default the shipped networks, at ``--ply``, with the engine's default move filter) picks
its play, and the play's **error** is GNU Backgammon's equity of its best play minus that
of ours (so 0 when we pick its best). The report gives, overall and per class (contact,
crashed, race: the engine's own classes, ``positions.position_class``), the mean error in
millipoints per decision and the share of blunders (error > 0.08), each with a bootstrap
95% interval over the decisions, and how often we pick GNU Backgammon's best play.

**Measurement only.** Another engine may measure the bot, never teach it: nothing this
benchmark produces (its cache of GNU Backgammon's evaluations included) may be used as
training data, labels or a training target.

Also reported, for context, when grading deeper than 0-ply: GNU Backgammon's own error
when it picks at ``--context`` plies (default 0) under the same grading (the gap it
leaves itself), with our error paired against it; and with ``--baseline FILE2`` the
paired difference of two weight files on the same decisions (as ``positions.py`` does).

**Plies** are counted as GNU Backgammon counts them, as the engine does
(``gammon.engine.search``): 0-ply is the network's evaluation of the position a play
leaves; 1-ply averages over the opponent's 21 rolls; 2-ply looks one roll deeper.
GNU Backgammon evaluates at its own n-ply with its pruning networks (its standard setting,
the one its 2-ply "world class" analysis uses), every play at the full depth (no move
filter: its own analysis would give the weaker plays less depth).

**The conversion** is GNU Backgammon's Position ID (``Position.id``, checked against GNU
Backgammon's own IDs in the core's tests): a play leaves a board seen from the mover; it
is swapped to the opponent, who is on roll, and written as an ID; GNU Backgammon evaluates
it from the opponent's side, and the play's equity for its mover is minus that. The script
run inside GNU Backgammon (its embedded Python, ``gnubg -t -p``, which need not be able to
import this package) reads a JSON list of IDs and writes one line per ID; it checks that
it reads each ID back to the same ID and that gammons count in the equity.

**Cache.** GNU Backgammon's evaluations are saved in ``--cache`` (default
``benchmarks/results/``) as ``reference-gnubg<P>ply-<hash>.npz``, the hash that of the
set's plays (so a relabelled set with the same decisions shares it), after each chunk of
``--chunk`` plays: an interrupted run resumes, and a run with other weights (or another
ply of ours) needs GNU Backgammon only for plays not yet graded. A cache that covers the
chosen decisions needs no GNU Backgammon at all. ``--gnubg-jobs`` processes run at once:
GNU Backgammon 1.07 waits about 10 ms per evaluation call whatever its ply, so for 0- and
1-ply grading several processes on one core go faster.

**Which decisions**: all of the set's, or ``--positions N``, the first N (the set
interleaves its classes in the order met, so a prefix keeps the set's class mix), or
``--per-class N``, the first N decisions of each class (a class with fewer gives all it
has; the "all" line is then the mix of the chosen decisions, not the set's).

Run: ``gammon bench reference --gnubg-ply 2 --ply 1 [--positions 1500] [--weights FILE]
[--baseline FILE2]`` (``--gnubg PATH`` if ``gnubg`` is not on PATH nor
``/usr/games/gnubg``; Debian and Ubuntu package it as ``gnubg``).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from types import ModuleType

import numpy as np

from gammon.core.position import Position
from gammon.engine import search
from gammon.engine.evaluate import kernel_arrays, new_scratch
from gammon.engine.network import NetworkPair, equity
from gammon.engine.player import MoveFilter

BENCHMARKS = Path(__file__).resolve().parent
RESULTS = BENCHMARKS / "results"
CACHE_FORMAT = 1
"""Layout of the cache file; a cache of another layout is refused."""
BLUNDER = 0.08
GNUBG_PLACES = ("gnubg", "/usr/games/gnubg")
"""Where GNU Backgammon is looked for when ``--gnubg`` is not given."""
NOT_FOUND = ("GNU Backgammon (gnubg) was not found (--gnubg, else 'gnubg' on PATH, else "
             "/usr/games/gnubg). Install it (Debian/Ubuntu: apt install gnubg) or pass "
             "--gnubg PATH")
BOOTSTRAP_SAMPLES = 2000
USE = "measurement only: never training data, labels or a training target"


def _positions_module() -> ModuleType:
    """``benchmarks/positions.py`` (a script folder, not a package), imported once under
    the name the tests give it."""
    name = "benchmark_positions"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / "positions.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


positions = _positions_module()
CLASSES: tuple[str, ...] = positions.CLASSES


# -- GNU Backgammon -----------------------------------------------------------------------------

GNUBG_SCRIPT = r'''
# Run inside GNU Backgammon (gnubg -t -p THIS): evaluate Position IDs, side on roll's view.
import json, os, sys, traceback
import gnubg

def run():
    with open(os.environ["GAMMON_GNUBG_JOB"]) as file:
        job = json.load(file)
    gnubg.command("set jacoby off")
    cube = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)  # money, centred cube of 1
    if cube["jacoby"] != 0 or tuple(map(tuple, cube["gammonprice"])) != ((1.0, 1.0), (1.0, 1.0)):
        raise SystemExit("gammons would not count in the equity: %r" % (cube,))
    context = gnubg.evalcontext(0, job["plies"], 1, 1, 0.0)  # cubeless, deterministic
    context["prune"] = 1  # GNU Backgammon's standard n-ply (its pruning networks)
    with open(job["out"], "w") as out:
        for position_id in job["ids"]:
            board = gnubg.positionfromid(position_id)
            if gnubg.positionid(board) != position_id:
                raise SystemExit("gnubg reads %s as another position" % position_id)
            result = gnubg.evaluate(board, cube, context)
            fields = [position_id] + [repr(float(x)) for x in result]
            if job.get("boards"):
                fields.append(json.dumps([list(board[0]), list(board[1])]).replace(" ", ""))
            out.write(" ".join(fields) + "\n")
        out.write("done\n")

try:
    run()
except BaseException:
    traceback.print_exc()
    sys.stderr.flush()
    os._exit(3)
'''


class GnubgError(RuntimeError):
    """GNU Backgammon is missing or did not evaluate what it was given."""


def find_gnubg(explicit: Path | None = None) -> Path | None:
    """The GNU Backgammon program: ``explicit`` if it is one, else the first of
    :data:`GNUBG_PLACES` found."""
    candidates = [str(explicit)] if explicit is not None else list(GNUBG_PLACES)
    for candidate in candidates:
        found = shutil.which(candidate)
        if found is not None:
            return Path(found)
    return None


def gnubg_version(gnubg: Path) -> str:
    out = subprocess.run([str(gnubg), "--version"], capture_output=True, text=True,
                         timeout=60, check=False).stdout
    return out.splitlines()[0].strip() if out.strip() else "unknown"


def run_gnubg(gnubg: Path, ids: Sequence[str], plies: int,
              boards: bool = False) -> list[list[str]]:
    """GNU Backgammon's evaluation of each Position ID (its side on roll's view), one
    process: per ID the fields ``ID p_win p_win_gammon p_win_bg p_lose_gammon p_lose_bg
    equity`` (and the board as GNU Backgammon reads it when ``boards``)."""
    with tempfile.TemporaryDirectory(prefix="gammon-gnubg-") as folder:
        work = Path(folder)
        script, job, out = work / "evaluate.py", work / "job.json", work / "out.txt"
        script.write_text(GNUBG_SCRIPT)
        job.write_text(json.dumps({"plies": plies, "ids": list(ids), "out": str(out),
                                   "boards": boards}))
        (work / "prefs").mkdir()
        completed = subprocess.run(
            [str(gnubg), "-q", "-t", "-r", "-s", str(work / "prefs"), "-p", str(script)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, env={**os.environ, "GAMMON_GNUBG_JOB": str(job)}, check=False)
        lines = out.read_text().splitlines() if out.exists() else []
        if completed.returncode != 0 or not lines or lines[-1] != "done":
            raise GnubgError(f"GNU Backgammon stopped (exit {completed.returncode}) after "
                             f"{max(len(lines) - 1, 0)} of {len(ids)} positions: "
                             f"{completed.stderr.strip()[-2000:]}")
    rows = [line.split(" ") for line in lines[:-1]]
    if [row[0] for row in rows] != list(ids):
        raise GnubgError("GNU Backgammon's answers are not the positions it was given")
    return rows


def evaluate_ids(gnubg: Path, ids: Sequence[str], plies: int) -> np.ndarray:
    """``float64[len(ids), 6]``: the five probabilities and the cubeless money equity of
    each position for its side on roll, by GNU Backgammon at ``plies``."""
    rows = run_gnubg(gnubg, ids, plies)
    return np.array([[float(x) for x in row[1:7]] for row in rows], dtype=np.float64)


def play_id(play: np.ndarray) -> str:
    """The Position ID of the position a play leaves (a board seen from the mover), with
    the opponent on roll: the position GNU Backgammon evaluates."""
    return Position.from_board(play.tolist()).swap().id()


def for_mover(result: np.ndarray) -> np.ndarray:
    """GNU Backgammon's result for the side on roll after a play (``[..., 6]``: five
    probabilities and the equity) turned into the result for the play's mover."""
    out = np.empty_like(result)
    out[..., 0] = 1.0 - result[..., 0]
    out[..., 1] = result[..., 3]
    out[..., 2] = result[..., 4]
    out[..., 3] = result[..., 1]
    out[..., 4] = result[..., 2]
    out[..., 5] = -result[..., 5]
    return out


# -- the cache ----------------------------------------------------------------------------------


def plays_hash(positions_set: object) -> str:
    """Hash of a set's decisions and plays (not its labels)."""
    digest = hashlib.sha256()
    for name in ("boards", "dice", "start", "plays"):
        digest.update(np.ascontiguousarray(getattr(positions_set, name)).tobytes())
    return digest.hexdigest()[:12]


class Cache:
    """GNU Backgammon's results of a set's plays at one ply, mover's view: ``results[m]``
    the five probabilities and the equity of play row ``m`` (NaN until evaluated)."""

    def __init__(self, folder: Path, positions_set: object, plies: int) -> None:
        self.key = plays_hash(positions_set)
        self.path = folder / f"reference-gnubg{plies}ply-{self.key}.npz"
        self.plies = plies
        count = len(positions_set.plays)  # type: ignore[attr-defined]
        self.meta: dict[str, object] = {
            "format": CACHE_FORMAT, "plays": self.key, "count": count, "gnubg_plies": plies,
            "set": positions_set.meta.get("name"),  # type: ignore[attr-defined]
            "values": "per play row of the set: P(win), P(win gammon), P(win backgammon), "
                      "P(lose gammon), P(lose backgammon) and cubeless money equity (no "
                      "Jacoby) of the side that made the play, by GNU Backgammon at "
                      f"{plies}-ply (pruning networks on), every legal play at full depth",
            "use": USE,
        }
        self.results = np.full((count, 6), np.nan, dtype=np.float32)
        if self.path.exists():
            with np.load(self.path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                stored = {k: meta.get(k) for k in ("format", "plays", "count", "gnubg_plies")}
                wanted = {k: self.meta[k] for k in stored}
                if stored != wanted:
                    raise ValueError(f"{self.path} is not the cache of these plays at "
                                     f"{plies}-ply: {stored}")
                self.meta["gnubg"] = meta.get("gnubg")
                self.results = data["results"].astype(np.float32)

    def missing(self, rows: np.ndarray) -> np.ndarray:
        """The rows of ``rows`` not yet evaluated."""
        todo: np.ndarray = rows[np.isnan(self.results[rows, 5])]
        return todo

    def save(self) -> None:
        meta = json.dumps(self.meta, indent=1)
        positions.write_atomically(self.path, lambda file: np.savez_compressed(
            file, results=self.results, meta=np.array(meta)))

    def fill(self, positions_set: object, rows: np.ndarray, gnubg_path: Path | None,
             jobs: int, chunk: int, progress: Callable[[str], None] = print) -> None:
        """Evaluate the plays of ``rows`` not yet in the cache, saving after each chunk."""
        todo = self.missing(rows)
        if not len(todo):
            return
        if gnubg_path is None:
            raise GnubgError(f"{NOT_FOUND}. The cache {self.path} lacks {len(todo):,} of the "
                             f"{len(rows):,} plays wanted at {self.plies}-ply")
        if self.meta.get("gnubg") is None:
            self.meta["gnubg"] = gnubg_version(gnubg_path)
        plays = positions_set.plays  # type: ignore[attr-defined]
        ids_of_rows = [play_id(plays[m]) for m in todo]
        unique = list(dict.fromkeys(ids_of_rows))
        rows_of_id: dict[str, list[int]] = {}
        for m, position_id in zip(todo.tolist(), ids_of_rows, strict=True):
            rows_of_id.setdefault(position_id, []).append(m)
        chunks = [unique[i:i + chunk] for i in range(0, len(unique), chunk)]
        progress(f"GNU Backgammon {self.plies}-ply: {len(unique):,} positions to evaluate "
                 f"({len(rows) - len(todo):,} of {len(rows):,} plays cached) in "
                 f"{len(chunks)} chunks, {jobs} processes")
        started = time.perf_counter()
        done = 0
        with ThreadPoolExecutor(jobs) as pool:
            futures = {pool.submit(evaluate_ids, gnubg_path, part, self.plies): part
                       for part in chunks}
            for future in as_completed(futures):
                part = futures[future]
                results = for_mover(future.result())
                for position_id, result in zip(part, results, strict=True):
                    self.results[rows_of_id[position_id]] = result
                self.save()
                done += len(part)
                elapsed = time.perf_counter() - started
                progress(f"  {done:,}/{len(unique):,} positions  ({elapsed:.0f} s, "
                         f"{elapsed / done * (len(unique) - done) / 60:.1f} min to go)")


# -- choosing and grading ---------------------------------------------------------------------


def select(positions_set: object, count: int | None, per_class: int | None) -> np.ndarray:
    """Indices of the decisions graded: all, the first ``count``, or the first
    ``per_class`` of each class (in the set's order)."""
    kinds = positions_set.kinds  # type: ignore[attr-defined]
    everything = np.arange(len(kinds))
    if per_class is not None:
        return np.sort(np.concatenate([everything[kinds == k][:per_class]
                                       for k in range(len(CLASSES))]))
    return everything if count is None else everything[:count]


def play_rows(positions_set: object, decisions: np.ndarray) -> np.ndarray:
    start = positions_set.start  # type: ignore[attr-defined]
    return np.concatenate([np.arange(start[d], start[d + 1]) for d in decisions])


def errors_of(equities: np.ndarray, start: np.ndarray, decisions: np.ndarray,
              chosen: np.ndarray) -> np.ndarray:
    """Per decision, the best play's equity minus the chosen play's (``chosen[i]`` an index
    among decision ``decisions[i]``'s plays), all by the referee's ``equities`` (one per
    play row)."""
    errors = np.empty(len(decisions), dtype=np.float64)
    for i, d in enumerate(decisions):
        values = equities[start[d]:start[d + 1]].astype(np.float64)
        if not 0 <= chosen[i] < len(values):
            raise ValueError(f"decision {d} has {len(values)} plays, not a play {chosen[i]}")
        if np.isnan(values).any():
            raise ValueError(f"decision {d} has plays the referee has not evaluated")
        errors[i] = values.max() - values[chosen[i]]
    return errors


def referee_choices(equities: np.ndarray, start: np.ndarray,
                    decisions: np.ndarray) -> np.ndarray:
    """The play with the highest ``equities`` in each decision (the first of a tie)."""
    return np.array([int(np.argmax(equities[start[d]:start[d + 1]])) for d in decisions])


def our_choices(positions_set: object, nets: tuple[np.ndarray, ...], plies: int,
                decisions: np.ndarray, jobs: int) -> np.ndarray:
    """The play the engine picks at ``plies`` (default move filter) in each decision."""
    positions.choose_plays(positions_set, nets, plies, decisions[:1].tolist())  # compile
    parts = [p.tolist() for p in np.array_split(decisions, jobs) if len(p)]
    with ThreadPoolExecutor(jobs) as pool:
        chosen = [c for part in pool.map(
            lambda p: positions.choose_plays(positions_set, nets, plies, p), parts)
            for c in part]
    return np.array(chosen, dtype=np.int64)


def mean_choices(positions_set: object, weight_files: Sequence[Path],
                 decisions: np.ndarray) -> np.ndarray:
    """The play with the best mean 0-ply equity over several networks in each decision:
    their probabilities averaged, as ``gammon train --stage label --teachers`` labels
    (each file's networks themselves: a judge, which is itself a mean, stays out)."""
    start, plays = positions_set.start, positions_set.plays  # type: ignore[attr-defined]
    sums = [np.zeros(start[d + 1] - start[d]) for d in decisions]
    move_filter = MoveFilter()
    keep = np.array(move_filter.keep, dtype=np.int64)
    margin = np.array(move_filter.margin, dtype=np.float64)
    levels = search.new_levels()
    for path in weight_files:
        nets = kernel_arrays(NetworkPair.load(path), judge_keep=0)
        scratch = new_scratch()
        for i, d in enumerate(decisions):
            count = len(sums[i])
            probs = np.empty((count, 5), dtype=np.float64)
            depth = np.empty(count, dtype=np.int64)
            search.rank_plays(plays[start[d]:start[d + 1]], count, 0, keep, margin, nets,
                              scratch, levels[1], levels[2], probs, depth)
            sums[i] += [equity(row) for row in probs]
    return np.array([int(np.argmax(total)) for total in sums], dtype=np.int64)


def bootstrap(values: np.ndarray, seed: int = 0,
              samples: int = BOOTSTRAP_SAMPLES) -> tuple[float, float, float]:
    """Mean and the 95% percentile bootstrap interval of the mean (decisions resampled)."""
    if not len(values):
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = np.empty(samples)
    for s in range(0, samples, 250):
        count = min(250, samples - s)
        picks = rng.integers(0, len(values), size=(count, len(values)))
        means[s:s + count] = values[picks].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(values.mean()), float(low), float(high)


RACE_LEADS = (("behind 40+", 40, 999), ("behind 10-39", 10, 39), ("within 9", -9, 9),
              ("ahead 10-39", -39, -10), ("ahead 40+", -999, -40))
"""The contact decisions split by the mover's race deficit (its pip count minus the
opponent's, before the roll): the holding and back games at the top."""


def groups(kinds: np.ndarray, deficits: np.ndarray | None = None
           ) -> list[tuple[str, np.ndarray]]:
    """The decisions reported on: all, each class, and with ``deficits`` the contact ones
    by race lead (:data:`RACE_LEADS`)."""
    named = [("all", np.ones(len(kinds), dtype=bool))] + [
        (name, kinds == k) for k, name in enumerate(CLASSES) if np.any(kinds == k)]
    if deficits is not None:
        contact = kinds == CLASSES.index("contact")
        named += [(name, contact & (deficits >= low) & (deficits <= high))
                  for name, low, high in RACE_LEADS]
    return named


def race_deficits(positions_set: object, decisions: np.ndarray) -> np.ndarray:
    """Each decision's mover's pip count minus its opponent's."""
    return np.array([int(np.subtract(*Position.from_board(positions_set.boards[d].tolist())
                                     .pips())) for d in decisions])


def error_lines(errors: np.ndarray, kinds: np.ndarray, deficits: np.ndarray | None = None
                ) -> list[str]:
    """Mean error (millipoints), blunder share and share of the referee's best play picked,
    overall and per class (:func:`groups`), with bootstrap 95% intervals."""
    lines = [f"{'':12} {'decisions':>9}  {'mean error (mpt) [95%]':>24}  "
             f"{f'blunders > {BLUNDER} [95%]':>24}  {'best play':>9}"]
    for name, members in groups(kinds, deficits):
        e = errors[members]
        mean, low, high = bootstrap(1000 * e)
        blunders, b_low, b_high = bootstrap(100.0 * (e > BLUNDER))
        best = 100.0 * float(np.mean(e <= 0))
        lines.append(f"{name:12} {len(e):>9,}  {mean:7.1f} [{low:6.1f}, {high:6.1f}]      "
                     f"{blunders:5.2f}% [{b_low:5.2f}, {b_high:5.2f}]   {best:7.1f}%")
    return lines


def paired_lines(errors: np.ndarray, other: np.ndarray, kinds: np.ndarray,
                 deficits: np.ndarray | None = None) -> list[str]:
    """Per class (:func:`groups`), the mean of ``errors - other`` (millipoints) with its
    bootstrap 95% interval (the same decisions), and how many decisions each side does
    better."""
    lines = [f"{'':12} {'decisions':>9}  {'difference (mpt) [95%]':>24}  {'better':>7}  "
             f"{'worse':>7}"]
    for name, members in groups(kinds, deficits):
        difference = 1000 * (errors[members] - other[members])
        mean, low, high = bootstrap(difference)
        lines.append(f"{name:12} {len(difference):>9,}  {mean:+7.2f} [{low:+6.2f}, "
                     f"{high:+6.2f}]     {int((difference < 0).sum()):>7,}  "
                     f"{int((difference > 0).sum()):>7,}")
    return lines


# -- the command --------------------------------------------------------------------------------


def parse_plies(text: str) -> list[int]:
    try:
        values = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"a list of plies like 0,1, got {text!r}") from None
    if any(not 0 <= v <= 2 for v in values):
        raise argparse.ArgumentTypeError(f"plies are 0, 1 or 2, got {text!r}")
    return values


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=positions.DEFAULT_SET,
                        help="the position set (default benchmarks/data/positions-v2.npz)")
    parser.add_argument("--positions", type=int, default=None,
                        help="grade the first N decisions only (the set's class mix)")
    parser.add_argument("--per-class", type=int, default=None,
                        help="grade the first N decisions of each class")
    parser.add_argument("--weights", type=Path, default=None,
                        help="our networks (default: the shipped ones)")
    parser.add_argument("--ply", type=int, choices=[0, 1, 2], default=0,
                        help="our search depth (default 0)")
    parser.add_argument("--mean-of", type=Path, nargs="+", default=None, metavar="WEIGHTS",
                        help="choose at 0-ply by the mean of these networks' probabilities "
                             "(the teachers of gammon train --teachers), not by --weights")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="also grade these networks at --ply and print the paired "
                             "difference")
    parser.add_argument("--gnubg-ply", type=int, choices=[0, 1, 2], default=2,
                        help="GNU Backgammon's grading depth (default 2)")
    parser.add_argument("--context", type=parse_plies, default=None,
                        help="GNU Backgammon plies whose own choices are graded too "
                             "(default 0 when grading deeper than 0-ply)")
    parser.add_argument("--by-race-lead", action="store_true",
                        help="also split the contact decisions by the mover's race lead "
                             "(behind by 40+ pips, 10-39, within 9, ahead 10-39, 40+)")
    parser.add_argument("--gnubg", type=Path, default=None,
                        help="the GNU Backgammon program (default: gnubg on PATH, else "
                             "/usr/games/gnubg)")
    parser.add_argument("--gnubg-jobs", type=int, default=2,
                        help="GNU Backgammon processes at once (default 2)")
    parser.add_argument("--chunk", type=int, default=1000,
                        help="positions per GNU Backgammon process call (default 1000)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="threads choosing our plays (default 1)")
    parser.add_argument("--cache", type=Path, default=RESULTS,
                        help="folder of the cache of GNU Backgammon's evaluations "
                             "(default benchmarks/results)")
    args = parser.parse_args(argv)
    for name in ("positions", "per_class"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.positions is not None and args.per_class is not None:
        parser.error("--positions and --per-class do not go together")
    for name in ("gnubg_jobs", "chunk", "jobs"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.mean_of is not None and (args.ply != 0 or args.weights is not None):
        parser.error("--mean-of chooses at 0-ply in place of --weights")
    context = args.context if args.context is not None else ([0] if args.gnubg_ply > 0 else [])
    context = [p for p in context if p != args.gnubg_ply]

    gnubg_path = find_gnubg(args.gnubg)
    positions_set = positions.PositionSet.load(args.set)
    decisions = select(positions_set, args.positions, args.per_class)
    kinds = positions_set.kinds[decisions]
    rows = play_rows(positions_set, decisions)
    deficits = race_deficits(positions_set, decisions) if args.by_race_lead else None
    counts = ", ".join(f"{int((kinds == k).sum()):,} {name}" for k, name in enumerate(CLASSES))
    print(f"{positions_set.meta['name']}: {len(decisions):,} decisions ({counts}), "
          f"{len(rows):,} plays; GNU Backgammon grades at {args.gnubg_ply}-ply"
          + (f", {gnubg_path}" if gnubg_path is not None else ", from the cache only"),
          flush=True)

    caches = {}
    for plies in [args.gnubg_ply, *context]:
        cache = Cache(args.cache, positions_set, plies)
        try:
            cache.fill(positions_set, rows, gnubg_path, args.gnubg_jobs, args.chunk,
                       progress=lambda text: print(text, flush=True))
        except GnubgError as error:
            print(str(error), file=sys.stderr)
            return 2
        caches[plies] = cache
    grade = caches[args.gnubg_ply].results[:, 5]
    start = positions_set.start

    weights = args.weights or positions.shipped_weights()
    started = time.perf_counter()
    if args.mean_of is not None:
        ours = errors_of(grade, start, decisions,
                         mean_choices(positions_set, args.mean_of, decisions))
        short_name = f"the mean of {len(args.mean_of)} networks"
        ours_name = short_name + " (" + ", ".join(
            f"{path.name} {positions.file_hash(path)}" for path in args.mean_of) + ")"
    else:
        nets = kernel_arrays(NetworkPair.load(weights))
        ours = errors_of(grade, start, decisions,
                         our_choices(positions_set, nets, args.ply, decisions, args.jobs))
        short_name = weights.name
        ours_name = f"{weights.name} ({positions.file_hash(weights)})"
    elapsed = time.perf_counter() - started
    print(f"\n{ours_name} at {args.ply}-ply, graded by "
          f"GNU Backgammon {args.gnubg_ply}-ply (error = its best play's equity - ours; "
          f"choices {elapsed:.0f} s):")
    for line in error_lines(ours, kinds, deficits):
        print(line)
    for plies in context:
        theirs = errors_of(grade, start, decisions,
                           referee_choices(caches[plies].results[:, 5], start, decisions))
        print(f"\nfor context, GNU Backgammon's own {plies}-ply choices under its "
              f"{args.gnubg_ply}-ply grading:")
        for line in error_lines(theirs, kinds, deficits):
            print(line)
        print(f"paired: ours at {args.ply}-ply minus GNU Backgammon {plies}-ply (mpt; "
              f"negative: ours is closer to its {args.gnubg_ply}-ply)")
        for line in paired_lines(ours, theirs, kinds, deficits):
            print(line)
    if args.baseline is not None:
        base_nets = kernel_arrays(NetworkPair.load(args.baseline))
        base = errors_of(grade, start, decisions,
                         our_choices(positions_set, base_nets, args.ply, decisions, args.jobs))
        print(f"\npaired against {args.baseline.name} ({positions.file_hash(args.baseline)}) "
              f"at {args.ply}-ply (mpt; negative: ours is better)")
        for line in paired_lines(ours, base, kinds, deficits):
            print(line)
    mean, low, high = bootstrap(1000 * ours)
    print(f"\n{short_name} {args.ply}-ply against GNU Backgammon {args.gnubg_ply}-ply on "
          f"{positions_set.meta['name']}: {mean:.1f} [{low:.1f}, {high:.1f}] mpt per decision "
          f"over {len(ours):,} decisions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
