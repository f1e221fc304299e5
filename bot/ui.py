"""Buttons and the raise modal: Discord components over the same calls as the slash commands.

Every button of a table is one persistent ``DynamicItem`` whose custom id names the table, the
action, the hand and decision it was drawn for, and for the quick raises the raise-to amount:
``poker:<table>:<action>[@<hand>.<decision>][:<amount>]``. discord.py routes a press by that
pattern, so buttons keep working on messages posted before a restart; the decision in the id
makes a press count only for the decision it was drawn for (a double click acts once, a stale
message acts on nothing). Ids that match nothing are answered by the client as out of date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar, Self

import discord
from discord.ui.dynamic import DynamicItem

from bot.errors import BotError, locale_of
from bot.guards import GuardedItem, PokerModal
from bot.i18n import number, t
from bot.interact import (
    back_in,
    hunt_rabbit,
    play,
    preselect,
    reply,
    runtime_of,
    show_cards,
    show_my_cards,
    straddle,
    vote_runs,
)
from bot.presenter import ButtonSpec, deal_buttons, deal_figures_text
from bot.runtime.kinds import Extra
from bot.runtime.table import LiveTable
from bot.runtime.tourney import LiveTournament
from engine.hand import ActionKind, PreAction

# The custom id of every table button; each kind of button matches its own actions. Bounded
# numbers: an absurd id matches nothing instead of reaching int().
TEMPLATE = (
    r"poker:(?P<table>\d{1,19}):(?P<action>[a-z_]{1,20})"
    r"(?:@(?P<hand>\d{1,19})\.(?P<decision>\d{1,6}))?(?::(?P<arg>\d{1,19}))?"
)
MODAL_ID = "raise:{table}:{user}:{hand}.{decision}"

_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}
_DECISIONS = {"fold": ActionKind.FOLD, "check": ActionKind.CHECK, "call": ActionKind.CALL,
              "allin": ActionKind.ALL_IN, "raise": ActionKind.RAISE}
_PRESELECTIONS = {"pre_check_fold": PreAction.CHECK_FOLD, "pre_call_any": PreAction.CALL_ANY}


def _template(*actions: str) -> str:
    """The custom ids of the buttons of ``actions`` (each kind of button matches only its
    own: discord.py runs every class whose template matches a press)."""
    return TEMPLATE.replace("[a-z_]{1,20}", "|".join(actions))


def custom_id(
    table_id: int, action: str, arg: int | None = None, ref: tuple[int, int] | None = None
) -> str:
    text = f"poker:{table_id}:{action}"
    if ref is not None:
        text += f"@{ref[0]}.{ref[1]}"
    return text + (f":{arg}" if arg is not None else "")


class _TableItem(GuardedItem, DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """What every table button does before its own job: find its table (of the server it was
    pressed in), remember the presser's name, and insist on the decision or hand a button of
    its kind was drawn for (``needs_ref``: a button from before buttons named it is stale).

    Each kind of button is a subclass declaring its ``actions``: its template matches those
    alone, and only the subclasses are registered."""

    actions: ClassVar[tuple[str, ...]] = ()
    needs_ref: ClassVar[bool] = True

    def __init_subclass__(cls, *, actions: tuple[str, ...], **kwargs: Any) -> None:
        super().__init_subclass__(template=_template(*actions), **kwargs)
        cls.actions = actions

    def __init__(
        self,
        table_id: int,
        action: str,
        arg: int | None = None,
        ref: tuple[int, int] | None = None,
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or action,
                style=style,
                custom_id=custom_id(table_id, action, arg, ref),
                row=row,
            )
        )
        self.table_id = table_id
        self.action = action
        self.arg = arg
        self.ref = ref

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        arg = match["arg"]
        ref = None if match["hand"] is None else (int(match["hand"]), int(match["decision"]))
        return cls(int(match["table"]), match["action"], int(arg) if arg is not None else None,
                   ref)

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        table = runtime_of(interaction).registry.table(self.table_id)
        if table.guild_id != interaction.guild_id:
            raise BotError("table_closed")  # a forged id naming another server's table
        table.remember(interaction.user.id, interaction.user.display_name)
        if self.needs_ref and self.ref is None:
            raise BotError("stale_message")
        await self.press(interaction, table)

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        raise NotImplementedError


class DecisionButton(_TableItem, actions=tuple(_DECISIONS)):
    """Fold, check, call, all-in, or a quick raise to the amount the button carries."""

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        kind = _DECISIONS[self.action]
        if kind is ActionKind.RAISE and self.arg is None:
            raise BotError("command_outdated")
        await play(interaction, table, kind, self.arg, ref=self.ref, pressed=True)


class RaiseFormButton(_TableItem, actions=("raise_modal",)):
    """Opens the raise form, where any raise-to amount is typed."""

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        # Refused before the form opens, by the refusal its submission would meet.
        legal = table.check_raise_form(interaction.user.id, self.ref)
        assert self.ref is not None
        await interaction.response.send_modal(
            RaiseModal(self.table_id, interaction.user.id, legal.min_raise_to,
                       legal.max_raise_to, locale_of(interaction), self.ref)
        )


class PreselectButton(_TableItem, actions=tuple(_PRESELECTIONS)):
    """Check/fold or call any, chosen before the player's turn (pressed again: cancelled)."""

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        await preselect(interaction, table, _PRESELECTIONS[self.action], self.ref)


class RunVoteButton(_TableItem, actions=("run_twice", "run_once")):
    """An all-in player's answer to "run it twice?"."""

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        await vote_runs(interaction, table, self.action == "run_twice", self.ref)


class ShowButton(_TableItem, actions=("show",)):
    """The uncontested winner turns his cards up."""

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        await show_cards(interaction, table, self.ref)


class RabbitButton(_TableItem, actions=("rabbit",)):
    """The board that would have come, shown once."""

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        await hunt_rabbit(interaction, table, self.ref)


class CardsButton(_TableItem, actions=("cards",)):
    """The presser's own hole cards, privately."""

    needs_ref = False

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        await show_my_cards(interaction, table)


class BackButton(_TableItem, actions=("back",)):
    """A player who is away comes back."""

    needs_ref = False

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        await back_in(interaction, table)


class StraddleButton(_TableItem, actions=("straddle_next", "straddle_always")):
    """Ask (or stop asking) to straddle the next hand, or every hand."""

    needs_ref = False

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        # A table whose kind does not play it never draws the button: a forged or
        # misdirected press is refused with the kind's reason.
        cash = runtime_of(interaction).registry.cash_table(self.table_id, needs=Extra.STRADDLE)
        await straddle(interaction, cash, always=self.action == "straddle_always")


class DealButton(_TableItem, actions=("deal_show", "deal_accept", "deal_reject")):
    """A deal at a final table: a player's own view of the figures, then his answer. The
    offer's number rides in the id: a press on an older offer's buttons acts on nothing."""

    needs_ref = False

    async def press(self, interaction: discord.Interaction[Any], table: LiveTable[Any]) -> None:
        tournament = getattr(table, "tournament", None)
        if not isinstance(tournament, LiveTournament) or self.arg is None:
            raise BotError("no_deal_vote")
        user_id = interaction.user.id
        loc = locale_of(interaction)
        if self.action == "deal_show":
            offer = tournament.deals.offer
            if offer is None or offer.number != self.arg:
                raise BotError("no_deal_vote")
            if user_id not in offer.prizes:
                raise BotError("not_in_deal")
            accepted = tournament.deals.accepted()
            text = deal_figures_text(offer.kind, offer.stacks, offer.prizes, accepted, loc)
            answers = () if user_id in accepted else deal_buttons(offer.number, loc, show=False)
            await reply(interaction, text[:2000], view=build_view(self.table_id, answers))
            return
        accept = self.action == "deal_accept"
        made = await tournament.answer_deal(user_id, self.arg, accept)
        if not accept:
            key = "reply.deal_rejected"
        else:
            key = "reply.deal_made" if made else "reply.deal_accepted"
        await reply(interaction, t(key, loc))


class RaiseModal(PokerModal):
    """Any raise-to amount, typed: read like ``/raise to`` and bound to the decision it was
    opened for."""

    amount: discord.ui.TextInput[RaiseModal]

    def __init__(
        self,
        table_id: int,
        user_id: int,
        minimum: int,
        maximum: int,
        locale: object,
        ref: tuple[int, int],
    ) -> None:
        # discord.py keeps one open modal per custom id: one per player and decision.
        super().__init__(
            title=t("modal.raise.title", locale)[:45],
            custom_id=MODAL_ID.format(table=table_id, user=user_id, hand=ref[0], decision=ref[1]),
            timeout=600,
        )
        self.table_id = table_id
        self.user_id = user_id
        self.ref = ref
        self.amount = discord.ui.TextInput(
            label=t("modal.raise.label", locale)[:45],
            placeholder=t(
                "modal.raise.placeholder",
                locale,
                minimum=number(minimum, locale),
                maximum=number(maximum, locale),
            )[:100],
            custom_id="amount",
            max_length=24,
        )
        self.add_item(self.amount)

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        if interaction.user.id != self.user_id:
            raise BotError("not_your_turn")
        table = runtime_of(interaction).registry.table(self.table_id)
        await play(
            interaction, table, ActionKind.RAISE, self.amount.value, ref=self.ref, pressed=True
        )


class TournamentOfferButton(_TableItem, actions=("t_rebuy", "t_decline", "t_add_on")):
    """A tournament's offer sent by DM: rebuy (the ``arg`` is the rebuys he had when offered,
    so a second press of one offer buys nothing), decline it, or take the add-on. The id names
    the tournament; the presser acts for himself only."""

    needs_ref = False

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        runtime = runtime_of(interaction)
        tournament = next((v for v in runtime.registry.tournaments()
                           if v.tournament_id == self.table_id), None)
        if tournament is None:
            raise BotError("tournament_over")
        user = interaction.user.id
        loc = locale_of(interaction)
        if self.action == "t_rebuy":
            await tournament.rebuy(user, self.arg if self.arg is not None else -1)
            text = t("reply.tournament_rebought_dm", loc)
        elif self.action == "t_decline":
            await tournament.decline_rebuy(user)
            text = t("reply.tournament_declined", loc)
        else:
            await tournament.add_on(user)
            text = t("reply.tournament_added_on_dm", loc)
        await reply(interaction, text)


def build_view(table_id: int, buttons: Sequence[ButtonSpec]) -> discord.ui.View | None:
    """The components for a message's buttons (None when there are none)."""
    if not buttons:
        return None
    view = discord.ui.View(timeout=None)
    for spec in buttons:
        view.add_item(
            _KIND_OF[spec.action](
                table_id,
                spec.action,
                spec.arg,
                spec.ref,
                label=spec.label[:80],
                style=_STYLES.get(spec.style, discord.ButtonStyle.secondary),
                row=spec.row,
            )
        )
    return view


DYNAMIC_ITEMS: tuple[type[_TableItem], ...] = (
    DecisionButton, RaiseFormButton, PreselectButton, RunVoteButton, ShowButton, RabbitButton,
    CardsButton, BackButton, StraddleButton, TournamentOfferButton, DealButton,
)
# The kind of button that carries each action.
_KIND_OF: dict[str, type[_TableItem]] = {
    action: kind for kind in DYNAMIC_ITEMS for action in kind.actions
}
