"""``poker-bot`` (and ``python -m bot``): run the bot, play a demo, or back up the database.

    poker-bot                 run the bot (settings from the environment and .env)
    poker-bot demo --out DIR  play a few hands among simulated players, no Discord needed
    poker-bot backup PATH     copy the live database safely (SQLite online backup)
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence

import discord

from bot.settings import Settings, SettingsError

log = logging.getLogger("bot")

# Exactly what the bot uses: it reads no messages, so no privileged intent and no Administrator.
REQUIRED_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    read_message_history=True,
)
SCOPES = ("bot", "applications.commands")

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


def invite_url(application_id: int) -> str:
    return discord.utils.oauth_url(
        application_id, permissions=REQUIRED_PERMISSIONS, scopes=SCOPES
    )


def permission_names() -> list[str]:
    # discord.py iterates some permissions under their old aliases; say what the portal says.
    aliases = {"read_messages": "view_channel"}
    return sorted(aliases.get(name, name) for name, value in REQUIRED_PERMISSIONS if value)


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
    discord.utils.setup_logging(level=settings.log_level_number)
    from bot.app import build_bot

    bot = build_bot(settings)
    try:
        bot.run(settings.discord_token, log_handler=None)
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN")
        return 2
    return 0


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
    args = parser.parse_args(argv)
    if args.command == "demo":
        return _demo(args.out, args.hands, args.seed)
    if args.command == "backup":
        return _backup(args.path)
    return _run_bot()


if __name__ == "__main__":
    raise SystemExit(main())
