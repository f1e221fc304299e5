"""``/history``: a table's finished hands, as only what was shown at the table: told with its
hand history file (PHH or PokerStars' text), replayed as an animation, its shuffle verified,
a whole session exported as a zip that trackers import; and the recap of a night again
(``bot.runtime.recaps``).

Each reply is private and shows what everybody at the table saw: the board and the hands
shown, never a folded or mucked hand; the asker's own cards come to him alone. The hands are
this channel's table's, cash or tournament; the work is in ``bot.runtime.history``.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.amounts import read_count
from bot.client import PokerBot
from bot.errors import BotError, locale_of
from bot.i18n import t
from bot.interact import command_text, defer, guild_id_of, live_here, reply, runtime_of
from bot.replay import replay_image
from bot.runtime.cash import CashTable
from bot.runtime.history import (
    ExportAsk,
    HistoryFormat,
    export_of,
    history_of,
    replay_of,
    stored_hand,
    verification,
)
from bot.runtime.kinds import Extra
from bot.runtime.messenger import split_text
from bot.runtime.recaps import recap_for
from bot.runtime.rendering import render
from engine.commitment import Opening

Interaction = discord.Interaction[PokerBot]

FORMAT_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.format.{f.value}"), value=f.value)
    for f in HistoryFormat
]
# An export replays up to a file's worth of hands: a member may ask for a few an hour, and
# bot.runtime.history.EXPORTS_AT_ONCE bounds how many are built at once for everybody.
EXPORT_RATE, EXPORT_PER = 3, 600.0


class History(commands.Cog):
    history = app_commands.Group(
        name="history", description=command_text("command.history"), guild_only=True
    )

    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @history.command(name="hand", description=command_text("command.history.hand"))
    @app_commands.describe(hand=command_text("option.hand"), format=command_text("option.format"))
    @app_commands.choices(format=FORMAT_CHOICES)
    async def hand(
        self,
        interaction: Interaction,
        hand: app_commands.Range[int, 1] | None = None,
        format: str = HistoryFormat.PHH.value,
    ) -> None:
        table = live_here(interaction)
        number = None if hand is None else read_count(hand, "hand", 1, 2**53)
        try:
            chosen = HistoryFormat(format)
        except ValueError:
            raise BotError("bad_option", option="format") from None
        await defer(interaction)
        found = await history_of(table, number, locale_of(interaction),
                                 viewer_id=interaction.user.id, fmt=chosen,
                                 table_name=_channel_name(interaction, interaction.channel_id))
        file = discord.File(io.BytesIO(found.file.encode()), filename=found.filename)
        await reply(interaction, found.text, file=file)

    @history.command(name="export", description=command_text("command.history.export"))
    @app_commands.describe(session=command_text("option.session"),
                           first=command_text("option.export_from"),
                           last=command_text("option.export_to"))
    @app_commands.rename(first="from", last="to")
    @app_commands.checks.cooldown(EXPORT_RATE, EXPORT_PER)
    async def export(
        self,
        interaction: Interaction,
        session: app_commands.Range[int, 1] | None = None,
        first: app_commands.Range[int, 1] | None = None,
        last: app_commands.Range[int, 1] | None = None,
    ) -> None:
        """A session's hands as a zip: a PHH file for each and the whole session as
        PokerStars writes it, for trackers, showing the hands shown and the asker's own cards
        only. Private; refused with its reason for another server's session, a practice
        table, a session he did not play, and a zip past the file Discord takes here
        (``attachment_size_limit``: 10 MB, more with boosts), with how many hands would fit."""
        guild_id = guild_id_of(interaction)
        ask = ExportAsk(
            guild_id=guild_id,
            channel_id=interaction.channel_id,
            user_id=interaction.user.id,
            session=None if session is None else read_count(session, "session", 1, 2**53),
            low=None if first is None else read_count(first, "from_hand", 1, 2**53),
            high=None if last is None else read_count(last, "to_hand", 1, 2**53),
            limit=interaction.filesize_limit,
        )
        await defer(interaction)
        runtime = runtime_of(interaction)
        loc = locale_of(interaction)
        built = await export_of(runtime.db, runtime.registry, ask, loc,
                                lambda channel_id: _channel_name(interaction, channel_id))
        key = "reply.export_tournament" if built.tournament else "reply.export"
        text = t(key, loc, hands=built.file.hands, first=built.first, last=built.last,
                 size=f"{built.file.size / (1 << 20):.2f}")
        # The zip stays on its temporary file (spilled to disk past a megabyte): discord.py
        # streams it from there. Typeshed does not count that file a buffered stream; it is one.
        fp = cast(io.BufferedIOBase, built.file.file)
        try:
            await reply(interaction, text, file=discord.File(fp, filename=built.file.filename))
        finally:
            built.file.file.close()

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


def _channel_name(interaction: Interaction, channel_id: int | None) -> str:
    """A channel's (or thread's) name as the files write a table's, "" when unknown."""
    guild = interaction.guild
    channel = None
    if guild is not None and channel_id is not None:
        channel = guild.get_channel_or_thread(channel_id)
    return getattr(channel, "name", None) or ""


def _openings_file(name: str, root: str, openings: Sequence[Opening]) -> discord.File:
    lines = [f"root {root}", *(opening.to_text() for opening in openings)]
    return discord.File(io.BytesIO(("\n".join(lines) + "\n").encode()), filename=name)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(History(bot))
