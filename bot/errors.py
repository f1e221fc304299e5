"""User-facing errors, and the one function that turns any error into an ephemeral reply."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord import app_commands

from engine.errors import EngineError

from .i18n import has_message, t
from .storage.errors import StorageError

log = logging.getLogger(__name__)

DM_CLOSED = 50007

# Storage refusals that mean a bug or a damaged database rather than a user's mistake: still
# told as a sentence, but logged with the traceback.
INTERNAL_STORAGE_CODES = frozenset(
    {
        "bad_id",
        "bad_json",
        "bad_deck",
        "bad_players",
        "bad_state",
        "seat_mismatch",
        "action_out_of_order",
        "hand_chips_mismatch",
        "deck_commitment_mismatch",
        "hand_corrupt",
        "engine_missing",
        "schema_too_new",
        "migration_failed",
        "invariant_broken",
        "database_missing",
        "sqlite_too_old",
        "unknown_guild",
        "hand_not_running",
    }
)


class BotError(Exception):
    """An expected refusal to show the user: ``code`` names the message ``error.<code>``.

    >>> str(BotError("cooldown", retry_after=3))
    'cooldown: retry_after=3'
    """

    def __init__(self, code: str, /, **params: object) -> None:
        self.code = code
        self.params: dict[str, object] = params
        detail = ", ".join(f"{key}={value!r}" for key, value in params.items())
        super().__init__(f"{code}: {detail}" if detail else code)

    def message(self, locale: object = None) -> str:
        return t(f"error.{self.code}", locale, **self.params)


def locale_of(interaction: discord.Interaction[Any]) -> object:
    """The user's Discord locale, else the server's: what the reply should be written in."""
    return interaction.locale or interaction.guild_locale


def _permission_names(names: list[str]) -> str:
    return ", ".join(name.replace("_", " ") for name in names)


def unwrap(error: BaseException) -> BaseException:
    """The error behind discord.py's command-invoke wrapper."""
    while isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    return error


def describe_error(error: BaseException, locale: object = None) -> tuple[str, bool]:
    """``(message for the user, expected)``; unexpected errors also deserve a log traceback."""
    error = unwrap(error)
    if isinstance(error, BotError):
        return error.message(locale), True
    if isinstance(error, EngineError):
        key = f"engine.{error.code}"
        if has_message(key, locale):
            return t(key, locale, **error.params), True
        return t("error.illegal_action", locale), True
    if isinstance(error, StorageError):
        key = f"storage.{error.code}"
        if has_message(key, locale):
            return t(key, locale, **error.params), error.code not in INTERNAL_STORAGE_CODES
        return t("error.internal", locale), False
    if isinstance(error, app_commands.CommandOnCooldown):
        return t("error.cooldown", locale, retry_after=f"{error.retry_after:.0f}"), True
    if isinstance(error, app_commands.MissingPermissions):
        names = _permission_names(error.missing_permissions)
        return t("error.missing_permissions", locale, permissions=names), True
    if isinstance(error, app_commands.BotMissingPermissions):
        names = _permission_names(error.missing_permissions)
        return t("error.bot_missing_permissions", locale, permissions=names), True
    if isinstance(error, app_commands.NoPrivateMessage):
        return t("error.guild_only", locale), True
    if isinstance(error, app_commands.TransformerError):
        return t("error.bad_option", locale, option=str(error.value)), True
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return t("error.command_outdated", locale), True
    if isinstance(error, app_commands.CheckFailure):
        return t("error.not_allowed", locale), True
    if isinstance(error, discord.Forbidden):
        if error.code == DM_CLOSED:
            return t("error.dm_closed", locale), True
        return t("error.bot_forbidden", locale), False
    if isinstance(error, discord.NotFound):
        return t("error.gone", locale), True
    if isinstance(error, discord.RateLimited):
        return t("error.rate_limited", locale), False
    if isinstance(error, discord.HTTPException):
        return t("error.discord_unavailable", locale), False
    if isinstance(error, asyncio.TimeoutError):
        return t("error.timeout", locale), False
    return t("error.internal", locale), False


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Tell the user what went wrong, ephemerally, in his language; never raise.

    Unexpected errors are logged with their traceback; the user only ever sees a sentence.
    """
    message, expected = describe_error(error, locale_of(interaction))
    original = unwrap(error)
    if expected:
        log.debug("refused interaction %s: %r", interaction.id, original)
    else:
        log.error(
            "error in interaction %s (user %s, command %s)",
            interaction.id,
            interaction.user.id if interaction.user else None,
            interaction.command.qualified_name if interaction.command else None,
            exc_info=original,
        )
    try:
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)
    except discord.HTTPException as send_error:
        # The token may have expired or the channel vanished; there is nobody left to tell.
        log.warning("could not report an error for interaction %s: %s", interaction.id, send_error)
