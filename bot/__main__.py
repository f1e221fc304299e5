"""``poker-bot`` (and ``python -m bot``): run the bot, play a demo, or back up the database.

    poker-bot                 run the bot (settings from the environment and .env)
    poker-bot demo --out DIR  play a few hands among simulated players, no Discord needed
    poker-bot backup PATH     copy the live database safely (SQLite online backup)
    poker-bot migrate-db --to postgresql://...   copy the database into an empty PostgreSQL one
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord

from bot.invite import REQUIRED_PERMISSIONS, SCOPES, permission_names
from bot.logs import setup_logging
from bot.settings import Settings, SettingsError

if TYPE_CHECKING:
    from bot.client import PokerBot

log = logging.getLogger("bot")

NO_TOKEN_HELP = """\
poker-bot needs a Discord bot token, and none is set.

1. Open the Discord developer portal, choose "New Application" and give it a name.
2. In the "Bot" tab, choose "Reset Token" and copy the token.
   No privileged gateway intents are needed: leave them all off.
3. Put the token in a file named .env beside this project (see .env.example):
       DISCORD_TOKEN=your-token-here
   or export DISCORD_TOKEN in the environment.
4. Invite the bot with the scopes {scopes} and these permissions (integer {value}):
       {names}
   Once the bot runs it logs the exact invite link.
5. Optional: DEV_GUILD_ID=<your server id> makes slash commands appear instantly there.

Try the game without Discord:  poker-bot demo --out demo-output
"""


def _run_bot() -> int:
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        if "DISCORD_TOKEN" in str(exc):
            sys.stderr.write(
                NO_TOKEN_HELP.format(
                    scopes=" + ".join(SCOPES),
                    value=REQUIRED_PERMISSIONS.value,
                    names=", ".join(permission_names()),
                )
            )
        else:
            sys.stderr.write(f"poker-bot: {exc}\n")
        return 2
    setup_logging(settings.log_level_number, settings.log_format)
    from bot.client import PokerBot

    try:
        asyncio.run(_serve(PokerBot(settings), settings.discord_token))
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN")
        return 2
    except KeyboardInterrupt:
        pass  # Ctrl-C before the signal handlers were in place: nothing was running yet
    return 0


async def _serve(bot: PokerBot, token: str) -> None:
    """Run until Discord closes us or a stop signal (Ctrl-C, SIGTERM) arrives; either way the
    bot closes gracefully: tables send what they queued, then the connection and the database
    close."""
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # not on every platform
            loop.add_signal_handler(sig, stopping.set)
    async with bot:
        running = asyncio.create_task(bot.start(token), name="poker-bot")
        stop = asyncio.create_task(stopping.wait(), name="stop-signal")
        await asyncio.wait({running, stop}, return_when=asyncio.FIRST_COMPLETED)
        if stop.done():
            log.info("stopping: sending what the tables queued, then closing")
        await bot.close()
        stop.cancel()
        if running.done() and not running.cancelled():
            running.result()  # a login failure surfaces here


def _backup(path: str) -> int:
    from bot.storage.backup import backup
    from bot.storage.errors import StorageError

    try:
        settings = Settings.from_env(require_token=False)
        asyncio.run(backup(settings.database_url, path))
    except (SettingsError, StorageError) as exc:
        sys.stderr.write(f"poker-bot backup: {exc}\n")
        return 1
    sys.stdout.write(f"backed up {settings.database_url} to {path}\n")
    return 0


def _migrate(target: str, source: str | None) -> int:
    from bot.storage import Database, StorageError
    from bot.storage.db import redact_url
    from bot.storage.transfer import copy_database

    async def copy(source_url: str) -> str:
        async with await Database.open(source_url) as src, await Database.open(target) as dst:
            report = await copy_database(src, dst)
        rows = ", ".join(f"{name} {count:,}" for name, count in report.rows.items())
        return (
            f"copied {redact_url(source_url)} to {redact_url(target)}: {rows};"
            f" {report.chips:,} chips, the invariant holds on both sides\n"
        )

    try:
        settings = Settings.from_env(require_token=False)
        summary = asyncio.run(copy(source or settings.database_url))
    except (SettingsError, StorageError) as exc:
        sys.stderr.write(f"poker-bot migrate-db: {exc}\n")
        return 1
    sys.stdout.write(summary)
    return 0


def _demo(out: str, hands: int, seed: int | None) -> int:
    from bot.demo import run_demo

    summary = asyncio.run(run_demo(out, hands=hands, seed=seed))
    sys.stdout.write(summary + "\n")
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= 10_000:
        raise argparse.ArgumentTypeError("choose between 1 and 10000 hands")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="poker-bot", description="Hold'em for Discord")
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run", help="run the bot (the default)")
    run.set_defaults(command="run")
    demo = sub.add_parser("demo", help="play a few hands among simulated players")
    demo.add_argument("--out", required=True, help="folder for the images and hand histories")
    demo.add_argument("--hands", type=_positive, default=5)
    demo.add_argument("--seed", type=int, default=None)
    backup = sub.add_parser("backup", help="copy the live database safely")
    backup.add_argument("path")
    move = sub.add_parser(
        "migrate-db", help="copy the whole database into an empty one (e.g. PostgreSQL)"
    )
    move.add_argument("--to", required=True, help="the target database URL (it must be empty)")
    move.add_argument(
        "--from", dest="source", default=None, help="the source (default: DATABASE_URL)"
    )
    args = parser.parse_args(argv)
    if args.command == "demo":
        return _demo(args.out, args.hands, args.seed)
    if args.command == "backup":
        return _backup(args.path)
    if args.command == "migrate-db":
        return _migrate(args.to, args.source)
    return _run_bot()


if __name__ == "__main__":
    raise SystemExit(main())
