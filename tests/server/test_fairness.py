"""Provably fair dice: the dice of a seed are reproducible and uniform, and ``gammon
verify`` recomputes every die of a fairness record: the opening's throws, which player it
names first, the roll the winner plays (the two opening dice, or with "winner rolls anew"
two more dice from the same dice action) and every roll."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gammon.core import actions as A
from gammon.server import protocol
from gammon.server.cli import main as cli_main
from gammon.server.fairness import FairDice, commitment, new_seed, verify


def _record(*, anew: bool, rolls: int = 3, seeds: tuple[str, str] = ("a", "b"),
            seed: str | None = None) -> dict[str, Any]:
    """A fairness record as the server publishes it: an opening and ``rolls`` rolls."""
    seed = seed or new_seed()
    dice = FairDice(seed, seeds)
    actions = [protocol.action_json(A.RollOpening.from_source(dice.source(0),
                                                              winner_rolls_anew=anew))]
    actions += [protocol.action_json(A.RollDice.from_source(n % 2, dice.source(n)))
                for n in range(1, rolls + 1)]
    return {"server_seed": seed, "seed_hash": commitment(seed), "client_seeds": list(seeds),
            "winner_rolls_anew": anew, "actions": actions}


def _other_roll(*rolls: list[int]) -> list[int]:
    """A roll differing from each of ``rolls`` (not the same two dice in any order)."""
    taken = {tuple(sorted(roll)) for roll in rolls}
    return next([a, b] for a in range(1, 7) for b in range(a, 7) if (a, b) not in taken)


@pytest.mark.parametrize("anew", [False, True])
def test_an_untampered_record_verifies(anew: bool) -> None:
    assert verify(_record(anew=anew)) == []


def test_winner_rolls_anew_opening_roll_is_checked() -> None:
    """With "winner rolls anew" the winner's new roll is two more dice of the opening's dice
    action; a record with other dice there must fail."""
    record = _record(anew=True)
    tampered = copy.deepcopy(record)
    tampered["actions"][0]["roll"] = _other_roll(record["actions"][0]["roll"])
    problems = verify(tampered)
    assert problems and "dice action 0" in problems[0]


def test_the_opening_roll_must_be_the_last_opening_throw() -> None:
    """Without "winner rolls anew" the winner plays the two dice of the deciding throw; a
    record whose opening roll is anything else must fail."""
    seed = new_seed()
    record = _record(anew=False, seed=seed)
    anew_roll = _record(anew=True, seed=seed)["actions"][0]["roll"]
    tampered = copy.deepcopy(record)
    tampered["actions"][0]["roll"] = _other_roll(record["actions"][0]["roll"], anew_roll)
    assert verify(tampered)
    # claiming the option for a match played without it does not help either (the tampered
    # roll differs from the two dice the option would draw, so it cannot pass by chance)
    assert verify({**tampered, "winner_rolls_anew": True})


def test_the_player_named_first_must_have_won_the_opening() -> None:
    record = _record(anew=False)
    tampered = copy.deepcopy(record)
    tampered["actions"][0]["first"] = 1 - record["actions"][0]["first"]
    assert verify(tampered)


def test_a_record_without_the_option_flag_is_read_from_its_opening() -> None:
    """Records saved before the flag was published: the option is inferred from the
    opening, and every die is still recomputed."""
    for anew in (False, True):
        record = _record(anew=anew)
        del record["winner_rolls_anew"]
        assert verify(record) == []
        record["actions"][1]["roll"] = _other_roll(record["actions"][1]["roll"])
        assert verify(record)


def _repeating_the_deciding_throw() -> dict[str, Any]:
    """A "winner rolls anew" record without the option flag whose new roll shows the
    deciding throw's numbers again, lower die first (the first such of fixed seeds): read
    as played without the option (the winner plays the throw's numbers higher die first)
    it fails, so a check must accept either option."""
    def repeats(opening: dict[str, Any]) -> bool:
        roll = opening["roll"]
        return roll[0] < roll[1] and sorted(roll) == sorted(opening["throws"][-1])

    seeds = (f"{n:064x}" for n in range(10_000))
    record = next(r for r in (_record(anew=True, seed=s) for s in seeds)
                  if repeats(r["actions"][0]))
    del record["winner_rolls_anew"]
    return record


def test_a_record_without_the_flag_passes_when_the_new_roll_repeats_the_deciding_throw() -> None:
    """With "winner rolls anew" the new roll may show the deciding throw's two numbers
    again (in either order): without the flag, that opening must still verify (the test
    above failed about one run in 36 when the option was guessed from the roll alone)."""
    record = _repeating_the_deciding_throw()
    assert verify(record) == []
    record["actions"][0]["first"] = 1 - record["actions"][0]["first"]
    assert verify(record)


@pytest.mark.parametrize("damage", [
    lambda r: r["actions"][0].pop("roll"),
    lambda r: r["actions"][0].update(throws="66"),
    lambda r: r["actions"][0].update(throws=[[9, 1]]),
    lambda r: r["actions"][1].update(roll=[1, True]),
    lambda r: r.update(actions=None),
    lambda r: r.update(client_seeds=["only one"]),
    lambda r: r.update(seed_hash=7),
    lambda r: r.update(server_seed="not hex"),
    lambda r: r.update(winner_rolls_anew="yes"),
])
def test_malformed_records_are_reported_not_crashed_on(damage: Any) -> None:
    record = _record(anew=True)
    damage(record)
    problems = verify(record)
    assert problems and all(isinstance(p, str) for p in problems)


def test_verify_command_fails_a_tampered_anew_record(tmp_path: Path) -> None:
    """The ``gammon verify`` command itself: exit status 1 and a FAIL line."""
    record = _record(anew=True)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert cli_main(["verify", str(path)]) == 0
    record["actions"][0]["roll"] = _other_roll(record["actions"][0]["roll"])
    path.write_text(json.dumps(record))
    assert cli_main(["verify", str(path)]) == 1


def test_verify_command_reports_a_file_that_is_not_json(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.json"
    path.write_text("{not json")
    assert cli_main(["verify", str(path)]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert cli_main(["verify", str(tmp_path / "missing.json")]) == 1


def test_fair_dice_are_reproducible_and_uniform() -> None:
    fresh = new_seed()
    assert len(fresh) == 64 and commitment(fresh) != fresh and new_seed() != fresh
    # the dice of a fixed seed (a fresh one gave the same first three dice for two client
    # seeds, 1 chance in 216 each: about 1 run in 47,000 failed the check that they matter)
    seed = "3c" * 32
    dice = FairDice(seed, ("x", "y"))
    first = [dice.source(n).randint(1, 6) for n in range(3)]
    assert first == [FairDice(seed, ("x", "y")).source(n).randint(1, 6) for n in range(3)]
    assert first != [FairDice(seed, ("x", "z")).source(n).randint(1, 6) for n in range(3)] or \
        first != [FairDice(seed, ("x", "w")).source(n).randint(1, 6) for n in range(3)]
    counts = Counter(dice.source(n).randint(1, 6) for n in range(6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(850 < c < 1150 for c in counts.values())


def test_verify_recomputes_every_roll() -> None:
    # a fixed seed: on a fresh one, other client seeds give the same two rolls about once
    # in 1,300 runs, and the changed seeds below would then verify
    seed = "5e" * 32
    dice = FairDice(seed, ("a", "b"))
    opening = A.RollOpening.from_source(dice.source(0))
    roll = A.RollDice.from_source(1, dice.source(1))
    record = {"server_seed": seed, "seed_hash": commitment(seed), "client_seeds": ["a", "b"],
              "actions": [protocol.action_json(opening), protocol.action_json(roll)]}
    assert verify(record) == []
    assert verify({**record, "seed_hash": commitment(new_seed())})
    assert verify({**record, "client_seeds": ["a", "c"]})
    assert verify({**record, "server_seed": None}) == [
        "the server seed is not revealed yet (the match is not over)"]
