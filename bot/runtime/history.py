"""A table's past hands: finding one by number, and what verifying it may reveal.

Verification opens the deck commitment posted before the deal only at the positions everybody
saw — the board dealt and the hands shown at showdown — and, for the player asking, at his own
hole cards (he gets those privately). A folded or mucked hand is never opened. Hands stored
before position-by-position commitments existed cannot be opened partially, so nothing of their
deck is revealed either.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import BotError
from bot.storage import Database, hands, stats
from bot.storage.hands import StoredHand
from engine.commitment import Opening, hole_positions, seen_positions

HISTORY_DEPTH = 100  # hands a table looks back through for /poker history and verify


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
