"""The crash-anywhere test at a larger scale: ``python scripts/crash_anywhere.py --kills 100``
runs tests/server/test_crash_anywhere.py with that many kills per store (SQLite, and
PostgreSQL + Redis with two processes; both must be running, as for the test suite) and
prints the figures: kills tried / survived / actions lost / seconds of clock lost.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100, help="kills per store")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=0,
                        help="stop killing after this long (per store), then finish the match")
    parser.add_argument("--store", choices=["sqlite", "postgresql"], action="append",
                        help="only this store (repeatable; default: both)")
    args = parser.parse_args()
    stores = args.store or ["sqlite", "postgresql"]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "figures.jsonl"
        env = {**os.environ, "GAMMON_CRASH_KILLS": str(args.kills),
               "GAMMON_CRASH_SEED": str(args.seed), "GAMMON_CRASH_REPORT": str(report),
               "GAMMON_CRASH_SECONDS": str(args.seconds)}
        code = subprocess.call(
            [sys.executable, "-m", "pytest", "tests/server/test_crash_anywhere.py", "-q",
             "-p", "no:cacheprovider", "-k", " or ".join(stores)], cwd=ROOT, env=env)
        print(f"\nseed {args.seed}, {args.kills} kills per store:")
        if report.exists():
            for line in report.read_text().splitlines():
                figures = json.loads(line)
                print(f"  {figures['store']}: kills tried {figures['kills_tried']}, survived "
                      f"{figures['kills_survived']} ({figures['at_commit']} at a commit), "
                      f"actions lost {figures['actions_lost']} of "
                      f"{figures['actions_acknowledged']} acknowledged, states differing "
                      f"{figures['states_differing']}, clock lost "
                      f"{figures['clock_lost_seconds']:.2f} s over {figures['clock_checked']} "
                      f"checked outages (max {figures['clock_lost_max']:.2f} s), matches "
                      f"finished {figures['matches_finished']}")
    return code


if __name__ == "__main__":
    sys.exit(main())
