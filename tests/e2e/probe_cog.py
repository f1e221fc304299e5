"""A cog that exists only in tests: the smallest real commands, buttons and modal that prove
the round trip through discord.py and the fake Discord. Never shipped (not under ``cogs/``).
"""

from __future__ import annotations

import io
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from discord.ui.dynamic import DynamicItem
from PIL import Image

from bot.client import PokerBot
from bot.errors import DM_CLOSED, BotError
from bot.guards import GuardedItem, PokerModal
from bot.i18n import t

TABLE_TEMPLATE = r"poker:(?P<table>\d+):(?P<action>[a-z]+)"
CARD_ALT_TEXT = "Your hole cards: ace of spades, king of hearts"


def card_png() -> bytes:
    image = Image.new("RGB", (64, 40), (20, 110, 60))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def card_file() -> discord.File:
    return discord.File(io.BytesIO(card_png()), filename="cards.png", description=CARD_ALT_TEXT)


class TableButton(GuardedItem, DynamicItem[discord.ui.Button[Any]], template=TABLE_TEMPLATE):
    def __init__(self, table_id: int, action: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=action.title(),
                style=discord.ButtonStyle.secondary,
                custom_id=f"poker:{table_id}:{action}",
            )
        )
        self.table_id = table_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> TableButton:
        return cls(int(match["table"]), match["action"])

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        if self.action == "raise":
            await interaction.response.send_modal(RaiseModal(self.table_id))
        elif self.action == "boom":
            raise RuntimeError("button exploded")
        else:
            await interaction.response.edit_message(
                content=f"table {self.table_id}: {interaction.user.name} pressed {self.action}"
            )


def table_view(table_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in ("fold", "raise", "boom"):
        view.add_item(TableButton(table_id, action))
    return view


class RaiseModal(PokerModal):
    amount: discord.ui.TextInput[RaiseModal] = discord.ui.TextInput(
        label="Raise to", custom_id="amount", max_length=9
    )

    def __init__(self, table_id: int) -> None:
        super().__init__(title="Raise", custom_id=f"raise:{table_id}", timeout=300)
        self.table_id = table_id

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        text = self.amount.value.strip()
        if not text.isdigit() or int(text) <= 0:
            raise BotError("bad_option", option="amount")
        if interaction.message is not None:
            # The table message is long-lived, so it is edited with the bot token.
            await interaction.message.edit(
                content=f"table {self.table_id}: {interaction.user.name} raised to {text}"
            )
        await interaction.response.send_message(f"raised to {text}", ephemeral=True)


class Probe(commands.Cog):
    probe = app_commands.Group(name="probe", description="Test-only probes")

    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot
        self.dm_failures: list[int] = []

    @app_commands.command(name="ping", description="Answer pong, privately")
    async def ping(self, interaction: discord.Interaction[PokerBot]) -> None:
        await interaction.response.send_message("pong", ephemeral=True)

    @probe.command(name="table", description="Post a table message with buttons")
    @app_commands.guild_only()
    async def table(self, interaction: discord.Interaction[PokerBot], table_id: int = 7) -> None:
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        await channel.send(f"table {table_id}", view=table_view(table_id))
        await interaction.response.send_message("table posted", ephemeral=True)

    @probe.command(name="cards", description="DM a card image to a user")
    async def cards(self, interaction: discord.Interaction[PokerBot], user: discord.User) -> None:
        try:
            await user.send("Your cards", file=card_file())
        except discord.Forbidden as error:
            if error.code != DM_CLOSED:
                raise
            self.dm_failures.append(error.code)
            # The design's fallback: show the cards privately here instead.
            await interaction.response.send_message(
                t("error.dm_closed_notice", interaction.locale, user=user.mention),
                file=card_file(),
                ephemeral=True,
            )
            return
        await interaction.response.send_message(f"sent to {user.name}", ephemeral=True)

    @probe.command(name="bet", description="Validate an amount again on the bot side")
    async def bet(
        self, interaction: discord.Interaction[PokerBot], amount: app_commands.Range[int, 1, 1000]
    ) -> None:
        # Discord's client enforces the range; a crafted request does not.
        if not 1 <= amount <= 1000:
            raise BotError("bad_option", option="amount")
        await interaction.response.send_message(f"bet {amount}", ephemeral=True)

    @probe.command(name="boom", description="Fail unexpectedly")
    async def boom(self, interaction: discord.Interaction[PokerBot]) -> None:
        raise RuntimeError("secret internal detail")

    @probe.command(name="refuse", description="Fail with a user-facing error")
    async def refuse(self, interaction: discord.Interaction[PokerBot]) -> None:
        raise BotError("not_allowed")

    @probe.command(name="slow", description="Defer, then answer with a followup")
    async def slow(self, interaction: discord.Interaction[PokerBot]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send("done thinking", ephemeral=True)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(Probe(bot))
