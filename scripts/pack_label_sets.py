"""Pack finished label sets (folders of shards from `gammon train --stage label`) into one
file each and list them in the manifest beside them:

    python scripts/pack_label_sets.py training/data/label-roll144t7p-gen6-seed15 ... \
        --labellers training/checkpoints/*.npz src/gammon/engine/weights/gammon.npz

Each FOLDER becomes FOLDER.npz (gammon.training.label_sets.pack); FOLDER/../MANIFEST.tsv
gets its SHA-256, its shard and position counts, the labeller's SHA-256 and the command
that writes the shards again (the labeller, and any teachers, named by whichever
--labellers file has that SHA-256). The shard folders are left in place: remove them once
the packed file is kept.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import numpy as np

from gammon.training.label_sets import (
    MANIFEST,
    ManifestEntry,
    file_digest,
    label_command,
    pack,
    read_manifest,
    shard_paths,
    shard_settings,
    write_manifest,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, metavar="FOLDER")
    parser.add_argument("--labellers", nargs="*", type=Path, default=[], metavar="WEIGHTS",
                        help="candidate labelling weights, to name in the commands")
    args = parser.parse_args()
    by_digest = {hashlib.sha256(path.read_bytes()).hexdigest(): path for path in args.labellers}
    for folder in args.folders:
        shards = len(shard_paths(folder))
        settings = shard_settings(shard_paths(folder)[0]) if shards else {}
        packed = pack(folder)
        labeller = str(settings["weights_sha256"])
        weights = by_digest.get(labeller)
        teachers = [str(by_digest.get(digest, f"WEIGHTS-{digest[:12]}"))
                    for digest in str(settings.get("teachers_sha256", "")).split(",") if digest]
        command = label_command(settings, str(weights) if weights else f"WEIGHTS-{labeller[:12]}",
                                str(folder), shards, teachers)
        command += f" && python scripts/pack_label_sets.py {folder}"
        with np.load(packed) as data:
            positions = len(data["boards"])
        manifest = packed.parent / MANIFEST
        entries = read_manifest(manifest) if manifest.exists() else {}
        entries[packed.name] = ManifestEntry(packed.name, file_digest(packed), shards,
                                             positions, labeller, command)
        write_manifest(manifest, entries)
        print(f"{packed}: {shards} shards, {positions:,} positions")


if __name__ == "__main__":
    main()
