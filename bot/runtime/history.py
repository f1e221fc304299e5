"""A table's past hands: finding one by number, telling it, replaying it, and what verifying it
may reveal.

``/history hand`` and ``/history replay`` are built here (:func:`history_of`, :func:`replay_of`),
not in the cog, so tests reach them: each shows what was shown at the table, never a folded or
mucked hand. A hand is told at the stakes it was played at (a tournament's blinds rise).

Verification opens the deck commitment posted before the deal only at the positions everybody
saw — the board dealt and the hands shown at showdown — and, for the player asking, at his own
hole cards (he gets those privately). A folded or mucked hand is never opened. Hands stored
before position-by-position commitments existed cannot be opened partially, so nothing of their
deck is revealed either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.errors import BotError
from bot.i18n import t
from bot.presenter import chips, display_name, mention, safe_text
from bot.replay import PlayedHand
from bot.runtime.table import LiveTable
from bot.storage import Database, hands, stats
from bot.storage.hands import StoredHand
from engine.commitment import Opening, hole_positions, seen_positions

HISTORY_DEPTH = 100  # hands a table looks back through for /history hand and verify


async def stored_hand(db: Database, table_id: int, number: int | None) -> StoredHand:
    """Hand ``number`` of the table (the last finished one when None)."""
    for summary in await stats.recent_hands(db, table_id, limit=HISTORY_DEPTH):
        if number is None and summary.status != "finished":
            continue
        if number is None or summary.hand_no == number:
            return await hands.load_hand(db, summary.hand_id)
    raise BotError("no_such_hand", hand=number if number is not None else "")


def require_finished(stored: StoredHand, *, voided: str) -> StoredHand:
    """``stored`` if it was played to its end. A voided hand is refused with ``voided`` (the
    command's own words: ``history_voided``, ``replay_voided``), a hand still running as not
    finished, so no command calls a voided hand unfinished."""
    if stored.status == "voided":
        raise BotError(voided, hand=stored.hand_no)
    if stored.status != "finished":
        raise BotError("hand_not_finished", hand=stored.hand_no)
    return stored


@dataclass(frozen=True, slots=True)
class Verification:
    hand_no: int
    root: str
    matches: bool  # the stored deck is the one committed to before the deal
    public: tuple[Opening, ...]  # the board and the hands shown: anyone may see these
    own: tuple[Opening, ...]  # the asking player's hole cards: for him only


def verification(stored: StoredHand, viewer_id: int) -> Verification:
    """What verifying ``stored`` shows ``viewer_id``; refused for hands committed the old way."""
    if stored.status == "running":
        raise BotError("hand_not_finished", hand=stored.hand_no)
    commitment = stored.commitment
    if commitment is None:
        raise BotError("verify_legacy", hand=stored.hand_no)
    if not stored.deck_matches():
        return Verification(stored.hand_no, commitment.root_hex, False, (), ())
    hand = hands.rebuild_hand(stored)
    players = hand.config.players
    holes = hand.game.hole_count  # an Omaha player's four or five cards, each proven
    shown = hand.result.shown if hand.result is not None and hand.result.showdown else ()
    # After a rabbit hunt everybody saw the whole board; a board run twice shows both runs.
    hunted = isinstance(stored.result, dict) and bool(stored.result.get("rabbit"))
    board_count = 5 if hunted else len(hand.board)
    public = commitment.open_many(
        stored.deck,
        seen_positions(players, board_count, shown, second_run_from=hand.second_run_from,
                       hole_count=holes),
    )
    own: tuple[Opening, ...] = ()
    for player in stored.players:
        if player.user_id == viewer_id and player.player not in shown:
            own = commitment.open_many(stored.deck,
                                       hole_positions(players, player.player, holes))
    return Verification(stored.hand_no, commitment.root_hex, True, public, own)


@dataclass(frozen=True, slots=True)
class HandHistory:
    """A finished hand in words (each player's result) and as a PHH file (cards shown only)."""

    hand_no: int
    text: str
    phh: str


async def history_of(table: LiveTable[Any], number: int | None, locale: object) -> HandHistory:
    """Hand ``number`` of ``table`` (the last finished one when None), for ``/history hand``."""
    stored = require_finished(await stored_hand(table.db, table.table_id, number),
                              voided="history_voided")
    names = [display_name(table.names, p.user_id, locale) for p in stored.players]
    # A tournament's hand says which tournament (PHH's event) and level it was played at.
    event = table.event_name
    phh = await hands.export_phh(table.db, stored.hand_id, players=names, event=event)
    lines = [t("history.title", locale, hand=stored.hand_no,
               pot=chips(stored.pot or 0, locale))]
    if stored.level is not None:
        lines.append(t("history.tournament", locale, name=safe_text(event or ""),
                       level=stored.level))
    for player in stored.players:
        net = (player.final_stack or 0) - player.starting_stack
        key = "history.won" if net > 0 else "history.lost" if net < 0 else "history.even"
        lines.append(t(key, locale, player=mention(player.user_id),
                       amount=chips(abs(net), locale)))
    return HandHistory(stored.hand_no, "\n".join(lines), phh)


async def replay_of(
    table: LiveTable[Any], guild_id: int, number: int | None, locale: object
) -> PlayedHand:
    """Hand ``number`` of ``table`` (the last finished one when None) as the replay draws it.
    A tournament's hands are stored as a cash table's are, and replayed the same way, at the
    blinds of the level they were dealt at."""
    stored = await stored_hand(table.db, table.table_id, number)
    # The table is this channel's; a hand stored under another server is not its hand.
    if stored.guild_id != guild_id:
        raise BotError("no_such_hand", hand=stored.hand_no)
    require_finished(stored, voided="replay_voided")
    players = sorted(stored.players, key=lambda p: p.player)
    return PlayedHand(
        hands.rebuild_hand(stored),
        stored.hand_no,
        seats=tuple(p.seat_no for p in players),
        names=tuple(display_name(table.names, p.user_id, locale) for p in players),
        seat_count=table.table.options.seats,
        button_seat=stored.button_seat,
        small_blind=table.small_blind_at(stored.level),
    )
