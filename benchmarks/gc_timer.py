"""What the server's timed garbage collections cost, on a model of a loaded process: ``--rooms``
matches held in memory (rooms of :mod:`benchmarks.action_cost`, played through
:meth:`Room.plan <gammon.server.rooms.Room.plan>` and ``commit`` with the two updates the hub
writes), each acting every 2 s on average, collected as a timer does: every ``--every``
seconds (of simulated time) the generation ``--generation``, or with ``--middle-every K`` the
young generation and every K-th time the middle one (the timer before docs/server.md's
*Where the time goes*: ``--every 1 --middle-every 10``). Automatic collection is off and the
start-up heap frozen, as in ``gammon serve``.

Prints the collections' CPU time per simulated second and the median and longest
collection (thread CPU time, so other work on the machine hardly changes them).

Run: ``python benchmarks/gc_timer.py [--rooms 1000] [--seconds 40] [--every 0.25]
[--generation 1 | --middle-every 10]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time

from action_cost import player_action, seated_room, updates
from gammon.server.rooms import Room


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--every", type=float, default=0.25)
    parser.add_argument("--generation", type=int, default=1)
    parser.add_argument("--middle-every", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(1)
    gc.disable()

    def new_room(at: float) -> Room:
        room = seated_room(rng.randrange(10**6))
        for step in room.plan(None, at, at):
            room.commit(step)
        return room

    at = 1000.0
    rooms = [new_room(at) for _ in range(args.rooms)]

    def act(index: int) -> None:
        room = rooms[index]
        assert room.match is not None
        if room.match.is_over:
            rooms[index] = new_room(at)
            return
        events = [e for step in room.plan(player_action(room), at, at)
                  for e in room.commit(step)]
        updates(room, events, at)

    for _ in range(60):  # each match some way in: histories of events, as in play
        for index in range(len(rooms)):
            act(index)
        at += 1
    gc.collect()
    gc.freeze()
    pauses = []
    per_tick = round(len(rooms) / 2 * args.every)  # one action per match every 2 s
    for tick in range(1, round(args.seconds / args.every) + 1):
        for index in rng.sample(range(len(rooms)), per_tick):
            act(index)
        at += args.every
        generation = args.generation if not args.middle_every \
            else 1 if tick % args.middle_every == 0 else 0
        started = time.thread_time()
        gc.collect(generation)
        pauses.append(time.thread_time() - started)
    what = f"generation {args.generation}" if not args.middle_every \
        else f"young; middle every {args.middle_every}"
    print(f"{args.rooms} rooms, a collection every {args.every} s ({what}): "
          f"{1000 * sum(pauses) / args.seconds:.1f} ms a second, median "
          f"{1000 * statistics.median(pauses):.1f} ms, longest {1000 * max(pauses):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
