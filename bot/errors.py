"""User-facing errors, and the one function that turns any error into an ephemeral reply.

Also what counts as Discord's fault rather than a refusal or the bot's own
(:func:`is_discord_fault`: a 5xx, a connection refused or reset, a timeout), how often what it
failed is tried again (:func:`retry_delay`), and the answer to an interaction that survives
such faults (:func:`answer`), which every reply goes through.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Sequence
from typing import Any

import aiohttp
import discord
from discord import app_commands

from engine.errors import CodedError, EngineError

from .i18n import has_message, isolate, number, option_label, t
from .logs import Throttle, cause_of
from .metrics import NO_METRICS, Metrics

log = logging.getLogger(__name__)

DM_CLOSED = 50007
# Discord's codes the bot acts on. An interaction not answered within its first 3 s is gone;
# one answered already refuses a second answer (a lost answer that went through); a message
# older than an hour takes only so many edits.
UNKNOWN_INTERACTION = 10062
ALREADY_ACKNOWLEDGED = 40060
EDITS_EXHAUSTED = 30046
# Discord takes an interaction's first answer this long after it arrived (a little less: the
# answer travels too), and follow-ups on its token for 15 minutes.
ANSWER_WINDOW = 2.8
TOKEN_LIFE = 15 * 60.0 - 30.0
# What Discord failed is tried again after RETRY_FIRST seconds, then twice as long each time
# up to RETRY_CAP (read at each retry: tests shorten them).
RETRY_FIRST = 0.5
RETRY_CAP = 15.0
# The extra an interaction carries once Discord said it was answered (40060) although
# discord.py never saw the answer come back.
ANSWERED = "poker_answered"
# Refusal parameters that are chip amounts: written as the reader's locale writes numbers.
AMOUNT_PARAMS = frozenset({"amount", "maximum", "minimum", "to_call", "chip_unit", "balance",
                           "stack", "circulation", "room", "bounty", "price", "total",
                           "expected"})
# Parameters that name an option or a setting: shown in the reader's words, not as identifiers.
NAME_PARAMS = frozenset({"option", "name", "field", "needs"})


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
    if isinstance(error, asyncio.TimeoutError):
        return t("error.timeout", locale), False
    if isinstance(error, discord.HTTPException) or is_discord_fault(error):
        return t("error.discord_unavailable", locale), False
    return t("error.internal", locale), False


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Tell the user what went wrong, ephemerally, in his language; never raise.

    Unexpected errors are logged with their traceback; a fault of Discord's is a WARNING with
    its cause. The user only ever sees a sentence.
    """
    message, expected = describe_error(error, locale_of(interaction))
    original = unwrap(error)
    if expected:
        log.debug("refused interaction %s: %r", interaction.id, original)
    elif is_discord_fault(original):
        _faults.log(log, "interaction %s: Discord failed a request (%s)", interaction.id,
                    cause_of(original))
    else:
        log.error(
            "error in interaction %s (user %s, command %s)",
            interaction.id,
            interaction.user.id if interaction.user else None,
            interaction.command.qualified_name if interaction.command else None,
            exc_info=original,
        )
    try:
        await answer(interaction, message, ephemeral=True)
    except discord.HTTPException as send_error:
        # The token may have expired or the channel vanished; there is nobody left to tell.
        log.warning("could not report an error for interaction %s: %s", interaction.id,
                    cause_of(send_error))
    except Exception:
        log.exception("could not report an error for interaction %s", interaction.id)


# -- Discord's faults ------------------------------------------------------------------------

# Answers Discord failed, the same while it is away: one WARNING a minute.
_faults = Throttle()


def is_discord_fault(error: BaseException) -> bool:
    """Whether ``error`` is Discord's or the network's, so that the same request may succeed
    when tried again: a 5xx answer (discord.py retries 500, 502 and 504 a few times, not
    503), a 429 discord.py did not wait out, a connection refused or reset, a timeout. A
    refusal (403, 404, a 400 with its code) is not one, nor is a fault of the bot's.

    >>> is_discord_fault(ConnectionResetError()), is_discord_fault(ValueError())
    (True, False)
    """
    if isinstance(error, discord.RateLimited):
        return True
    if isinstance(error, discord.HTTPException):
        return error.status >= 500 or error.status == 429
    return isinstance(error, aiohttp.ClientError | ConnectionError | TimeoutError)


def retry_after_of(error: BaseException) -> float | None:
    """How long Discord said to wait before trying again, if it said."""
    if isinstance(error, discord.RateLimited):
        return float(error.retry_after)
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    raw = headers.get("Retry-After") if headers is not None else None
    try:
        return max(0.0, float(raw)) if raw is not None else None
    except ValueError:
        return None


def retry_delay(failures: int, retry_after: float | None = None) -> float:
    """Seconds to wait before trying again what Discord failed ``failures`` times in a row:
    doubling from ``RETRY_FIRST`` up to ``RETRY_CAP``, spread by a fifth either way so that a
    thousand tables owed at once do not all try in the same instant, and never sooner than
    Discord's own ``retry_after``."""
    base = min(RETRY_CAP, RETRY_FIRST * 2.0 ** max(0, failures - 1))
    return max(base * random.uniform(0.8, 1.2), retry_after or 0.0)


def answered(interaction: discord.Interaction[Any]) -> bool:
    """The interaction was answered: what the user is sent next is a follow-up."""
    return interaction.response.is_done() or bool(interaction.extras.get(ANSWERED))


async def answer(
    interaction: discord.Interaction[Any],
    content: str,
    *,
    arrived: float | None = None,
    **kwargs: Any,
) -> bool:
    """Send ``content`` to the user of ``interaction``: as its answer, or as a follow-up once
    it was answered (``kwargs`` as discord.py takes them). A fault of Discord's is tried again
    while Discord still takes it: the answer within its first seconds from ``arrived`` (when it
    reached the bot, monotonic; else now), a follow-up while the token lives. Discord saying it
    was answered already (a lost answer went through, or the table's update answered it)
    counts as answered. True if the user got it; False when he cannot any more (logged,
    counted). A refusal other than a fault raises, as before."""
    metrics: Metrics = getattr(interaction.client, "metrics", NO_METRICS)
    since = time.monotonic() if arrived is None else arrived
    failures = 0
    while True:
        late = answered(interaction)
        try:
            if late:
                await interaction.followup.send(content, **kwargs)
            else:
                await interaction.response.send_message(content, **kwargs)
        except discord.HTTPException as exc:
            if exc.code == ALREADY_ACKNOWLEDGED and not late:
                interaction.extras[ANSWERED] = True
                metrics.answer_fault("acknowledged")
                return True
            if exc.code == UNKNOWN_INTERACTION or (late and exc.status in (401, 404)):
                # Its time is over: nothing can be sent on it any more.
                _gave_up(interaction, exc, metrics, failures)
                return False
            if not is_discord_fault(exc):
                raise
            fault: BaseException = exc
        except Exception as exc:
            if not is_discord_fault(exc):
                raise
            fault = exc
        else:
            if failures:
                metrics.answer_fault("retried")
            return True
        failures += 1
        wait = retry_delay(failures, retry_after_of(fault))
        if time.monotonic() + wait > since + (TOKEN_LIFE if late else ANSWER_WINDOW):
            _gave_up(interaction, fault, metrics, failures)
            return False
        log.debug("interaction %s: answer failed (%s); again in %.1fs", interaction.id,
                  cause_of(fault), wait)
        _rewind(kwargs)
        await asyncio.sleep(wait)


def _gave_up(interaction: discord.Interaction[Any], error: BaseException, metrics: Metrics,
             failures: int) -> None:
    metrics.answer_fault("gave_up")
    if failures:
        _faults.log(log, "interaction %s: not answered, Discord failed it %d time(s) (%s)",
                    interaction.id, failures, cause_of(error))
    else:
        log.info("interaction %s: too late to answer (%s)", interaction.id, cause_of(error))


def _rewind(kwargs: dict[str, Any]) -> None:
    """Files read by a try are read again from their start by the next."""
    for each in [kwargs.get("file"), *(kwargs.get("files") or ())]:
        if isinstance(each, discord.File):
            each.reset()
