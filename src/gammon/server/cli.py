"""``gammon serve``, ``gammon worker`` and ``gammon verify``, added to the main CLI by
:func:`add_serve_command`, :func:`add_worker_command` and :func:`add_verify_command`."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from typing import Any, TextIO


def cmd_serve(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    """Run the server with uvicorn until interrupted."""
    import uvicorn

    from gammon.server import ops
    from gammon.server.app import create_app
    from gammon.server.settings import Settings

    overrides: dict[str, Any] = {}
    if args.bind:
        host, _, port = args.bind.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"--bind is HOST:PORT, got {args.bind!r}")
        overrides.update(host=host, port=int(port))
    if args.database_url:
        overrides["database_url"] = args.database_url
    if args.redis_url:
        overrides["redis_url"] = args.redis_url
    settings = Settings(**overrides)
    log_format = args.log_format or os.environ.get("GAMMON_LOG_FORMAT", "text")
    ops.configure_logging(log_format, args.log_level)
    # A server holds many small immutable game states: automatic collections of that heap
    # paused the event loop for up to ~100 ms at random moments (p99 latency 108 ms at 500
    # matches, 24 ms without them). The app collects on a timer instead (see create_app).
    gc.disable()
    out.write(f"gammon serving on http://{settings.bind} ({settings.database_url})\n")
    out.flush()
    app = create_app(settings)
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_config=None,
                            log_level=args.log_level, ws_max_size=65536, lifespan="on")
    ops.GracefulServer(config, app).run()
    return 0


def cmd_worker(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    """Run the analyses' jobs of a PostgreSQL deployment until SIGTERM or SIGINT."""
    import asyncio

    from gammon.server import jobs, ops
    from gammon.server.settings import Settings

    overrides: dict[str, Any] = {}
    if args.database_url:
        overrides["database_url"] = args.database_url
    if args.redis_url:
        overrides["redis_url"] = args.redis_url
    if args.concurrency is not None:
        overrides["worker_concurrency"] = args.concurrency
    settings = Settings(**overrides)
    if not jobs.is_postgres(settings.database_url):
        raise ValueError("gammon worker runs the job queue of a PostgreSQL deployment "
                         f"(GAMMON_DATABASE_URL is {settings.database_url}); on SQLite "
                         "gammon serve runs the analyses itself")
    if args.metrics_bind and not args.metrics_bind.rpartition(":")[2].isdigit():
        raise ValueError(f"--metrics-bind is HOST:PORT, got {args.metrics_bind!r}")
    log_format = args.log_format or os.environ.get("GAMMON_LOG_FORMAT", "text")
    ops.configure_logging(log_format, args.log_level)
    out.write(f"gammon worker: {settings.worker_concurrency} at once "
              f"({jobs.conninfo(settings.database_url).rpartition('@')[2]})\n")
    out.flush()
    asyncio.run(jobs.work(settings, settings.worker_concurrency, args.metrics_bind))
    return 0


def cmd_verify(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    """Check a match's dice: a fairness record file, or fetched from a server URL."""
    import httpx

    from gammon.server.fairness import dice_action_count, verify

    source: str = args.record
    try:
        if source.startswith(("http://", "https://")):
            record = httpx.get(source, timeout=10).raise_for_status().json()
        elif source == "-":
            record = json.load(stdin)
        else:
            with open(source, encoding="utf-8") as handle:
                record = json.load(handle)
    except (OSError, ValueError, httpx.HTTPError) as error:
        out.write(f"FAIL cannot read the fairness record {source!r}: {error}\n")
        return 1
    problems = verify(record)
    for problem in problems:
        out.write(f"FAIL {problem}\n")
    if not problems:
        out.write(f"OK: the seed matches its hash and every die of all "
                  f"{dice_action_count(record)} dice actions is what the seeds give\n")
    return 1 if problems else 0


def add_serve_command(subparsers: Any) -> None:
    """Add ``gammon serve`` to the CLI's subcommands."""
    serve = subparsers.add_parser(
        "serve", help="run the game server (settings from GAMMON_* variables and .env)")
    serve.add_argument("--bind", help="HOST:PORT (default 127.0.0.1:8000)")
    serve.add_argument("--database-url", help="e.g. postgresql+asyncpg://user@host/db")
    serve.add_argument("--redis-url", help="e.g. redis://127.0.0.1:6379/0 (scale-out)")
    serve.add_argument("--log-level", default="info")
    serve.add_argument("--log-format", choices=("text", "json"),
                       help="log lines as text or one JSON object each (default: "
                            "GAMMON_LOG_FORMAT, else text)")
    serve.set_defaults(handler=cmd_serve)


def add_worker_command(subparsers: Any) -> None:
    """Add ``gammon worker`` to the CLI's subcommands."""
    worker = subparsers.add_parser(
        "worker", help="run the analyses of a PostgreSQL deployment (settings as serve's)")
    worker.add_argument("--database-url", help="e.g. postgresql+asyncpg://user@host/db")
    worker.add_argument("--redis-url", help="the deployment's bus: progress to the players")
    worker.add_argument("--concurrency", type=int,
                        help="analyses at once (default GAMMON_WORKER_CONCURRENCY, 1)")
    worker.add_argument("--metrics-bind", help="HOST:PORT to serve /metrics on (default: none)")
    worker.add_argument("--log-level", default="info")
    worker.add_argument("--log-format", choices=("text", "json"),
                        help="log lines as text or one JSON object each (default: "
                             "GAMMON_LOG_FORMAT, else text)")
    worker.set_defaults(handler=cmd_worker)


def add_verify_command(subparsers: Any) -> None:
    """Add ``gammon verify RECORD`` (a fairness JSON file, ``-``, or its server URL)."""
    verify = subparsers.add_parser(
        "verify", help="recompute a finished match's dice from its revealed seeds")
    verify.add_argument("record", metavar="RECORD",
                        help="fairness JSON file, '-' for stdin, or "
                             "http://HOST/api/games/ID/fairness")
    verify.set_defaults(handler=cmd_verify)


def main(argv: list[str] | None = None) -> int:
    """``python -m gammon.server.cli serve|worker|verify ...``: the same commands as
    ``gammon``."""
    parser = argparse.ArgumentParser(prog="gammon")
    commands = parser.add_subparsers(dest="command", required=True)
    add_serve_command(commands)
    add_worker_command(commands)
    add_verify_command(commands)
    args = parser.parse_args(argv)
    return int(args.handler(args, sys.stdout, sys.stdin))


if __name__ == "__main__":
    sys.exit(main())
