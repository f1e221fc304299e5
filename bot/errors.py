"""User-facing errors, and the one function that turns any error into an ephemeral reply."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands

from engine.errors import CodedError, EngineError

from .i18n import has_message, isolate, number, option_label, t

log = logging.getLogger(__name__)

DM_CLOSED = 50007
# Refusal parameters that are chip amounts: written as the reader's locale writes numbers.
AMOUNT_PARAMS = frozenset({"amount", "maximum", "minimum", "to_call", "chip_unit", "balance",
                           "stack", "circulation", "room"})
# Parameters that name an option or a setting: shown in the reader's words, not as identifiers.
NAME_PARAMS = frozenset({"option", "name", "field"})


class BotError(CodedError):
    """An expected refusal by the bot itself (its message is ``error.<code>``).

    >>> str(BotError("cooldown", retry_after=3))
    'cooldown: retry_after=3'
    """


def coded_message(error: CodedError, locale: object = None) -> tuple[str, bool]:
    """A refusal from any layer as ``(sentence, expected)``: one catalog key per code."""
    if error.internal:
        return t("error.internal", locale), False
    key = f"error.{error.code}"
    if not has_message(key, locale):
        # A code without a sentence is a gap in the catalog (a test guards against it); an
        # engine refusal still means "not allowed", anything else is our fault.
        if isinstance(error, EngineError):
            return t("error.illegal_action", locale), True
        return t("error.internal", locale), False
    params: dict[str, object] = {"option": "amount", **error.params}
    for name, value in params.items():
        if name in AMOUNT_PARAMS and isinstance(value, int) and not isinstance(value, bool):
            params[name] = number(value, locale)
        elif name in NAME_PARAMS and isinstance(value, str):
            params[name] = option_label(value, locale)
        elif name == "game" and isinstance(value, str) and has_message(f"game.{value}", locale):
            params[name] = t(f"game.{value}", locale)
        elif name == "permissions" and isinstance(value, list | tuple):
            params[name] = permission_list([str(v) for v in value], locale)
    return t(key, locale, **params), True


def locale_of(interaction: discord.Interaction[Any]) -> object:
    """The user's Discord locale, else the server's: what the reply should be written in."""
    return interaction.locale or interaction.guild_locale


def permission_list(names: Sequence[str], locale: object = None) -> str:
    """Permissions as Discord's own settings name them in the reader's language."""
    words = [
        t(f"permission.{name}", locale) if has_message(f"permission.{name}", locale)
        else name.replace("_", " ")
        for name in names
    ]
    return t("list.separator", locale).join(words)


def unwrap(error: BaseException) -> BaseException:
    """The error behind discord.py's command-invoke wrapper."""
    while isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    return error


def describe_error(error: BaseException, locale: object = None) -> tuple[str, bool]:
    """``(message for the user, expected)``; unexpected errors also deserve a log traceback."""
    error = unwrap(error)
    if isinstance(error, CodedError):
        return coded_message(error, locale)
    if isinstance(error, app_commands.CommandOnCooldown):
        return t("error.cooldown", locale, retry_after=f"{error.retry_after:.0f}"), True
    if isinstance(error, app_commands.MissingPermissions):
        names = permission_list(error.missing_permissions, locale)
        return t("error.missing_permissions", locale, permissions=names), True
    if isinstance(error, app_commands.BotMissingPermissions):
        names = permission_list(error.missing_permissions, locale)
        return t("error.bot_missing_permissions", locale, permissions=names), True
    if isinstance(error, app_commands.NoPrivateMessage):
        return t("error.guild_only", locale), True
    if isinstance(error, app_commands.TransformerError):
        # discord.py does not say which option failed; the value itself tells the user.
        value = isolate(discord.utils.escape_markdown(str(error.value))[:50])
        return t("error.bad_value", locale, value=value), True
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
