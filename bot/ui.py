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
from typing import Any

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
    runtime_of,
    show_cards,
    show_my_cards,
    straddle,
    vote_runs,
)
from bot.presenter import ButtonSpec
from bot.runtime.table import Extra
from engine.hand import ActionKind, PreAction

# Bounded numbers: an absurd id matches nothing instead of reaching int().
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
_PLAIN = {"fold": ActionKind.FOLD, "check": ActionKind.CHECK, "call": ActionKind.CALL,
          "allin": ActionKind.ALL_IN}
_PRESELECT = {"pre_check_fold": PreAction.CHECK_FOLD, "pre_call_any": PreAction.CALL_ANY}
# Buttons that act on one decision or one hand, and so must say which.
_NEEDS_REF = frozenset(
    {*_PLAIN, *_PRESELECT, "raise", "raise_modal", "show", "run_twice", "run_once", "rabbit"}
)
# The home game's extras behind each button: whether a table plays them is its kind's to say
# (``bot.runtime.table.TableKind``).
_EXTRAS = {"run_twice": Extra.RUN_TWICE, "run_once": Extra.RUN_TWICE,
           "straddle_next": Extra.STRADDLE, "straddle_always": Extra.STRADDLE,
           "rabbit": Extra.RABBIT}


def custom_id(
    table_id: int, action: str, arg: int | None = None, ref: tuple[int, int] | None = None
) -> str:
    text = f"poker:{table_id}:{action}"
    if ref is not None:
        text += f"@{ref[0]}.{ref[1]}"
    return text + (f":{arg}" if arg is not None else "")


class TableButton(GuardedItem, DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """Any button of a table (see the module docstring for the custom id)."""

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
    ) -> TableButton:
        arg = match["arg"]
        ref = None if match["hand"] is None else (int(match["hand"]), int(match["decision"]))
        return cls(int(match["table"]), match["action"], int(arg) if arg is not None else None,
                   ref)

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        runner = runtime_of(interaction).live_table(self.table_id)
        if runner.guild_id != interaction.guild_id:
            raise BotError("table_closed")  # a forged id naming another server's table
        runner.remember(interaction.user.id, interaction.user.display_name)
        action, ref = self.action, self.ref
        if action in _NEEDS_REF and ref is None:
            raise BotError("stale_message")  # a button from before buttons named their decision
        if action in _PLAIN:
            await play(interaction, runner, _PLAIN[action], ref=ref, pressed=True)
        elif action == "raise" and self.arg is not None:
            await play(interaction, runner, ActionKind.RAISE, self.arg, ref=ref, pressed=True)
        elif action == "raise_modal":
            await self._open_raise_form(interaction, ref)
        elif action in _PRESELECT:
            await preselect(interaction, runner, _PRESELECT[action], ref)
        elif action == "cards":
            await show_my_cards(interaction, runner)
        elif action == "back":
            await back_in(interaction, runner)
        elif action == "show":
            await show_cards(interaction, runner, ref)
        elif action in _EXTRAS:
            # A table whose kind does not play it never draws the button: a forged or
            # misdirected press is refused with the kind's reason.
            runner.kind.require(_EXTRAS[action])
            if action in ("run_twice", "run_once"):
                await vote_runs(interaction, runner, action == "run_twice", ref)
            elif action == "rabbit":
                await hunt_rabbit(interaction, runner, ref)
            else:
                await straddle(interaction, runtime_of(interaction).table(self.table_id),
                               always=action == "straddle_always")
        else:
            raise BotError("command_outdated")

    async def _open_raise_form(
        self, interaction: discord.Interaction[Any], ref: tuple[int, int] | None
    ) -> None:
        # Refuse before opening the form when the user could not raise anyway.
        runner = runtime_of(interaction).live_table(self.table_id)
        hand = runner.hand
        legal = hand.legal() if hand is not None else None
        if legal is None or runner.player_of(legal.player) != interaction.user.id:
            raise BotError("not_your_turn")
        assert ref is not None
        await interaction.response.send_modal(
            RaiseModal(
                self.table_id,
                interaction.user.id,
                legal.min_raise_to,
                legal.max_raise_to,
                locale_of(interaction),
                ref,
            )
        )


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
        runner = runtime_of(interaction).live_table(self.table_id)
        await play(
            interaction, runner, ActionKind.RAISE, self.amount.value, ref=self.ref, pressed=True
        )


def build_view(table_id: int, buttons: Sequence[ButtonSpec]) -> discord.ui.View | None:
    """The components for a message's buttons (None when there are none)."""
    if not buttons:
        return None
    view = discord.ui.View(timeout=None)
    for spec in buttons:
        view.add_item(
            TableButton(
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


DYNAMIC_ITEMS: tuple[type[DynamicItem[Any]], ...] = (TableButton,)
