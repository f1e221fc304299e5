"""``/fold``, ``/check``, ``/call``, ``/bet``, ``/raise``, ``/allin``: play in the channel's table.

The same path as the buttons under the table message (``bot.interact.play``): the table checks
the turn and the amount, stores the action, and only then is the player told.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import PokerBot
from bot.interact import command_text, live_here, play
from engine.hand import ActionKind

Interaction = discord.Interaction[PokerBot]


class Actions(commands.Cog):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @app_commands.command(name="fold", description=command_text("command.fold"))
    @app_commands.guild_only()
    async def fold(self, interaction: Interaction) -> None:
        await play(interaction, live_here(interaction), ActionKind.FOLD)

    @app_commands.command(name="check", description=command_text("command.check"))
    @app_commands.guild_only()
    async def check(self, interaction: Interaction) -> None:
        await play(interaction, live_here(interaction), ActionKind.CHECK)

    @app_commands.command(name="call", description=command_text("command.call"))
    @app_commands.guild_only()
    async def call(self, interaction: Interaction) -> None:
        await play(interaction, live_here(interaction), ActionKind.CALL)

    @app_commands.command(name="bet", description=command_text("command.bet"))
    @app_commands.describe(amount=command_text("option.bet_amount"))
    @app_commands.guild_only()
    async def bet(self, interaction: Interaction, amount: app_commands.Range[int, 1]) -> None:
        await play(interaction, live_here(interaction), ActionKind.BET, amount)

    @app_commands.command(name="raise", description=command_text("command.raise"))
    @app_commands.describe(to=command_text("option.raise_to"))
    @app_commands.guild_only()
    async def raise_(self, interaction: Interaction, to: app_commands.Range[int, 1]) -> None:
        await play(interaction, live_here(interaction), ActionKind.RAISE, to)

    @app_commands.command(name="allin", description=command_text("command.allin"))
    @app_commands.guild_only()
    async def allin(self, interaction: Interaction) -> None:
        await play(interaction, live_here(interaction), ActionKind.ALL_IN)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(Actions(bot))
