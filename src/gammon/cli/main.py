"""The ``gammon`` command.

``gammon serve`` runs the game server, ``gammon worker`` its analyses on PostgreSQL, and
``gammon verify`` checks a finished match's dice
(all three in :mod:`gammon.server.cli`).
``gammon show POSITION_ID [MATCH_ID]`` draws a position; ``gammon moves POSITION_ID DICE``
lists every legal play with the Position ID that follows it (seen from the opponent, who is
on roll next — GNU Backgammon's convention); without a position it reads ``POSITION_ID DICE``
lines from standard input and answers each with one JSON array, flushed per line.
``gammon bench NAME`` runs ``benchmarks/NAME.py``: a source checkout's, else the copy an
installed package keeps in ``<prefix>/share/gammon/benchmarks``. ``gammon --version`` is the
installed package's version.
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
import sysconfig
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from gammon.core.dice import Roll
from gammon.core.moves import legal_plays
from gammon.core.position import Position


class UsageError(ValueError):
    """Bad input on the command line: reported in one line, exit status 2."""


def answer_lines(stdin: TextIO, out: TextIO, answer: Callable[[list[str]], object], *,
                 usage: str, fields: int) -> int:
    """Batch mode: one JSON answer per non-blank input line of ``fields`` words, flushed
    at once; a line that fails (any ``ValueError``) gets ``{"error": ...}`` and the rest
    go on."""
    for line in stdin:
        words = line.split()
        if not words:
            continue
        try:
            if len(words) != fields:
                raise UsageError(f"expected '{usage}', got {line.strip()!r}")
            result = answer(words)
        except ValueError as error:
            result = {"error": str(error)}
        out.write(json.dumps(result) + "\n")
        out.flush()
    return 0


def _plays_for(position_id: str, dice: str) -> list[dict[str, str]]:
    position = Position.from_id(position_id)
    roll = Roll.parse(dice)
    return [
        {"play": play.notation(), "position_id": play.position.swap().id()}
        for play in legal_plays(position, roll)
    ]


def cmd_moves(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    if args.position_id is None:
        return answer_lines(stdin, out, lambda fields: _plays_for(fields[0], fields[1]),
                            usage="POSITION_ID DICE", fields=2)
    if args.dice is None:
        raise UsageError("moves needs DICE after the Position ID, e.g. 'gammon moves ID 31'")
    plays = _plays_for(args.position_id, args.dice)
    if args.json:
        out.write(json.dumps(plays) + "\n")
    else:
        for play in plays:
            out.write(f"{play['play']}\t{play['position_id']}\n")
    return 0


def cmd_show(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from gammon.formats.text_board import draw

    position = Position.from_id(args.position_id)
    notes: list[str] = [f"Position ID: {position.id()}"]
    if args.match_id is not None:
        notes.extend(_describe_match(args.match_id))
    out.write(draw(position, notes=notes) + "\n")
    return 0


def _describe_match(match_id: str) -> list[str]:
    """Lines about the cube, score and turn from a Match ID; X is the player on roll."""
    from gammon.formats.match_id import MatchKey, Resignation

    key = MatchKey.from_id(match_id)
    x = key.dice_owner
    name = {x: "X", 1 - x: "O"}
    if key.match_length:
        score = (f"Match to {key.match_length}: X {key.score[x]}, O {key.score[1 - x]}"
                 + (" (Crawford game)" if key.crawford else ""))
    else:
        score = f"Money session: X {key.score[x]}, O {key.score[1 - x]}"
    owner = "centred" if key.cube_owner is None else f"owned by {name[key.cube_owner]}"
    lines = [f"Match ID: {key.id()}", score, f"Cube: {key.cube} ({owner})"]
    if key.dice is not None:
        lines.append(f"Dice: {key.dice[0]}-{key.dice[1]}")
    if key.double_offered:
        lines.append(f"{name[1 - key.turn]} doubles; {name[key.turn]} to take or drop")
    if key.resignation != Resignation.NONE:
        lines.append(f"{name[1 - key.turn]} offers to resign a "
                     f"{key.resignation.name.lower()}")
    return lines


SERVER_MODULES = frozenset({"fastapi", "starlette", "uvicorn", "websockets", "sqlalchemy",
                            "alembic", "aiosqlite", "pydantic", "pydantic_settings", "argon2",
                            "itsdangerous", "dotenv", "httpx", "orjson", "asyncpg", "redis",
                            "procrastinate", "psycopg"})
"""Modules of the ``server``, ``postgres`` and ``redis`` extras (pyproject.toml)."""


def benchmarks_folder() -> Path | None:
    """The benchmark scripts: the source checkout's ``benchmarks/`` when this package runs
    from one, else the installed copy (pyproject.toml, ``data-files``)."""
    checkout = Path(__file__).resolve().parents[3] / "benchmarks"
    installed = Path(sysconfig.get_path("data")) / "share" / "gammon" / "benchmarks"
    return next((folder for folder in (checkout, installed) if folder.is_dir()), None)


def cmd_bench(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    root = benchmarks_folder()
    script = root / f"{args.name}.py" if root is not None else None
    if script is None or not script.is_file():
        known = sorted(p.stem for p in root.glob("*.py")) if root is not None else []
        raise UsageError(f"no benchmark {args.name!r} (known: {', '.join(known) or 'none'})")
    sys.argv = [str(script), *args.rest]
    # as ``python benchmarks/NAME.py`` would: the scripts import their shared modules
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    runpy.run_path(str(script), run_name="__main__")
    return 0


def cmd_analyse(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from gammon.engine.analysis import Recheck, analyse_actions
    from gammon.formats import mat, sgf
    from gammon.views import analysis_view

    if args.recheck_games and args.recheck_games < 2:
        raise UsageError(f"--recheck-games is 0 (no recheck) or at least 2, "
                         f"got {args.recheck_games}")
    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    codec = sgf if path.suffix.lower() == ".sgf" else mat
    record = codec.load(path)

    def progress(game: int) -> None:
        print(f"analysing game {game} of {len(record.games)} ...", file=sys.stderr, flush=True)

    recheck = (Recheck(games=args.recheck_games, truncate=args.recheck_truncate)
               if args.recheck_games else None)
    analysis = analyse_actions(record.actions(), record.rules, names=record.players,
                               plies=args.ply, start=record.new_match(), progress=progress,
                               recheck=recheck)
    text = {"text": analysis.to_text,
            "json": lambda: json.dumps(analysis_view(analysis), indent=2),
            "html": analysis.to_html}[args.format]()
    if args.out:
        Path(args.out).write_text(text + ("" if text.endswith("\n") else "\n"))
    else:
        out.write(text + "\n")
    return 0


def _from_weights(args: argparse.Namespace, what: str, run: Callable[[Path], object]) -> int:
    """A training stage that starts from ``--from`` (``what`` it needs there, for the usage
    error without it); a ``ValueError`` of the stage's is a usage error."""
    if args.start is None:
        raise UsageError(f"--stage {args.stage} needs --from {what}")
    try:
        run(Path(args.start))
    except ValueError as error:
        raise UsageError(str(error)) from None
    return 0


def cmd_train(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from gammon.training.bootstrap import BootstrapRun, bootstrap
    from gammon.training.td import TrainingRun, train

    def log(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    if args.stage == "fit":
        from gammon.training.supervised import FitRun, fit

        if args.data is None:
            raise UsageError("--stage fit needs --from WEIGHTS and --data SHARDS_DIRECTORY")
        return _from_weights(args, "WEIGHTS and --data SHARDS_DIRECTORY", lambda start: fit(
            start, [Path(one) for one in args.data], Path(args.out),
            FitRun(epochs=args.epochs, alpha=args.alpha_start, seed=args.seed,
                   shards=None if args.shards is None else tuple(args.shards),
                   repeat=None if args.repeat is None else tuple(args.repeat),
                   min_class=args.min_class, rank_weight=args.rank_weight,
                   optimiser=args.optimiser, batch=args.batch, fresh=args.fresh,
                   fresh_hidden=args.fresh_hidden, widen=args.widen, join=args.join,
                   classes=None if args.classes is None else tuple(args.classes)),
            log=log))
    if args.stage == "prune":
        from gammon.training.supervised import PruneRun, train_prune

        return _from_weights(args, "WEIGHTS (the networks to mimic)", lambda start: train_prune(
            start, Path(args.out),
            PruneRun(games=args.games, hidden=args.prune_hidden, epochs=args.epochs,
                     alpha=args.alpha_start, seed=args.seed, noise=args.noise), log=log))
    if args.stage == "judge":
        from gammon.training.judge import make_judge

        return _from_weights(args, "WEIGHTS (the networks to judge for)", lambda start: make_judge(
            start, [Path(member) for member in args.teachers or ()], Path(args.out), log=log))
    if args.stage == "label":
        from gammon.training.supervised import LabelRun, label

        if args.shards is not None and len(args.shards) > 1:
            raise UsageError("--stage label writes one directory: give --shards one count")
        return _from_weights(args, "WEIGHTS (the labelling networks)", lambda start: label(
            start, Path(args.out),
            LabelRun(shards=100 if args.shards is None else args.shards[0],
                     games=args.games, seed=args.seed, noise=args.noise, plies=args.plies,
                     crashed_only=args.crashed_only, race_only=args.race_only,
                     rollout_games=args.rollout_games, truncate=args.truncate,
                     rollout_pruned=args.rollout_pruned,
                     crashed_decisions=args.crashed_decisions, cube_only=args.cube_only,
                     race_decisions=args.race_decisions, behind=args.behind,
                     teachers=tuple(args.teachers or ())),
            log=log))
    if args.stage == "bootstrap":
        if args.start is None:
            raise UsageError("--stage bootstrap needs --from CHECKPOINT")
        bootstrap(Path(args.start), Path(args.out),
                  BootstrapRun(rounds=args.rounds, games=args.games, seed=args.seed,
                               alpha=args.alpha_start, epochs=args.epochs),
                  log=log)
        return 0
    run = TrainingRun(games=args.games, seed=args.seed, alpha_start=args.alpha_start,
                      alpha_end=args.alpha_end, contact_hidden=args.contact_hidden,
                      race_hidden=args.race_hidden, checkpoint_every=args.checkpoint_every,
                      benchmark_every=args.benchmark_every, crashed_hidden=args.crashed_hidden,
                      feature_set={"basic": 1, "expert": 2}[args.features])
    if args.checkpoint_every % run.chunk:
        raise UsageError(f"--checkpoint-every must be a multiple of {run.chunk}")
    train(Path(args.out), run, log=log)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gammon", description="The gammon backgammon system.")
    parser.add_argument("--version", action="version", version=f"gammon {version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    show = commands.add_parser("show", help="draw a position as text")
    show.add_argument("position_id", metavar="POSITION_ID")
    show.add_argument("match_id", metavar="MATCH_ID", nargs="?")
    show.set_defaults(handler=cmd_show)

    moves = commands.add_parser("moves", help="list the legal plays of a position and roll")
    moves.add_argument("position_id", metavar="POSITION_ID", nargs="?",
                       help="omit to read 'POSITION_ID DICE' lines from standard input")
    moves.add_argument("dice", metavar="DICE", nargs="?", help="e.g. 31 or 3-1")
    moves.add_argument("--json", action="store_true", help="print a JSON array")
    moves.set_defaults(handler=cmd_moves)

    analyse = commands.add_parser(
        "analyse", aliases=["analyze"],
        help="rate every play of a match file (.mat or .sgf) against the engine")
    analyse.add_argument("file", metavar="FILE")
    analyse.add_argument("--ply", type=int, default=0, choices=(0, 1, 2))
    analyse.add_argument("--format", choices=("text", "json", "html"), default="text")
    analyse.add_argument("--recheck-games", type=int, default=1296, metavar="N",
                         help="each checker error flagged at --ply is graded again by "
                              "rollouts of both plays, N games each (0: no recheck; "
                              "default 1296)")
    analyse.add_argument("--recheck-truncate", type=int, default=7, metavar="PLIES",
                         help="plies each recheck game is played (default 7)")
    analyse.add_argument("--out", help="write the report to this file")
    analyse.set_defaults(handler=cmd_analyse)

    train = commands.add_parser(
        "train", help="self-play TD training of the networks (resumes from --out)")
    train.add_argument("--out", required=True, help="checkpoint file (.npz), resumed if present")
    train.add_argument("--stage", choices=("td", "bootstrap", "label", "fit", "prune", "judge"),
                       default="td",
                       help="td: self-play TD(0); bootstrap: fit 0-ply to 1-ply evaluations; "
                            "label: shards of positions where search disagrees with 0-ply "
                            "(--out is a directory); fit: fit --from to the --data shards; "
                            "prune: add to --from a pruning network for the search; judge: "
                            "add to --from a judge, its contact network joined with "
                            "--teachers' ones")
    train.add_argument("--data", nargs="+",
                       help="fit: the directories of labelled shards")
    train.add_argument("--from", dest="start",
                       help="bootstrap, fit: the networks to start from; label: the labeller")
    train.add_argument("--rounds", type=int, default=5, help="bootstrap: rounds")
    train.add_argument("--epochs", type=int, default=4,
                       help="bootstrap: epochs per round; fit, prune: epochs")
    train.add_argument("--games", type=int, default=300_000,
                       help="td: games in all; bootstrap: per round; label: per shard; "
                            "prune: self-play games of training data")
    train.add_argument("--seed", type=int, default=1)
    train.add_argument("--alpha-start", type=float, default=0.1,
                       help="td: first learning rate; bootstrap, fit: the learning rate")
    train.add_argument("--alpha-end", type=float, default=0.02)
    train.add_argument("--contact-hidden", type=int, default=128)
    train.add_argument("--race-hidden", type=int, default=64)
    train.add_argument("--shards", type=int, nargs="+", default=None,
                       help="label: shards in all (default 100); fit: use the first this "
                            "many shards of each --data directory, or one count for each "
                            "(default: all)")
    train.add_argument("--repeat", type=int, nargs="+", default=None, metavar="TIMES",
                       help="fit: take each --data directory's training decisions this many "
                            "times an epoch, one count for each (default: once each): a "
                            "small set of precise labels weighed against a large one")
    train.add_argument("--noise", type=float, default=0.05,
                       help="label, prune: equity noise of the self-play choices")
    train.add_argument("--plies", type=int, default=2, help="label: depth of the labels")
    train.add_argument("--crashed-only", action="store_true",
                       help="label: keep every crashed position met (side on roll), not the "
                            "positions where search disagrees with 0-ply")
    train.add_argument("--cube-only", action="store_true",
                       help="label: keep every contact position met (side on roll) whose "
                            "0-ply winning chance is 55-80%%: where doubles and takes are "
                            "decided")
    train.add_argument("--race-only", action="store_true",
                       help="label: keep every race position met (side on roll) that is "
                            "not a pure bear-off, not the positions where search disagrees")
    train.add_argument("--crashed-decisions", action="store_true",
                       help="label: keep only the positions where search disagrees with "
                            "0-ply in crashed positions (the candidates of each decision); "
                            "with --teachers: every decision that leaves a crashed position "
                            "instead of a contact one")
    train.add_argument("--race-decisions", action="store_true",
                       help="label: keep only the positions where search disagrees with "
                            "0-ply in race positions that are not pure bear-offs")
    train.add_argument("--behind", type=int, default=0, metavar="PIPS",
                       help="label: keep only the positions where search disagrees with "
                            "0-ply in contact positions whose side on roll trails in the "
                            "race by PIPS or more (holding and back games)")
    train.add_argument("--rollout-games", type=int, default=0,
                       help="label: label the positions by truncated rollouts of this many "
                            "games (0: by the search at --plies, which still picks them)")
    train.add_argument("--truncate", type=int, default=0,
                       help="label: plies of each rollout game before the networks judge "
                            "it (0: to the end)")
    train.add_argument("--rollout-pruned", action="store_true",
                       help="label: choose the rollouts' plays as the search's inner plies "
                            "do, the pruning network's best few fully evaluated (faster)")
    train.add_argument("--teachers", nargs="+", metavar="WEIGHTS",
                       help="label: label every candidate of every decision that leaves a "
                            "contact position (crashed, with --crashed-decisions) by the "
                            "mean of these networks' 0-ply "
                            "probabilities, moved to --from's own level decision by decision; "
                            "judge: the weights whose contact networks join --from's")
    train.add_argument("--fresh", action="store_true",
                       help="fit: the --classes networks start from random weights drawn "
                            "from --seed, not from --from's (teachers for --teachers)")
    train.add_argument("--fresh-hidden", type=int, default=None,
                       help="fit --fresh: hidden units of the new networks (default: those "
                            "of --from's networks they replace)")
    train.add_argument("--widen", type=int, default=None, metavar="HIDDEN",
                       help="fit: the --classes networks grow to HIDDEN units before the "
                            "fit, the new units silent at first (the fit starts from "
                            "--from's evaluations)")
    train.add_argument("--join", default=None, metavar="WEIGHTS",
                       help="fit: the --classes networks joined side by side with WEIGHTS' "
                            "before the fit, each's output halved (the fit starts from the "
                            "mean of the two)")
    train.add_argument("--min-class", type=int, default=300,
                       help="fit: a class's network is fitted only on at least this many "
                            "positions of it")
    train.add_argument("--classes", nargs="+", choices=("contact", "crashed", "race"),
                       help="fit: fit only these classes' networks (default: every class "
                            "with --min-class positions)")
    train.add_argument("--rank-weight", type=float, default=0.0,
                       help="fit: weight of each candidate's equity relative to the other "
                            "candidates of its decision (0: cross-entropy alone)")
    train.add_argument("--optimiser", choices=("sgd", "adam"), default="sgd",
                       help="fit: per-position SGD at --alpha-start, or Adam on minibatches "
                            "of whole decisions, its step peaking at --alpha-start and "
                            "decaying to 0 over the epochs")
    train.add_argument("--batch", type=int, default=512,
                       help="fit with Adam: positions per minibatch (whole decisions)")
    train.add_argument("--prune-hidden", type=int, default=16,
                       help="prune: hidden units of the pruning network")
    train.add_argument("--crashed-hidden", type=int, default=64,
                       help="expert features: hidden units of the crashed network")
    train.add_argument("--features", choices=("basic", "expert"), default="basic",
                       help="inputs of new networks (a resumed run keeps its own)")
    train.add_argument("--checkpoint-every", type=int, default=5_000)
    train.add_argument("--benchmark-every", type=int, default=25_000,
                       help="games between quick duplicate matches against pubeval (0: never)")
    train.set_defaults(handler=cmd_train)

    from gammon.cli.bot import add_bot_command
    from gammon.cli.cube_commands import add_cube_commands
    from gammon.cli.engine_commands import add_engine_commands
    from gammon.cli.external import add_external_command
    from gammon.cli.ubgi import add_ubgi_command
    from gammon.server.cli import add_serve_command, add_verify_command, add_worker_command

    add_engine_commands(commands)
    add_cube_commands(commands)
    add_external_command(commands)
    add_ubgi_command(commands)
    add_bot_command(commands)

    add_serve_command(commands)
    add_worker_command(commands)
    add_verify_command(commands)

    bench = commands.add_parser("bench", help="run a benchmark from benchmarks/")
    bench.add_argument("name", metavar="NAME", help="e.g. movegen")
    bench.add_argument("rest", nargs=argparse.REMAINDER, help="arguments for the benchmark")
    bench.set_defaults(handler=cmd_bench)
    return parser


def version() -> str:
    """The installed package's version (its metadata)."""
    from gammon import __version__

    return __version__


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         stdin: TextIO | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args, out or sys.stdout, stdin or sys.stdin))
    except ValueError as error:  # every malformed input raises a narrow ValueError
        print(f"gammon: error: {error}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in SERVER_MODULES:
            raise
        print(f"gammon: error: 'gammon {args.command}' needs the web stack, which this "
              f"installation lacks (no module {error.name!r}): pip install 'gammon[server]'",
              file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
