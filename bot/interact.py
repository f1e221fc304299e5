"""What slash commands and buttons share: finding the table, checking input, replying.

The cogs (``cogs/``) and the persistent buttons (``bot.ui``) are thin adapters over these
functions, so a fold is the same fold whether typed or clicked. Replies are ephemeral and in the
user's language; refusals are raised (any ``CodedError``) and turned into a sentence by the
single error handler. A reply that needs more than a look-up (drawing an image, building a file)
is deferred first, so Discord's 3 s deadline is never at stake.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.amounts import read_optional_chips
from bot.errors import BotError, answer, answered, locale_of
from bot.guards import ARRIVED
from bot.i18n import DEFAULT_LOCALE, t
from bot.invite import missing_in_channel
from bot.presenter import ack_text, hole_cards_view, labels_for
from bot.render import render_hole_cards
from bot.runtime.kinds import Extra
from bot.runtime.manager import GameRuntime
from bot.runtime.messenger import NOBODY, Press, image_file
from bot.runtime.rendering import render
from bot.runtime.table import LiveTable
from engine.bots.ids import LEVELS
from engine.errors import EngineError
from engine.games import GAMES, Game, game_by_code
from engine.hand import ActionKind, PreAction

if TYPE_CHECKING:
    from bot.runtime.cash import CashTable

# How long after a press arrived the table update may still answer it; Discord allows 3 s, and
# the private confirmation needs time to travel too.
ANSWER_WITHIN = 2.0


def command_text(key: str) -> app_commands.locale_str:
    """The words of a command, an option or a choice: English is what Discord shows by
    default; the key lets the client's translator (``bot.client.CatalogTranslator``) give
    Discord the other catalogs' words, so its command picker speaks each user's language."""
    return app_commands.locale_str(t(key, DEFAULT_LOCALE), key=key)


def runtime_of(interaction: discord.Interaction[Any]) -> GameRuntime:
    runtime = getattr(interaction.client, "runtime", None)
    if not isinstance(runtime, GameRuntime):
        raise BotError("not_ready")
    return runtime


def guild_id_of(interaction: discord.Interaction[Any]) -> int:
    if interaction.guild_id is None:
        raise BotError("guild_only")
    return interaction.guild_id


def table_here(
    interaction: discord.Interaction[Any], *, needs: Extra | None = None
) -> CashTable:
    """The cash table of the channel the interaction came from (``needs``: the home-game
    extra the command uses, whose refusal is given where a tournament plays instead)."""
    guild_id_of(interaction)
    table = runtime_of(interaction).registry.cash_table_in(interaction.channel_id, needs=needs)
    table.remember(interaction.user.id, interaction.user.display_name)
    return table


def live_here(interaction: discord.Interaction[Any]) -> LiveTable[Any]:
    """The table played in the channel the interaction came from, cash or tournament."""
    guild_id_of(interaction)
    table = runtime_of(interaction).registry.table_in(interaction.channel_id)
    table.remember(interaction.user.id, interaction.user.display_name)
    return table


def is_admin(interaction: discord.Interaction[Any]) -> bool:
    """Manage Server (or Administrator, which implies it) makes a member a floor for every
    table of the server."""
    return interaction.permissions.manage_guild


def require_host(interaction: discord.Interaction[Any], table: CashTable) -> None:
    if not table.is_host(interaction.user.id, admin=is_admin(interaction)):
        raise BotError("not_host")


def require_channel_access(interaction: discord.Interaction[Any]) -> None:
    """The bot must be able to show a table here: name whatever it lacks."""
    thread = isinstance(interaction.channel, discord.Thread)
    missing = missing_in_channel(interaction.app_permissions, thread=thread)
    if missing:
        # Named in the reader's language when the refusal is written (bot.errors).
        raise BotError("bot_missing_permissions", permissions=tuple(missing))


async def defer(interaction: discord.Interaction[Any]) -> None:
    """Answer "thinking…" now (privately); the reply follows. For work beyond a look-up."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)


async def reply(
    interaction: discord.Interaction[Any],
    content: str,
    *,
    file: discord.File | None = None,
    files: list[discord.File] | None = None,
    view: discord.ui.View | None = None,
    ephemeral: bool = True,
) -> None:
    kwargs: dict[str, Any] = {"ephemeral": ephemeral, "allowed_mentions": NOBODY}
    attached = [*(files or ()), *([file] if file is not None else [])]
    if attached:
        kwargs["files"] = attached
    if view is not None:
        kwargs["view"] = view
    # A fault of Discord's is tried again while the interaction can still be answered.
    await answer(interaction, content, arrived=interaction.extras.get(ARRIVED), **kwargs)


async def play(
    interaction: discord.Interaction[Any],
    table: LiveTable[Any],
    kind: ActionKind,
    amount: object = None,
    *,
    ref: tuple[int, int] | None = None,
    pressed: bool = False,
) -> None:
    """Act for the user, then confirm what was stored: a press of the table message's buttons
    (``pressed``) is answered by the table's own update when it can go out in time, anything
    else privately."""
    chips = read_optional_chips(amount, "amount")
    taken = await table.act(interaction.user.id, kind, chips, ref=ref)
    await confirm(interaction, table, ack_text(taken, locale_of(interaction)), pressed=pressed)
    arrived = interaction.extras.get(ARRIVED)
    if arrived is not None:
        table.metrics.action_answered(table.guild_id, time.monotonic() - arrived)


async def confirm(
    interaction: discord.Interaction[Any], table: LiveTable[Any], text: str, *, pressed: bool
) -> None:
    """Tell the user his input was taken: through the table's own update when he pressed one
    of its buttons and that update goes out in time, else privately with ``text``."""
    press = table.messenger.answer(interaction) if pressed else None
    if press is not None and await _answered_by_table(interaction, press):
        return
    await reply(interaction, text)


async def vote_runs(
    interaction: discord.Interaction[Any],
    table: LiveTable[Any],
    twice: bool,
    ref: tuple[int, int] | None,
) -> None:
    await table.run_vote.answer(interaction.user.id, twice, ref)
    key = "reply.voted_twice" if twice else "reply.voted_once"
    await confirm(interaction, table, t(key, locale_of(interaction)), pressed=True)


async def straddle(
    interaction: discord.Interaction[Any], table: CashTable, *, always: bool
) -> None:
    asking = await table.straddle(interaction.user.id, always=always)
    kind = "always" if always else "next"
    state = "on" if asking else "off"
    await reply(interaction, t(f"reply.straddle_{kind}_{state}", locale_of(interaction)))


async def hunt_rabbit(
    interaction: discord.Interaction[Any],
    table: LiveTable[Any],
    ref: tuple[int, int] | None,
) -> None:
    await table.last_hand.hunt(interaction.user.id, None if ref is None else ref[0])
    await reply(interaction, t("reply.rabbit", locale_of(interaction)))


async def _answered_by_table(interaction: discord.Interaction[Any], press: Press) -> bool:
    """Wait (within Discord's 3 s) for the table update to answer the press; True if it did."""
    arrived = interaction.extras.get(ARRIVED, time.monotonic())
    left = arrived + ANSWER_WITHIN - time.monotonic()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(press.answered.wait(), max(0.0, left))
    if press.take():
        return False  # the update did not start in time: confirm privately
    # The update is going out through this press: let it finish.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(press.answered.wait(), ANSWER_WITHIN)
    return answered(interaction)


async def preselect(
    interaction: discord.Interaction[Any],
    table: LiveTable[Any],
    pre: PreAction,
    ref: tuple[int, int] | None = None,
) -> None:
    hand_number = None if ref is None else ref[0]
    chosen = await table.preselect(interaction.user.id, pre, hand_number=hand_number)
    await reply(interaction, t(f"preselect.{chosen.value}", locale_of(interaction)))


async def show_my_cards(interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
    """The player's hole cards as an image and text, visible to him only."""
    locale = locale_of(interaction)
    cards = table.my_cards(interaction.user.id, locale)  # refuses at once if he has none
    view = hole_cards_view(cards.hand, cards.index, cards.caption, locale)
    await defer(interaction)
    image = await render(render_hole_cards, view, labels_for(locale))
    await reply(interaction, cards.text, file=image_file(image))


async def show_cards(
    interaction: discord.Interaction[Any],
    table: LiveTable[Any],
    ref: tuple[int, int] | None = None,
) -> None:
    hand_number = None if ref is None else ref[0]
    await table.last_hand.show(interaction.user.id, hand_number)
    await reply(interaction, t("reply.shown", locale_of(interaction)))


async def back_in(interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
    await table.sit_in(interaction.user.id)
    await reply(interaction, t("reply.sat_in", locale_of(interaction)))


# The levels of computer players, as /poker practice, /poker bots add and /tournament create
# offer them.
BOT_LEVEL_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.bot_level.{level}"), value=level)
    for level in LEVELS
]


def bot_level_of(value: object) -> str:
    if value not in LEVELS:
        raise BotError("bad_bot_level", level=str(value)[:20])
    return str(value)


# The game picker of /poker create, /poker settings and /tournament create: every game the
# engine deals, named from the catalog (``choice.game.<code>``), Hold'em first as the default.
GAME_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.game.{code}"), value=code) for code in GAMES
]


def game_of(value: object) -> Game:
    """The game a picker's value names (the engine's own look-up); a value no client offers
    is refused, not guessed."""
    try:
        return game_by_code(value)
    except EngineError:
        raise BotError("bad_option", option="game") from None
