"""What every interaction passes through before the bot acts on it: the lateness gate, one error
handler, and the mark that it was taken in hand.

Discord gives 3 s to answer; an interaction that reached us later than ``LATE_AFTER_SECONDS`` is
dropped unanswered (Discord would refuse the answer anyway), and so is one from a server whose
tables another process runs. Every handler — a slash command
(:class:`PokerTree`), a persistent button (:class:`GuardedItem`) or a modal — turns any
error into the same ephemeral sentence (``bot.errors.report_error``) and marks the interaction
*claimed*; the client answers an interaction nobody claimed (a forged or outdated button, a form
from before a restart) with "out of date" instead of leaving the user with "interaction failed".
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from bot.errors import report_error
from bot.metrics import NO_METRICS

log = logging.getLogger(__name__)

LATE_AFTER_SECONDS = 2.5
CLAIMED = "poker_claimed"
ARRIVED = "poker_arrived"  # when the interaction reached its handler (monotonic seconds)


class InteractionClock:
    """Tells how late an interaction reached us, immune to a wrong or jumping wall clock.

    An interaction id is a snowflake stamped with Discord's clock when the user acted. Comparing
    it with our wall clock would drop everything on a host whose clock is a few seconds off, so
    each id is compared with the monotonic clock instead: ``discord_time - monotonic`` is a
    constant minus the delivery delay, and the largest value seen recently stands for the
    fastest delivery. How far an interaction falls below it is how late it is. The first
    interactions after start-up therefore never count as late.
    """

    def __init__(
        self,
        limit: float = LATE_AFTER_SECONDS,
        *,
        window: int = 256,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self._offsets: deque[float] = deque(maxlen=window)
        self._monotonic = monotonic

    def lateness(self, interaction_id: int) -> float:
        created = discord.utils.snowflake_time(interaction_id).timestamp()
        offset = created - self._monotonic()
        self._offsets.append(offset)
        return max(self._offsets) - offset

    def is_late(self, interaction_id: int) -> bool:
        return self.lateness(interaction_id) > self.limit


def claim(interaction: discord.Interaction[Any]) -> None:
    """This interaction is being handled (answered, or dropped on purpose)."""
    interaction.extras[CLAIMED] = True


def is_claimed(interaction: discord.Interaction[Any]) -> bool:
    return bool(interaction.extras.get(CLAIMED))


async def admit(interaction: discord.Interaction[Any]) -> bool:
    """Claim the interaction; False when this process must not answer it: too late (logged),
    or from a server another process runs (``bot.runtime.ownership``; that process answers)."""
    claim(interaction)
    arrived = interaction.extras.setdefault(ARRIVED, time.monotonic())
    metrics = getattr(interaction.client, "metrics", NO_METRICS)
    clock = getattr(interaction.client, "interaction_clock", None)
    # Measured on arrival: asking the database about the lease must not make it look late.
    lateness = clock.lateness(interaction.id) if isinstance(clock, InteractionClock) else 0.0
    runtime = getattr(interaction.client, "runtime", None)
    serves = getattr(runtime, "serves", None)
    if serves is not None and not await serves(interaction.guild_id):
        return False
    if not isinstance(clock, InteractionClock) or lateness <= clock.limit:
        metrics.interaction_admitted(interaction.id, interaction.guild_id, arrived)
        return True
    log.warning(
        "dropping interaction %s from user %s: %.2fs late",
        interaction.id,
        interaction.user.id,
        lateness,
    )
    metrics.interaction_dropped(interaction.guild_id)
    return False


class PokerTree(app_commands.CommandTree[Any]):
    """The command tree: one error handler for every command, and a lateness gate."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return await admit(interaction)

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError, /
    ) -> None:
        claim(interaction)
        await report_error(interaction, error)


class GuardedItem:
    """Mixin for persistent buttons: ``class Fold(GuardedItem, DynamicItem[Button], template=...)``.

    discord.py only logs exceptions from a dynamic item's callback; this routes them to the same
    ephemeral reply as commands, and drops late presses. Subclasses implement ``handle``.
    """

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return await admit(interaction)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await self.handle(interaction)
        except Exception as error:
            await report_error(interaction, error)

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        raise NotImplementedError


class PokerModal(discord.ui.Modal):
    """A modal whose errors become an ephemeral reply and whose late submits are dropped."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return await admit(interaction)

    # discord.py's Modal itself narrows View.on_error to this signature.
    async def on_error(  # type: ignore[override]
        self, interaction: discord.Interaction[Any], error: Exception, /
    ) -> None:
        await report_error(interaction, error)
