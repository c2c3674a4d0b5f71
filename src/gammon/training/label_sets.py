"""Label sets on disk: the supervised stage's labelled positions, as shards or packed.

``gammon train --stage label --out DIR`` writes a set as a folder of shards,
``shard-00000.npz`` and on (:mod:`gammon.training.supervised`). A finished set is kept
*packed* (:func:`pack`): one file ``DIR.npz`` beside the folder, holding every shard's
boards, labels and groups concatenated in shard order, the shard index (``shard_starts``:
shard ``k`` is rows ``shard_starts[k]:shard_starts[k + 1]``), each shard's counts, and the
settings that every shard recorded. Packing the same shards gives the same bytes.

A set is named by its folder either way: ``--data DIR`` reads the folder's shards when it
holds any, else ``DIR.npz``; ``--shards N`` takes the first ``N`` shards of either. The
folder's ``MANIFEST.tsv`` lists each packed file's SHA-256 and the command that makes it
again; a packed file whose sum is not its manifest's is refused.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numba as nb
import numpy as np

_jit = nb.njit(cache=True, nogil=True)

MANIFEST = "MANIFEST.tsv"
MANIFEST_COLUMNS = ("file", "sha256", "shards", "positions", "labeller_sha256", "command")
PACKED_ARRAYS = ("boards", "labels", "groups", "shard_starts", "decisions", "disagreements")
_SHARD_NAME = re.compile(r"shard-(\d{5})\.npz")


@dataclass(frozen=True)
class Shard:
    boards: np.ndarray
    labels: np.ndarray
    groups: np.ndarray | None  # None: written before groups were recorded (infer_groups)


@dataclass(frozen=True)
class ManifestEntry:
    file: str
    sha256: str
    shards: int
    positions: int
    labeller_sha256: str
    command: str


def shard_path(directory: Path, index: int) -> Path:
    return directory / f"shard-{index:05d}.npz"


def packed_path(directory: Path) -> Path:
    """Where the set of ``directory`` lies packed: ``directory`` itself when it names an
    ``.npz`` file, else ``<directory>.npz`` beside it."""
    return directory if directory.suffix == ".npz" else directory.with_name(
        directory.name + ".npz")


def shard_paths(directory: Path) -> list[Path]:
    return sorted(directory.glob("shard-*.npz")) if directory.is_dir() else []


def read_set(directory: Path) -> list[Shard]:
    """The shards of the set named ``directory``, in order: its folder's shards when it
    holds any, else its packed file (checked against the manifest beside it)."""
    paths = shard_paths(directory)
    if paths:
        return [_read_shard(path) for path in paths]
    packed = packed_path(directory)
    if packed.is_file():
        return _read_packed(packed)
    raise ValueError(f"no shards in {directory}, and no packed label set {packed}")


def _first(directory: Path, limit: int | None) -> list[Shard]:
    shards = read_set(directory)
    if limit is not None:
        if len(shards) < limit:
            raise ValueError(f"{directory} has {len(shards)} shards, not {limit}")
        shards = shards[:limit]
    return shards


def load_shards(directory: Path, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every shard's boards and labels (the first ``limit`` shards only, if given),
    concatenated in shard order."""
    shards = _first(directory, limit)
    return (np.concatenate([s.boards for s in shards]),
            np.concatenate([s.labels for s in shards]))


def load_groups(directory: Path, limit: int | None = None) -> np.ndarray:
    """Each position's group (the decision it is a candidate of), numbered across the
    shards in the order of :func:`load_shards`. Shards written before groups were recorded
    get them from :func:`infer_groups`."""
    parts, offset = [], 0
    for shard in _first(directory, limit):
        groups = (shard.groups.astype(np.int64) if shard.groups is not None
                  else infer_groups(shard.boards))
        if len(groups):
            _, groups = np.unique(groups, return_inverse=True)  # 0, 1, ... in this shard
            parts.append(groups + offset)
            offset += int(groups.max()) + 1
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _read_shard(path: Path) -> Shard:
    with np.load(path) as data:
        return Shard(data["boards"], data["labels"], data.get("groups"))


def _read_packed(path: Path) -> list[Shard]:
    check_manifest(path)
    with np.load(path) as data:
        missing = [name for name in PACKED_ARRAYS if name not in data]
        if missing:
            raise ValueError(f"{path} is not a packed label set (it has no "
                             f"{', '.join(missing)})")
        boards, labels, groups = data["boards"], data["labels"], data["groups"]
        starts = data["shard_starts"]
    if (len(starts) < 2 or starts[0] != 0 or starts[-1] != len(boards)
            or (np.diff(starts) < 0).any() or len(labels) != len(boards)
            or len(groups) != len(boards)):
        raise ValueError(f"{path}: its shard index does not match its {len(boards)} rows")
    return [Shard(boards[a:b], labels[a:b], groups[a:b])
            for a, b in itertools.pairwise(starts)]


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_manifest(manifest: Path) -> dict[str, ManifestEntry]:
    """The manifest's entries by file name (tab-separated, a header of
    :data:`MANIFEST_COLUMNS`)."""
    with manifest.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    if not rows or tuple(rows[0]) != MANIFEST_COLUMNS:
        raise ValueError(f"{manifest} does not start with the columns "
                         f"{', '.join(MANIFEST_COLUMNS)}")
    entries = {}
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(MANIFEST_COLUMNS) or not _is_digest(row[1]) \
                or not row[2].isdigit() or not row[3].isdigit() or not _is_digest(row[4]):
            raise ValueError(f"{manifest}, line {number}: not a file, its SHA-256, a shard "
                             f"count, a position count, the labeller's SHA-256 and a "
                             f"command, tab-separated")
        entries[row[0]] = ManifestEntry(row[0], row[1], int(row[2]), int(row[3]), row[4],
                                        row[5])
    return entries


def _is_digest(text: str) -> bool:
    return re.fullmatch(r"[0-9a-f]{64}", text) is not None


def check_manifest(path: Path) -> None:
    """Refuse a packed file whose SHA-256 is not the one its folder's manifest lists (a
    file the manifest does not list, or a folder without one, is not checked)."""
    manifest = path.parent / MANIFEST
    if not manifest.is_file():
        return
    entry = read_manifest(manifest).get(path.name)
    if entry is None:
        return
    actual = file_digest(path)
    if actual != entry.sha256:
        raise ValueError(f"{path} has SHA-256 {actual}, but {manifest} lists {entry.sha256}: "
                         f"the file is damaged or is not the one listed; make it again "
                         f"with: {entry.command}")


def write_manifest(manifest: Path, entries: dict[str, ManifestEntry]) -> None:
    """Write the entries sorted by file name, atomically."""
    temporary = manifest.with_suffix(".tmp")
    with temporary.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(MANIFEST_COLUMNS)
        for name in sorted(entries):
            e = entries[name]
            writer.writerow((e.file, e.sha256, e.shards, e.positions, e.labeller_sha256,
                             e.command))
    temporary.replace(manifest)


def shard_settings(path: Path) -> dict[str, object]:
    """The settings a shard recorded (its ``meta_`` entries, without the prefix)."""
    with np.load(path) as data:
        return {name[5:]: data[name].item() for name in data.files if name.startswith("meta_")}


def label_command(settings: dict[str, object], weights: str, out: str, shards: int,
                  teachers: Sequence[str] = ()) -> str:
    """The ``gammon train --stage label`` command that writes shards of these settings
    (:func:`shard_settings`) again, bit for bit, from the labeller ``weights`` (and the
    ``teachers``, files of the digests the settings record, in their order)."""
    words = ["gammon train --stage label", f"--from {weights}", f"--out {out}",
             f"--shards {shards}", f"--games {settings['games']}", f"--seed {settings['seed']}",
             f"--noise {settings['noise']}", f"--plies {settings['plies']}"]
    if teachers:
        words.append("--teachers " + " ".join(teachers))
    for name in ("rollout_games", "truncate", "behind"):
        if settings.get(name):
            words.append(f"--{name.replace('_', '-')} {settings[name]}")
    for name, value in settings.items():  # the switches: every setting that is True
        if value is True:
            words.append(f"--{name.replace('_', '-')}")
    return " ".join(words)


def pack(directory: Path) -> Path:
    """Pack the shards of ``directory`` into :func:`packed_path` (written atomically) and
    return its path. The shards must be ``0 .. n - 1`` with the same settings."""
    paths = shard_paths(directory)
    if not paths:
        raise ValueError(f"no shards in {directory}")
    expected = [shard_path(directory, index) for index in range(len(paths))]
    if paths != expected:
        missing = sorted(set(expected) - set(paths))
        raise ValueError(f"{directory} lacks {missing[0].name}: its shards are not "
                         f"0 .. {len(paths) - 1}")
    settings = shard_settings(paths[0])
    for path in paths[1:]:
        if shard_settings(path) != settings:
            raise ValueError(f"{path} was made with other settings than {paths[0]}")
    shards = [_read_shard(path) for path in paths]
    counts = []
    for path in paths:
        with np.load(path) as data:
            counts.append((int(data["decisions"]), int(data["disagreements"])))
    arrays = {
        "boards": np.concatenate([s.boards for s in shards]),
        "labels": np.concatenate([s.labels for s in shards]),
        # inferred once here for shards written before groups were recorded
        "groups": np.concatenate([infer_groups(s.boards) if s.groups is None
                                  else s.groups.astype(np.int64) for s in shards]),
        "shard_starts": np.cumsum([0] + [len(s.boards) for s in shards], dtype=np.int64),
        "decisions": np.array([c[0] for c in counts], dtype=np.int64),
        "disagreements": np.array([c[1] for c in counts], dtype=np.int64),
        **{f"meta_{key}": np.array(value) for key, value in settings.items()},
    }
    out = packed_path(directory)
    temporary = out.with_suffix(".tmp")
    _write_npz(temporary, arrays)
    temporary.replace(out)
    return out


def _write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez_compressed`` without the time of writing in the archive, so that the
    same arrays give the same bytes (and the manifest's sum checks a repack)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=True) as handle:
                np.lib.format.write_array(handle, array, allow_pickle=False)


@_jit
def infer_groups(boards: np.ndarray) -> np.ndarray:
    """Groups of consecutive boards that are candidates of one decision, told from the
    boards alone: the side on roll has the same checkers in each but for blots hit by one
    play and not another, and the mover (the side not on roll) the same pip count unless
    it bears off."""
    groups = np.zeros(len(boards), dtype=np.int64)
    for i in range(1, len(boards)):
        pips, checkers = _mover_pips(boards[i])
        last_pips, last_checkers = _mover_pips(boards[i - 1])
        same = pips == last_pips or checkers < 15 or last_checkers < 15
        for point in range(1, 25):
            a = max(boards[i - 1, point], 0)
            b = max(boards[i, point], 0)
            if a != b and not (min(a, b) == 0 and max(a, b) == 1):
                same = False
        groups[i] = groups[i - 1] if same else groups[i - 1] + 1
    return groups


@_jit
def _mover_pips(board: np.ndarray) -> tuple[int, int]:
    """The pip count and the checkers not borne off of the side not on roll."""
    pips = 0
    checkers = 0
    for point in range(25):  # index 0 is that side's bar
        if board[point] < 0:
            pips -= board[point] * (25 - point)
            checkers -= board[point]
    return pips, checkers
