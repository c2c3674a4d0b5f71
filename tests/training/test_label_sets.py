"""Label sets on disk (gammon.training.label_sets): a packed set reads as the shards it came
from, under the same name and shard counts; a packed file whose SHA-256 is not its
manifest's is refused; packing refuses a gap or mixed settings, and the same shards pack to
the same bytes."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest

import gammon.cli.main as cli
from gammon.training.label_sets import (
    MANIFEST,
    ManifestEntry,
    file_digest,
    label_command,
    load_groups,
    load_shards,
    pack,
    packed_path,
    read_manifest,
    shard_path,
    shard_settings,
    write_manifest,
)
from gammon.training.supervised import LabelRun, label

SETTINGS = {"games": 20, "seed": 15, "noise": 0.05, "plies": 1, "rollout_games": 144,
            "truncate": 7, "rollout_pruned": True, "weights_sha256": "a" * 64}


def write_shard(directory: Path, index: int, rows: int, *, groups: bool = True,
                seed: int | None = None) -> None:
    """A shard as ``gammon train --stage label`` writes it (``groups``: False for the
    shards written before groups were recorded)."""
    rng = np.random.default_rng(index)
    arrays: dict[str, np.ndarray] = {
        "boards": rng.integers(-3, 4, size=(rows, 26), dtype=np.int8),
        "labels": rng.random((rows, 5), dtype=np.float32),
        "decisions": np.array(rows * 4), "disagreements": np.array(rows // 3),
    }
    if groups:
        arrays["groups"] = np.repeat(np.arange(rows), 3)[:rows].astype(np.int32)
    settings = {**SETTINGS, "seed": SETTINGS["seed"] if seed is None else seed}
    directory.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(shard_path(directory, index), **arrays,
                        **{f"meta_{key}": value for key, value in settings.items()})


def make_set(directory: Path) -> Path:
    for index, rows in enumerate((7, 11, 5)):
        write_shard(directory, index, rows, groups=index != 1)
    return directory


def test_a_packed_set_reads_as_the_shards_it_came_from(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "label-set")
    before = {limit: (load_shards(folder, limit), load_groups(folder, limit))
              for limit in (None, 1, 2, 3)}
    packed = pack(folder)
    assert packed == tmp_path / "label-set.npz"
    shutil.rmtree(folder)
    for limit, ((boards, labels), groups) in before.items():
        packed_boards, packed_labels = load_shards(folder, limit)  # the same name reads it
        np.testing.assert_array_equal(packed_boards, boards)
        np.testing.assert_array_equal(packed_labels, labels)
        assert packed_boards.dtype == boards.dtype and packed_labels.dtype == labels.dtype
        np.testing.assert_array_equal(load_groups(folder, limit), groups)
    np.testing.assert_array_equal(load_shards(packed)[0], before[None][0][0])  # or the file
    with pytest.raises(ValueError, match="has 3 shards, not 4"):
        load_shards(folder, 4)
    with np.load(packed) as data:
        assert data["shard_starts"].tolist() == [0, 7, 18, 23]
        assert data["decisions"].tolist() == [28, 44, 20]
        assert data["meta_seed"].item() == 15


def test_the_same_shards_pack_to_the_same_bytes(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "s")
    first = pack(folder).read_bytes()
    assert pack(folder).read_bytes() == first


def test_a_packed_file_whose_sum_is_not_the_manifests_is_refused(tmp_path: Path) -> None:
    packed = pack(make_set(tmp_path / "s"))
    shutil.rmtree(tmp_path / "s")
    manifest = tmp_path / MANIFEST
    right = ManifestEntry(packed.name, file_digest(packed), 3, 23, "a" * 64, "gammon train")
    write_manifest(manifest, {packed.name: right})
    assert read_manifest(manifest) == {packed.name: right}
    assert len(load_shards(tmp_path / "s")[0]) == 23
    wrong = ManifestEntry(packed.name, "0" * 64, 3, 23, "a" * 64, "gammon train --stage label")
    write_manifest(manifest, {packed.name: wrong})
    with pytest.raises(ValueError, match=r"s\.npz has SHA-256 [0-9a-f]{64}, but .*MANIFEST"
                                         r"\.tsv lists 0{64}.*gammon train --stage label"):
        load_shards(tmp_path / "s")
    with pytest.raises(ValueError, match="SHA-256"):
        load_groups(tmp_path / "s")


HEADER = "file\tsha256\tshards\tpositions\tlabeller_sha256\tcommand\n"


@pytest.mark.parametrize("text", [
    "", "file\tsha256\n", HEADER + "s.npz\tabc\t3\t23\t" + "a" * 64 + "\tgammon train\n",
    HEADER + "s.npz\t" + "a" * 64 + "\t3\n"])
def test_a_malformed_manifest_is_refused(tmp_path: Path, text: str) -> None:
    packed = pack(make_set(tmp_path / "s"))
    (tmp_path / MANIFEST).write_text(text)
    with pytest.raises(ValueError, match=r"MANIFEST\.tsv"):
        load_shards(packed)


def test_packing_refuses_a_missing_shard_or_mixed_settings(tmp_path: Path) -> None:
    write_shard(tmp_path / "gap", 0, 4)
    write_shard(tmp_path / "gap", 2, 4)
    with pytest.raises(ValueError, match=r"lacks shard-00001\.npz"):
        pack(tmp_path / "gap")
    write_shard(tmp_path / "mixed", 0, 4)
    write_shard(tmp_path / "mixed", 1, 4, seed=16)
    with pytest.raises(ValueError, match="other settings"):
        pack(tmp_path / "mixed")
    with pytest.raises(ValueError, match="no shards in"):
        pack(tmp_path / "none")
    assert not packed_path(tmp_path / "gap").exists()
    assert not packed_path(tmp_path / "mixed").exists()


def test_a_set_that_is_neither_shards_nor_packed_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no shards in .*, and no packed label set"):
        load_shards(tmp_path / "absent")
    np.savez(tmp_path / "bad.npz", boards=np.zeros((1, 26), dtype=np.int8))
    with pytest.raises(ValueError, match="not a packed label set"):
        load_shards(tmp_path / "bad")


def test_a_packed_set_is_not_labelled_into(tmp_path: Path) -> None:
    pack(make_set(tmp_path / "s"))
    shutil.rmtree(tmp_path / "s")
    with pytest.raises(ValueError, match="holds this label set packed"):
        label(tmp_path / "weights.npz", tmp_path / "s", LabelRun(shards=1, games=1))


def test_the_manifests_command_makes_the_same_settings(tmp_path: Path) -> None:
    """The command a manifest lists, read by ``gammon train``, is a labelling job of the
    settings the shards recorded."""
    command = label_command(SETTINGS, "labeller.npz", "training/data/s", 42)
    args = cli.build_parser().parse_args(command.split()[1:])
    assert (args.stage, args.start, args.out, args.shards) == (
        "label", "labeller.npz", "training/data/s", [42])
    write_shard(tmp_path / "s", 0, 3)
    recorded = shard_settings(shard_path(tmp_path / "s", 0))
    run = {"games": args.games, "seed": args.seed, "noise": args.noise, "plies": args.plies,
           "rollout_games": args.rollout_games, "truncate": args.truncate,
           "rollout_pruned": args.rollout_pruned, "crashed_only": args.crashed_only,
           "race_only": args.race_only, "crashed_decisions": args.crashed_decisions,
           "cube_only": args.cube_only}
    assert {key: value for key, value in run.items() if value} == {
        key: value for key, value in recorded.items() if key != "weights_sha256"}


def test_the_manifests_command_names_every_switch_a_shard_recorded() -> None:
    """Each switch of a labelling job (a True setting of LabelRun) is in the command, as
    the flag ``gammon train`` reads back to the same setting."""
    switches = [f.name for f in dataclasses.fields(LabelRun) if f.type in (bool, "bool")]
    assert "race_decisions" in switches and "rollout_pruned" in switches
    for switch in switches:
        command = label_command({**SETTINGS, switch: True}, "w.npz", "training/data/s", 1)
        args = cli.build_parser().parse_args(command.split()[1:])
        assert getattr(args, switch) is True, switch


def test_the_manifests_command_names_the_teachers_in_their_order() -> None:
    """A set labelled by teachers lists them in its command, as --teachers reads them."""
    command = label_command({**SETTINGS, "teachers_sha256": "a,b"}, "w.npz", "training/data/s",
                            1, ["t1.npz", "t2.npz"])
    args = cli.build_parser().parse_args(command.split()[1:])
    assert args.teachers == ["t1.npz", "t2.npz"] and args.start == "w.npz"


COMMITTED = Path(__file__).parents[2] / "training" / "data"


def test_the_committed_label_sets_are_their_manifests() -> None:
    """Every packed set in training/data is listed in its manifest, with its sum, shard and
    position counts, and a command that labels it again into the folder of its name."""
    entries = read_manifest(COMMITTED / MANIFEST)
    assert sorted(entries) == sorted(p.name for p in COMMITTED.glob("*.npz"))
    for name, entry in entries.items():
        path = COMMITTED / name
        assert file_digest(path) == entry.sha256, name
        with np.load(path) as data:
            assert len(data["shard_starts"]) - 1 == entry.shards, name
            assert len(data["boards"]) == entry.positions, name
            assert data["meta_weights_sha256"].item() == entry.labeller_sha256, name
        assert f"--out training/data/{path.stem} --shards {entry.shards} " in entry.command
