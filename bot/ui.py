"""Buttons and the raise modal: Discord components over the same calls as the slash commands.

Every button of a table is one persistent ``DynamicItem`` whose custom id names the table, the
action and, for the quick raises, the raise-to amount: ``poker:<table>:<action>[:<amount>]``.
discord.py routes a press by that pattern, so buttons keep working on messages posted before a
restart. Action buttons act only from the table's current message: an old message (a previous
hand, or one replaced by ``/poker table``) may show choices that no longer apply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import discord
from discord.ui.dynamic import DynamicItem

from bot.client import GuardedItem, PokerModal
from bot.errors import BotError, locale_of
from bot.i18n import t
from bot.interact import back_in, play, preselect, runtime_of, show_cards, show_my_cards
from bot.presenter import ButtonSpec
from engine.hand import ActionKind, PreAction

TEMPLATE = r"poker:(?P<table>\d+):(?P<action>[a-z_]+)(?::(?P<arg>\d+))?"

_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}
_PLAIN = {"fold": ActionKind.FOLD, "check": ActionKind.CHECK, "call": ActionKind.CALL,
          "allin": ActionKind.ALL_IN}
_PRESELECT = {"pre_check_fold": PreAction.CHECK_FOLD, "pre_call_any": PreAction.CALL_ANY}
# Buttons that only make sense on the table's current message.
_ON_CURRENT_MESSAGE = frozenset({*_PLAIN, *_PRESELECT, "raise", "raise_modal"})


def custom_id(table_id: int, action: str, arg: int | None = None) -> str:
    return f"poker:{table_id}:{action}" + (f":{arg}" if arg is not None else "")


class TableButton(GuardedItem, DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """Any button of a table (see the module docstring for the custom id)."""

    def __init__(
        self,
        table_id: int,
        action: str,
        arg: int | None = None,
        *,
        label: str | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or action,
                style=style,
                custom_id=custom_id(table_id, action, arg),
                row=row,
            )
        )
        self.table_id = table_id
        self.action = action
        self.arg = arg

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> TableButton:
        arg = match["arg"]
        return cls(int(match["table"]), match["action"], int(arg) if arg is not None else None)

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        runner = runtime_of(interaction).table(self.table_id)
        runner.remember(interaction.user.id, interaction.user.display_name)
        action = self.action
        message = interaction.message
        if (
            action in _ON_CURRENT_MESSAGE
            and message is not None
            and not runner.is_current_message(message.id)
        ):
            raise BotError("stale_message")
        if action in _PLAIN:
            await play(interaction, runner, _PLAIN[action])
        elif action == "raise" and self.arg is not None:
            await play(interaction, runner, ActionKind.RAISE, self.arg)
        elif action == "raise_modal":
            # Refuse before opening the form when the user could not raise anyway.
            hand = runner.hand
            legal = hand.legal() if hand is not None else None
            if legal is None or runner.player_of(legal.player) != interaction.user.id:
                raise BotError("not_your_turn")
            await interaction.response.send_modal(
                RaiseModal(
                    self.table_id,
                    interaction.user.id,
                    legal.min_raise_to,
                    legal.max_raise_to,
                    locale_of(interaction),
                )
            )
        elif action in _PRESELECT:
            await preselect(interaction, runner, _PRESELECT[action])
        elif action == "cards":
            await show_my_cards(interaction, runner)
        elif action == "back":
            await back_in(interaction, runner)
        elif action == "show":
            await show_cards(interaction, runner)
        else:
            raise BotError("command_outdated")


class RaiseModal(PokerModal):
    """Any raise-to amount, typed: checked like ``/raise to``."""

    amount: discord.ui.TextInput[RaiseModal]

    def __init__(
        self, table_id: int, user_id: int, minimum: int, maximum: int, locale: object
    ) -> None:
        # discord.py keeps one open modal per custom id: one per player, not per table.
        super().__init__(
            title=t("modal.raise.title", locale)[:45],
            custom_id=f"raise:{table_id}:{user_id}",
            timeout=600,
        )
        self.table_id = table_id
        self.amount = discord.ui.TextInput(
            label=t("modal.raise.label", locale)[:45],
            placeholder=t("modal.raise.placeholder", locale, minimum=minimum, maximum=maximum)[
                :100
            ],
            custom_id="amount",
            max_length=16,
        )
        self.add_item(self.amount)

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        runner = runtime_of(interaction).table(self.table_id)
        await play(interaction, runner, ActionKind.RAISE, self.amount.value)


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
                label=spec.label[:80],
                style=_STYLES.get(spec.style, discord.ButtonStyle.secondary),
                row=spec.row,
            )
        )
    return view


DYNAMIC_ITEMS: tuple[type[DynamicItem[Any]], ...] = (TableButton,)
