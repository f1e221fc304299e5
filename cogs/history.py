"""``/history``: a table's finished hands, as only what was shown at the table: told with its
hand history file, replayed as an animation, and its shuffle verified; and the recap of a
night again (``bot.runtime.recaps``).

Each reply is private and shows what everybody at the table saw: the board and the hands
shown, never a folded or mucked hand; the asker's own cards come to him alone. The hands are
this channel's table's, cash or tournament; the work is in ``bot.runtime.history``.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import discord
from discord import app_commands
from discord.ext import commands

from bot.amounts import read_count
from bot.client import PokerBot
from bot.errors import locale_of
from bot.i18n import t
from bot.interact import command_text, defer, guild_id_of, live_here, reply, runtime_of
from bot.replay import replay_image
from bot.runtime.cash import CashTable
from bot.runtime.history import history_of, replay_of, stored_hand, verification
from bot.runtime.kinds import Extra
from bot.runtime.messenger import split_text
from bot.runtime.recaps import recap_for
from bot.runtime.rendering import render
from engine.commitment import Opening

Interaction = discord.Interaction[PokerBot]


class History(commands.Cog):
    history = app_commands.Group(
        name="history", description=command_text("command.history"), guild_only=True
    )

    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @history.command(name="hand", description=command_text("command.history.hand"))
    @app_commands.describe(hand=command_text("option.hand"))
    async def hand(
        self, interaction: Interaction, hand: app_commands.Range[int, 1] | None = None
    ) -> None:
        table = live_here(interaction)
        number = None if hand is None else read_count(hand, "hand", 1, 2**53)
        await defer(interaction)
        found = await history_of(table, number, locale_of(interaction))
        file = discord.File(io.BytesIO(found.phh.encode()), filename=f"hand-{found.hand_no}.phh")
        await reply(interaction, found.text, file=file)

    @history.command(name="verify", description=command_text("command.history.verify"))
    @app_commands.describe(hand=command_text("option.hand"))
    async def verify(self, interaction: Interaction, hand: app_commands.Range[int, 1]) -> None:
        table = live_here(interaction)
        number = read_count(hand, "hand", 1, 2**53)
        await defer(interaction)
        found = verification(
            await stored_hand(table.db, table.table_id, number), interaction.user.id
        )
        loc = locale_of(interaction)
        if not found.matches:
            await reply(interaction, t("reply.verify_failed", loc, hand=found.hand_no,
                                       digest=found.root))
            return
        # The proofs as a file anyone can check (docs/verify.md): the cards everybody saw, and
        # the asking player's own cards in a file only he receives.
        files = [_openings_file(f"hand-{found.hand_no}-proofs.txt", found.root, found.public)]
        if found.own:
            files.append(
                _openings_file(f"hand-{found.hand_no}-my-cards.txt", found.root, found.own)
            )
        text = t(
            "reply.verify_ok",
            loc,
            hand=found.hand_no,
            root=found.root,
            opened=len(found.public),
        )
        if found.own:
            text += "\n" + t("reply.verify_own", loc)
        await reply(interaction, text, files=files)

    @history.command(name="replay", description=command_text("command.history.replay"))
    @app_commands.describe(hand=command_text("option.hand"))
    @app_commands.checks.cooldown(5, 60.0)
    async def replay(
        self, interaction: Interaction, hand: app_commands.Range[int, 1] | None = None
    ) -> None:
        """A finished hand of this table as an animated image, street by street, with the hand
        in words: the image's alt text, and in full in the message.

        Private, as ``/history hand`` is, and it shows what that shows: the cards that were
        shown, never a folded or mucked hand (``bot.replay``). Drawing a replay keeps the
        render thread every table shares busy for a moment: a member may ask for a few in a
        row (five a minute), not keep it busy.
        """
        table = live_here(interaction)
        number = None if hand is None else read_count(hand, "hand", 1, 2**53)
        await defer(interaction)
        loc = locale_of(interaction)
        played = await replay_of(table, guild_id_of(interaction), number, loc)
        told, image = await render(replay_image, played, loc)
        file = discord.File(
            io.BytesIO(image.data), filename=image.filename, description=image.alt_text
        )
        first, *rest = split_text(told.text)
        await reply(interaction, first, file=file)
        for piece in rest:
            await reply(interaction, piece)

    @history.command(name="recap", description=command_text("command.history.recap"))
    @app_commands.describe(session=command_text("option.recap_session"))
    @app_commands.checks.cooldown(3, 60.0)
    async def recap(
        self, interaction: Interaction, session: app_commands.Range[int, 1] | None = None
    ) -> None:
        """The recap of a session or tournament again, privately: ``session`` (the number the
        recap gives), or the last one played in this channel.

        Its players may see it from any channel of the server, whatever the host chose: it is
        their night. Anybody else sees it only where it was posted for everybody (so a host
        who turned recaps off keeps them among the players). A practice table has none: play
        chips. Each one draws a replay on the render thread every table shares: three a
        minute.
        """
        guild_id = guild_id_of(interaction)
        number = None if session is None else read_count(session, "session", 1, 2**53)
        runtime = runtime_of(interaction)
        here = runtime.registry.venue_in(interaction.channel_id)
        practice = isinstance(here, CashTable) and not here.kind.allows(Extra.LEDGER)
        await defer(interaction)
        loc = locale_of(interaction)
        found = await recap_for(
            runtime.db, guild_id=guild_id, channel_id=interaction.channel_id or 0,
            user_id=interaction.user.id, session=number, practice_here=practice, locale=loc,
        )
        first, *rest = [piece for piece in split_text(found.text) if piece.strip()]
        await reply(interaction, first, files=found.files())
        for piece in rest:
            await reply(interaction, piece)


def _openings_file(name: str, root: str, openings: Sequence[Opening]) -> discord.File:
    lines = [f"root {root}", *(opening.to_text() for opening in openings)]
    return discord.File(io.BytesIO(("\n".join(lines) + "\n").encode()), filename=name)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(History(bot))
