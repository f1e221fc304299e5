"""The recap of a night, posted once: when a cash table's session ends (the host resets the
ledger, closes the table, or it closes itself idle) and when a tournament finishes.

The transaction that ends the session stores its recap as owed (``bot.storage.recaps``); the
table then asks for it to be posted once its own last messages went out (``messenger.then``),
and start-up posts whatever a crash left owed (:func:`post_owed`). Posting claims the recap in
storage, sends it with the nonce stored with it (Discord makes one message of every try), marks
it posted, then sends each player his own figures by DM, in his language (best effort: a
closed DM loses them, and a crash after the post may too, but nothing is ever sent twice).

The recap says, in the server's language: the results by net, each player's all-in EV net and
luck, the biggest pot with its replay (the cards shown at the table only, as every replay), the
hand of the biggest swing of equity, and at a cash table who pays whom (``engine.settlement``),
with the ledger's CSV (its settlement section holds the same transfers). A practice table's
session has none: its chips are play chips, it keeps no ledger and no all-in EV.

``/history recap`` shows one again, privately (:func:`recap_for`): to the players of it,
anywhere in its server; to anybody else only in the channel where it was posted, once it was
(a host who turned recaps off kept that session's figures among its players).
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.errors import BotError, is_discord_fault, retry_after_of, retry_delay
from bot.i18n import resolve_locale
from bot.logs import cause_of
from bot.presenter import display_name
from bot.render.replay import RenderedAnimation
from bot.replay import PlayedHand, replay_image
from bot.runtime.budget import Priority, requests_at
from bot.runtime.direct import DmChannels, send_dm
from bot.runtime.faults import log_failure
from bot.runtime.messenger import NOBODY, split_text
from bot.runtime.rendering import render
from bot.runtime.reports import (
    PotFacts,
    RecapFacts,
    RecapLine,
    SwingFacts,
    ledger_csv,
    recap_dm,
    recap_text,
    settlement,
    stored_names,
    stored_stakes,
)
from bot.storage import Database, StorageError, hands, recaps, tournaments
from bot.storage.db import DatabaseClosed
from bot.storage.hands import StoredHand
from bot.storage.recaps import Recap
from bot.storage.sessions import figures_players
from bot.storage.stats import AllInFigures
from engine.allin_ev import AllInEV
from engine.bots.ids import is_house_or_bot
from engine.errors import EngineError
from engine.table import TableOptions
from engine.tournament import TournamentConfig

log = logging.getLogger(__name__)

Locales = Callable[[Sequence[int]], Awaitable[dict[int, str]]]

# Recaps this process is posting now: a second call for one of them (start-up's and a table's)
# leaves it to the first.
_posting: set[int] = set()
# Posts running in the background: they outlive the table that asked (it closes meanwhile).
_tasks: set[asyncio.Task[None]] = set()


@dataclass(frozen=True, slots=True)
class RecapPost:
    """A recap as it goes out: its words (``text``), the replay of its biggest pot and the
    ledger's CSV (at a cash table), and each player's own figures by DM."""

    facts: RecapFacts
    names: dict[int, str]
    text: str
    replay: RenderedAnimation | None
    csv: bytes | None

    def files(self) -> list[discord.File]:
        """Its attachments, made anew for each try (a file is read once)."""
        files = []
        if self.replay is not None:
            files.append(discord.File(io.BytesIO(self.replay.data),
                                      filename=self.replay.filename,
                                      description=self.replay.alt_text))
        if self.csv is not None:
            files.append(discord.File(io.BytesIO(self.csv),
                                      filename=f"recap-{self.facts.recap_id}-ledger.csv"))
        return files


# --- what a recap says -----------------------------------------------------------------------


async def read_recap(db: Database, recap_id: int, locale: object) -> RecapPost:
    """Recap ``recap_id`` from storage, worded in ``locale``, its replay drawn (off the event
    loop, on the render thread) and its settlement counted (in a worker thread)."""
    recap = await recaps.load_recap(db, recap_id)
    names = stored_names(recap.config)
    tables: dict[int, int] = {}
    state = None
    if recap.tournament_id is None:
        players = figures_players(recap.figures)
        lines = tuple(
            RecapLine(p.user_id, p.net, recap.players.get(p.user_id, AllInFigures()))
            for p in players
        )
        transfers = tuple(await asyncio.to_thread(settlement, players))
        name = None
    else:
        info = await tournaments.get_tournament(db, recap.tournament_id)
        name, state = info.name, info.state
        tables = {t.table_id: t.table_no for t in
                  await tournaments.tournament_tables(db, recap.tournament_id, open_only=False)}
        lines = _tournament_lines(recap)
        transfers = None
        players = ()
    pot_hand = None if recap.biggest_pot is None else await hands.load_hand(db, recap.biggest_pot)
    swing_hand = (None if recap.biggest_swing is None
                  else await hands.load_hand(db, recap.biggest_swing))
    facts = RecapFacts(
        recap_id=recap.recap_id,
        channel_id=recap.channel_id,
        hands=recap.hands,
        lines=lines,
        first_hand=recap.first_hand,
        last_hand=recap.last_hand,
        tournament=name,
        pot=None if pot_hand is None else _pot(pot_hand, tables.get(pot_hand.table_id)),
        swing=None if swing_hand is None else _swing(swing_hand,
                                                     tables.get(swing_hand.table_id)),
        transfers=transfers,
    )
    replay = None
    if pot_hand is not None:
        played = _played(pot_hand, names, recap.config, locale, stored_stakes(recap.config, state))
        if played is not None:
            _, replay = await render(replay_image, played, locale)
    csv = None if transfers is None else ledger_csv(players, names, locale, transfers)
    return RecapPost(facts, names, recap_text(facts, names, locale), replay, csv)


def _tournament_lines(recap: Recap) -> tuple[RecapLine, ...]:
    rows = recap.figures.get("players") if isinstance(recap.figures, dict) else None
    lines = []
    for user_id, place, _, prize, paid in rows or ():
        lines.append(RecapLine(int(user_id), int(prize) - int(paid),
                               recap.players.get(int(user_id), AllInFigures()),
                               place=int(place), prize=int(prize)))
    return tuple(lines)


def _pot(stored: StoredHand, table_no: int | None) -> PotFacts:
    winners = tuple(p.user_id for p in stored.players if (p.won or 0) > 0)
    return PotFacts(stored.hand_no, table_no, stored.pot or 0, winners)


def _swing(stored: StoredHand, table_no: int | None) -> SwingFacts | None:
    """The player of the hand whose luck was largest (the first by seat order on a tie)."""
    try:
        ev = AllInEV.from_json(stored.all_in_ev)
    except EngineError:
        return None
    luck = ev.luck_chips()
    live = [p.player for p in stored.players if p.all_in_ev_net is not None]
    if not live or len(luck) != len(stored.players):
        return None
    player = max(live, key=lambda i: (abs(luck[i]), -i))
    stake = sum(pot.amount for pot in ev.pots)
    return SwingFacts(
        hand_no=stored.hand_no,
        table_no=table_no,
        user_id=stored.players[player].user_id,
        share=float(ev.won[player] / stake) if stake else 0.0,
        stake=stake,
        ev_net=ev.ev_net_chips()[player],
        net=ev.net[player],
        luck=luck[player],
    )


def _played(
    stored: StoredHand, names: dict[int, str], config: Any, locale: object,
    small_blind_at: Callable[[int | None], int],
) -> PlayedHand | None:
    """The biggest pot as the replay draws it (None if it cannot be dealt again)."""
    try:
        hand = hands.rebuild_hand(stored)
        players = sorted(stored.players, key=lambda p: p.player)
        return PlayedHand(
            hand,
            stored.hand_no,
            seats=tuple(p.seat_no for p in players),
            names=tuple(display_name(names, p.user_id, locale) for p in players),
            seat_count=_seat_count(config, stored),
            button_seat=stored.button_seat,
            small_blind=small_blind_at(stored.level),
        )
    except (StorageError, EngineError, ValueError) as exc:
        log.warning("recap: hand %d cannot be replayed (%s)", stored.hand_id, exc)
        return None


def _seat_count(config: Any, stored: StoredHand) -> int:
    seats = max(p.seat_no for p in stored.players)
    try:
        if stored.tournament_id is None:
            return max(seats, TableOptions.from_json(dict(config["options"])).seats)
        return max(seats, TournamentConfig.from_json(dict(config["engine"])).seats)
    except (KeyError, TypeError, ValueError, EngineError):
        return seats


# --- posting once ----------------------------------------------------------------------------


class RecapPoster:
    """Posts recaps over one bot's connection: ``db``, the Discord ``client``, its DM
    channels and how to find each user's language (``locales``: the runtime's)."""

    def __init__(self, db: Database, client: discord.Client, dm_channels: DmChannels,
                 locales: Locales) -> None:
        self.db = db
        self.client = client
        self.dm_channels = dm_channels
        self.locales = locales

    def post_soon(self, guild_id: int, locale: object) -> None:
        """Post the server's owed recaps in the background (the one that just ended among
        them), in ``locale``, the server's language."""
        task = asyncio.create_task(self.post_owed([guild_id], lambda _: _ready(locale)),
                                   name=f"recaps-{guild_id}")
        _tasks.add(task)
        task.add_done_callback(_tasks.discard)

    async def post_owed(
        self, guild_ids: Sequence[int] | None, locale_of: Callable[[int], Awaitable[object]]
    ) -> None:
        """Post every owed recap of ``guild_ids`` (None: all), each in its server's language
        (``locale_of(guild_id)``). A failure is logged and leaves the recap to a later try."""
        try:
            owed = await recaps.to_post(self.db, None if guild_ids is None else list(guild_ids))
        except StorageError as exc:
            log.warning("could not read the recaps to post: %s", cause_of(exc))
            return
        for recap_id in owed:
            try:
                recap = await recaps.get_recap(self.db, recap_id)
                await self.post(recap_id, await locale_of(recap.guild_id))
            except StorageError as exc:
                log.warning("recap %d: not posted now (%s)", recap_id, cause_of(exc))
            except DatabaseClosed:
                # The bot is stopping: the recap stays owed, and the next start posts it.
                log.info("recap %d: left to the next start (stopping)", recap_id)
                return
            except Exception as exc:
                log_failure(log, exc, "recap %d: could not be posted", recap_id)

    async def post(self, recap_id: int, locale: object) -> bool:
        """Post recap ``recap_id`` if it is owed (or was cut within its nonce's window); True
        if this call posted it."""
        if recap_id in _posting:
            return False
        _posting.add(recap_id)
        try:
            return await self._post(recap_id, locale)
        finally:
            _posting.discard(recap_id)

    async def _post(self, recap_id: int, locale: object) -> bool:
        taken = await recaps.claim(self.db, recap_id)
        if taken is None:
            return False
        claimed = taken.recap
        if claimed.state == "lost":
            log.warning("recap %d: its post was cut too long ago to send again without a risk "
                        "of a second copy; /history recap still shows it", recap_id)
            return False
        try:
            post = await read_recap(self.db, recap_id, locale)
        except BaseException:
            if taken.first:
                # Nothing left: the next try (at the next start at the latest) starts afresh.
                await recaps.release(self.db, recap_id)
            raise
        channel = self.client.get_partial_messageable(claimed.channel_id)
        pieces = [piece for piece in split_text(post.text) if piece.strip()]
        for k, piece in enumerate(pieces):
            sent = await self._send(channel, claimed, k, piece, post.files if k == 0 else list)
            if not sent:
                await recaps.mark_lost(self.db, recap_id)
                return False
        await recaps.mark_posted(self.db, recap_id)
        log.info("recap %d posted in channel %d", recap_id, claimed.channel_id)
        await self._letters(post, locale)
        return True

    async def _send(
        self,
        channel: discord.PartialMessageable,
        recap: Recap,
        index: int,
        content: str,
        files: Callable[[], list[discord.File]],
    ) -> bool:
        """The recap's ``index``-th message (nonce + index, whatever the try), a fault of
        Discord's tried again while the nonce still guards against a second copy."""
        nonce = recap.nonce + index
        for tries in range(1, 1_000):
            try:
                with requests_at(Priority.TABLE):
                    await channel.send(content, allowed_mentions=NOBODY, nonce=nonce,
                                       files=files())
                return True
            except Exception as exc:
                if not is_discord_fault(exc) and not isinstance(exc, discord.HTTPException):
                    raise
                if not is_discord_fault(exc) or not recaps.within_window(recap):
                    log.warning("recap %d: not posted in channel %d (%s)", recap.recap_id,
                                recap.channel_id, cause_of(exc))
                    return False
                await asyncio.sleep(retry_delay(tries, retry_after_of(exc)))
        return False  # pragma: no cover - the window ends long before

    async def _letters(self, post: RecapPost, locale: object) -> None:
        """Each player's own figures, in the language his client spoke last."""
        people = [line.user_id for line in post.facts.lines
                  if not is_house_or_bot(line.user_id)]
        spoken = await self.locales(people)
        for user_id in people:
            if self.dm_channels.is_closed(user_id):
                continue
            his = resolve_locale(spoken.get(user_id), locale)
            text = recap_dm(post.facts, post.names, user_id, his)
            if text is None:
                continue
            try:
                with requests_at(Priority.TIDY):
                    await send_dm(self.client, user_id, self.dm_channels, text)
            except discord.Forbidden:
                self.dm_channels.closed(user_id)
            except Exception as exc:
                if not (isinstance(exc, discord.HTTPException) or is_discord_fault(exc)):
                    raise
                log.info("recap %d: DM to user %d not delivered (%s)", post.facts.recap_id,
                         user_id, cause_of(exc))


async def _ready(value: object) -> object:
    return value


# --- shown again -----------------------------------------------------------------------------


async def session_named(db: Database, guild_id: int, number: int) -> Recap:
    """The session that ended under recap ``number``, as ``/history recap`` and
    ``/history export`` name one; another server's is no session here: it is not even said
    to exist."""
    try:
        recap = await recaps.get_recap(db, number)
    except StorageError as exc:
        if exc.code == "unknown_recap":
            raise BotError("no_such_recap", session=number) from None
        raise
    if recap.guild_id != guild_id:
        raise BotError("no_such_recap", session=number)
    return recap


async def recap_for(
    db: Database, *, guild_id: int, channel_id: int, user_id: int, session: int | None,
    practice_here: bool, locale: object,
) -> RecapPost:
    """What ``/history recap`` shows ``user_id`` (see the module doc): session ``session``,
    or the last one played in this channel."""
    if session is None:
        if practice_here:
            raise BotError("recap_practice")
        found = await recaps.latest_in_channel(db, guild_id, channel_id)
        if found is None:
            raise BotError("no_recap_here")
        session = found
    recap = await session_named(db, guild_id, session)
    if recap.state == "empty":
        raise BotError("recap_no_hands", session=session)
    public_here = recap.state == "posted" and recap.channel_id == channel_id
    if not public_here and not await recaps.played_in(db, recap, user_id):
        raise BotError("recap_not_yours", session=session)
    return await read_recap(db, session, locale)
