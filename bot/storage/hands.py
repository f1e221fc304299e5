"""Hands: stored as configuration, deck order and actions, so any of them can be replayed.

How a hand's chips are accounted (the simplest rule that keeps the guild invariant exact at
every committed instant):

- ``start_hand`` moves the whole stack of every player dealt in from his seat to the hand's
  account (``hand:<id>``), one ledger row each, in one transaction. That is table stakes: the
  chips in a hand are exactly the starting stacks, and the seat shows 0 with ``hand_id`` set
  so nobody can top up or leave with chips that are in play.
- Actions move no chips in the database: bets and pots live in the engine, which is
  deterministic, so the stored actions *are* the hand's internal state.
- ``record_hand_result`` moves each player's finishing stack from the hand back to his seat,
  in one transaction with the result and the statistics. It refuses unless the finishing
  stacks add up to what the hand holds, so no chip is created or lost by a faulty result.
- ``void_hand`` moves each starting stack back unchanged (every contribution refunded).

So ``sum(wallets) + sum(seats) + sum(running hands' chips)`` never changes except by minting
and burning, whatever moment a crash picks.

Actions are appended with their sequence number, which must be the next one: a duplicate or a
gap (two processes running one table, a retry after a timeout) is refused rather than stored. An
action is durable when ``append_action`` returns; the runtime acknowledges it only then.

The deck order is stored in full from the start (it is needed to rebuild the hand) and must
match the commitment published before the deal (``engine.commitment.DeckCommitment``: the root
is public, its seed stays here). It is only for the server: verifying a hand opens the positions
that were seen, never the deck. Hands stored before position-by-position commitments existed keep
their whole-deck digest (``deck_scheme = 'sha256'``).

Tournament hands (``tournament_id`` and ``level`` set) are stored, replayed, exported and
verified the same way, but their stacks are tournament chips, which are not wallet chips and
never enter the ledger: ``start_tournament_hand``, ``record_tournament_hand`` and
``void_tournament_hand`` move nothing, hold ``chips = 0`` (the schema insists), and check what
they can instead: the players dealt in are entrants still playing, their stacks are the ones the
hand's configuration deals, and the finishing stacks add up to the starting ones. Each stores the
tournament's own state (``bot.storage.tournaments.TournamentSave``) in the same transaction. The
cash functions refuse a tournament hand, and the tournament ones a cash hand.

A practice table's hands (``practice``) go through the cash functions, seats and all (a stack
dealt in shows 0 at its seat, so it can be neither topped up nor taken away mid-hand), but their
chips are play chips: the hand holds ``chips = 0``, no ledger row is written, and the finishing
stacks must add up to the starting ones instead. No statistic counts them (``player_totals``
included), and no statistic ever counts the house or a bot (``engine.bots.ids``) either.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage.db import Database, Row, Tx, unix_now
from bot.storage.errors import (
    StorageError,
    check_amount,
    check_id,
    check_setting,
    from_json_text,
    to_json_text,
)
from bot.storage.ledger import Reason, hand_account, record, seat_account
from bot.storage.tables import TableSave, check_save, close_in, unseat, write_save
from bot.storage.tournaments import TournamentSave
from bot.storage.tournaments import check_save as check_tournament_save
from bot.storage.tournaments import write_save as write_tournament_save
from engine.bots.ids import is_house_or_bot
from engine.cards import Card, check_deck
from engine.commitment import DeckCommitment, LegacyCommitment
from engine.errors import EngineError
from engine.hand import Action, Hand, HandConfig
from engine.limits import MAX_SEATS
from engine.phh import dump_played_hand
from engine.pokerstars import HandFacts, TournamentFacts, write_hand


@dataclass(frozen=True, slots=True)
class HandSeat:
    """A player dealt into a hand: engine index (PHH p1 = 0), his seat, and his whole stack."""

    player: int
    seat_no: int
    user_id: int
    stack: int


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One player's outcome, given by the runtime when the hand ends.

    ``won``: chips he took from pots (not his own uncalled bet returned); ``vpip``: he put
    chips in voluntarily before the flop; ``pfr``: he raised before the flop; ``showdown``: he
    showed his cards at a showdown. The flags after it feed 3-bet %, WTSD and W$SD (see
    migration 0006); None stores "unknown", which statistics leave out of their denominators.
    """

    player: int
    final_stack: int
    contributed: int
    won: int
    vpip: bool
    pfr: bool
    showdown: bool = False
    saw_flop: bool | None = None
    went_to_showdown: bool | None = None
    won_at_showdown: bool | None = None
    three_bet_chance: bool | None = None
    three_bet: bool | None = None
    all_in_ev_net: int | None = None  # his all-in EV net, if in the hand at the all-in moment


@dataclass(frozen=True, slots=True)
class AllInRecord:
    """A hand's all-in EV as counted when it was settled (migration 0010): ``exact`` is
    ``AllInEV.to_json()`` when the hand came to the all-in moment, None when it did not. Each
    player's all-in EV net in whole chips rides in his ``PlayerResult.all_in_ev_net``; a hand
    stored without a record has an unknown all-in EV."""

    exact: Any = None


@dataclass(frozen=True, slots=True)
class StoredPlayer:
    player: int
    user_id: int
    seat_no: int
    starting_stack: int
    final_stack: int | None
    contributed: int | None
    won: int | None
    vpip: bool | None
    pfr: bool | None
    showdown: bool | None
    saw_flop: bool | None = None
    went_to_showdown: bool | None = None
    won_at_showdown: bool | None = None
    three_bet_chance: bool | None = None
    three_bet: bool | None = None
    all_in_ev_net: int | None = None


# The statistics flags beyond VPIP and PFR, as PlayerResult, StoredPlayer and hand_players name
# them; each may be unknown (None / NULL).
STAT_FLAGS = ("saw_flop", "went_to_showdown", "won_at_showdown", "three_bet_chance", "three_bet")


@dataclass(frozen=True, slots=True)
class StoredHand:
    """Everything stored about a hand. Holds the deck: never show it to players."""

    hand_id: int
    guild_id: int
    table_id: int
    hand_no: int
    status: str  # "running", "finished" or "voided"
    config: Any  # HandConfig.to_json()
    deck: tuple[Card, ...]
    deck_salt: str  # the commitment's secret: the seed (merkle1) or the salt (sha256)
    deck_digest: str  # the commitment's public part: the root (merkle1) or the digest (sha256)
    deck_scheme: str
    button_seat: int | None
    chips: int
    pot: int | None
    result: Any
    void_reason: str | None
    started_at: int
    ended_at: int | None
    players: tuple[StoredPlayer, ...]
    actions: tuple[Any, ...]  # Action.to_json() of every accepted action, in order
    tournament_id: int | None = None  # a tournament's hand (its stacks are tournament chips)
    level: int | None = None  # ... dealt at this level
    practice: bool = False  # dealt at a practice table (its stacks are play chips)
    all_in_counted: bool = False  # its all-in EV was counted when it was settled
    all_in_ev: Any = None  # AllInEV.to_json() when it came to the all-in moment

    @property
    def commitment(self) -> DeckCommitment | None:
        """The position-by-position commitment (None for a hand stored before it existed)."""
        if self.deck_scheme != "merkle1":
            return None
        try:
            return DeckCommitment(self.deck_digest, self.deck_salt)
        except EngineError:
            return None

    def deck_matches(self) -> bool:
        """Whether the stored deck is the one committed to before the deal."""
        if self.deck_scheme == "sha256":
            return LegacyCommitment.verify(self.deck, self.deck_salt, self.deck_digest)
        commitment = self.commitment
        return commitment is not None and commitment.matches(self.deck)

    @property
    def final_stacks(self) -> tuple[int, ...] | None:
        """Finishing stacks by player index, for a finished hand (PHH ``finishing_stacks``)."""
        stacks = [p.final_stack for p in self.players]
        if self.status != "finished" or any(s is None for s in stacks):
            return None
        return tuple(s for s in stacks if s is not None)


def _check_deck(deck: Iterable[object]) -> tuple[Card, ...]:
    try:
        return check_deck(deck)
    except EngineError as exc:
        raise StorageError("bad_deck", **exc.params) from None


def _check_players(players: Sequence[HandSeat]) -> None:
    if not 2 <= len(players) <= MAX_SEATS:
        raise StorageError("bad_players", reason="count", count=len(players))
    for p in players:
        if not isinstance(p, HandSeat):
            raise StorageError("bad_players", reason="type", value=repr(p)[:50])
        check_id(p.user_id, "user_id")
        check_amount(p.stack, "stack")
        check_setting(p.seat_no, "seat_no", 1, MAX_SEATS)
    if sorted(p.player for p in players) != list(range(len(players))):
        raise StorageError("bad_players", reason="indices")
    if len({p.seat_no for p in players}) != len(players):
        raise StorageError("bad_players", reason="duplicate_seat")
    if len({p.user_id for p in players}) != len(players):
        raise StorageError("bad_players", reason="duplicate_user")


@dataclass(frozen=True, slots=True)
class _Deal:
    players: list[HandSeat]
    cards: tuple[Card, ...]
    config_text: str


def _check_deal(
    table_id: int,
    config: object,
    deck: Sequence[Card],
    commitment: DeckCommitment,
    players: Sequence[HandSeat],
    button_seat: int | None,
) -> _Deal:
    """What every deal must be, cash or tournament, checked before its transaction opens."""
    _check_players(players)
    ordered = sorted(players, key=lambda p: p.player)
    cards = _check_deck(deck)
    if not isinstance(commitment, DeckCommitment) or not commitment.matches(cards):
        raise StorageError("deck_commitment_mismatch", table_id=table_id)
    config_text = to_json_text(config, "config")
    config_json = from_json_text(config_text)
    config_stacks = config_json.get("stacks") if isinstance(config_json, dict) else None
    if config_stacks is not None and list(config_stacks) != [p.stack for p in ordered]:
        raise StorageError("bad_players", reason="stacks_differ_from_config", stacks=config_stacks)
    if button_seat is not None:
        check_setting(button_seat, "button_seat", 1, MAX_SEATS)
    return _Deal(ordered, cards, config_text)


@dataclass(frozen=True, slots=True)
class _Next:
    guild_id: int
    hand_no: int
    tournament_id: int | None  # the tournament the table belongs to
    practice: bool


async def _next_hand(tx: Tx, table_id: int) -> _Next:
    """Count a new hand at an open table with none running."""
    table = await tx.fetchone(
        "UPDATE poker_tables SET hand_count = hand_count + 1 WHERE table_id = ?"
        " AND status = 'open' RETURNING guild_id, hand_count, tournament_id, practice",
        (table_id,),
    )
    if table is None:
        exists = await tx.scalar("SELECT 1 FROM poker_tables WHERE table_id = ?", (table_id,))
        raise StorageError("table_closed" if exists else "unknown_table", table_id=table_id)
    running = await tx.scalar(
        "SELECT hand_id FROM hands WHERE table_id = ? AND status = 'running'", (table_id,)
    )
    if running is not None:
        raise StorageError("hand_in_progress", table_id=table_id, hand_id=running)
    return _Next(int(table[0]), int(table[1]), table[2], bool(table[3]))


async def start_hand(
    db: Database,
    table_id: int,
    *,
    config: object,
    deck: Sequence[Card],
    commitment: DeckCommitment,
    players: Sequence[HandSeat],
    button_seat: int | None = None,
    save: TableSave | None = None,
    now: int | None = None,
) -> int:
    """Store a new hand and move the players' stacks into it (at a practice table: the seats
    show the hand, the ledger nothing), in one transaction with ``save`` (the table as the deal
    left it); the hand id.

    Each player's ``stack`` must be his whole stack at the seat (table stakes), and the config's
    ``stacks`` (when it has them, as ``HandConfig.to_json()`` does) must list the same values.
    """
    check_id(table_id, "table_id")
    deal = _check_deal(table_id, config, deck, commitment, players, button_seat)
    players = deal.players
    checked = check_save(save)
    now = unix_now() if now is None else now
    total = sum(p.stack for p in players)
    async with db.write() as tx:
        table = await _next_hand(tx, table_id)
        guild_id, hand_no = table.guild_id, table.hand_no
        if table.tournament_id is not None:
            raise StorageError("not_in_tournament", table_id=table_id)
        hand_id = await tx.insert(
            "INSERT INTO hands (guild_id, table_id, hand_no, config, deck, deck_salt,"
            " deck_digest, deck_scheme, button_seat, chips, started_at, practice)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 'merkle1', ?, ?, ?, ?) RETURNING hand_id",
            (
                guild_id,
                table_id,
                hand_no,
                deal.config_text,
                to_json_text(list(deal.cards), "deck"),
                commitment.seed_hex,
                commitment.root_hex,
                button_seat,
                0 if table.practice else total,
                now,
                int(table.practice),
            ),
        )
        for p in players:
            moved = await tx.execute(
                "UPDATE seats SET stack = 0, hand_id = ? WHERE table_id = ? AND seat_no = ?"
                " AND user_id = ? AND hand_id IS NULL AND stack = ?",
                (hand_id, table_id, p.seat_no, p.user_id, p.stack),
            )
            if moved != 1:
                raise StorageError(
                    "seat_mismatch",
                    table_id=table_id,
                    seat_no=p.seat_no,
                    user_id=p.user_id,
                    stack=p.stack,
                )
            await tx.execute(
                "INSERT INTO hand_players (hand_id, player, guild_id, user_id, seat_no,"
                " starting_stack) VALUES (?, ?, ?, ?, ?, ?)",
                (hand_id, p.player, guild_id, p.user_id, p.seat_no, p.stack),
            )
            if table.practice:
                continue
            await record(
                tx,
                guild_id=guild_id,
                amount=p.stack,
                source=seat_account(table_id, p.seat_no),
                dest=hand_account(hand_id),
                reason=Reason.HAND_START,
                user_id=p.user_id,
                table_id=table_id,
                hand_id=hand_id,
                now=now,
            )
        await write_save(tx, table_id, checked)
        return hand_id


# The next action of a running hand, or nothing (no row returned): the sequence number must be
# the next one. Parameters: hand, seq, action, now, hand, seq, hand.
_APPEND_ONE = (
    "INSERT INTO hand_actions (hand_id, seq, action, created_at)"
    " SELECT CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS BIGINT)"
    " WHERE EXISTS (SELECT 1 FROM hands WHERE hand_id = ? AND status = 'running')"
    " AND CAST(? AS BIGINT) = (SELECT COALESCE(MAX(seq) + 1, 0) FROM hand_actions"
    " WHERE hand_id = ?)"
    " RETURNING seq"
)


def _append_params(hand_id: int, seq: int, text: str, now: int) -> tuple[object, ...]:
    return (hand_id, seq, text, now, hand_id, seq, hand_id)


def _check_seq(seq: object) -> int:
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise StorageError("action_out_of_order", got=repr(seq))
    return seq


async def _append_refusal(tx: Tx | Database, hand_id: int, seq: int) -> StorageError:
    row = await tx.fetchone(
        "SELECT status, (SELECT COALESCE(MAX(seq) + 1, 0) FROM hand_actions WHERE hand_id = ?)"
        " FROM hands WHERE hand_id = ?",
        (hand_id, hand_id),
    )
    if row is None:
        return StorageError("unknown_hand", hand_id=hand_id)
    if row[0] != "running":
        return StorageError("hand_not_running", hand_id=hand_id, status=row[0])
    return StorageError("action_out_of_order", hand_id=hand_id, expected=row[1], got=seq)


async def append_action(
    db: Database, hand_id: int, seq: int, action: object, *, now: int | None = None
) -> None:
    """Store accepted action number ``seq`` (0-based, the next one) of a running hand.

    ``action`` is an engine ``Action`` or its ``to_json()``. Durable when this returns.
    """
    check_id(hand_id, "hand_id")
    _check_seq(seq)
    text = to_json_text(action, "action")
    now = unix_now() if now is None else now
    rows = await db.write_one(_APPEND_ONE, _append_params(hand_id, seq, text, now))
    if not rows:
        raise await _append_refusal(db, hand_id, seq)


async def append_actions(
    db: Database,
    hand_id: int,
    first_seq: int,
    actions: Sequence[object],
    *,
    save: TableSave | None = None,
    now: int | None = None,
) -> None:
    """Store several actions at once (one input that set off pre-selected ones), atomically,
    with ``save`` when the input changed the table too (a timeout that sits a player out)."""
    check_id(hand_id, "hand_id")
    _check_seq(first_seq)
    texts = [to_json_text(a, "action") for a in actions]
    checked = check_save(save)
    if not texts and checked is None:
        return
    now = unix_now() if now is None else now
    if len(texts) == 1 and checked is None:
        # Nearly every input logs one action: one statement is atomic on its own, and one trip
        # to SQLite's thread instead of three keeps the shared writer lock free for other tables.
        if not await db.write_one(_APPEND_ONE, _append_params(hand_id, first_seq, texts[0], now)):
            raise await _append_refusal(db, hand_id, first_seq)
        return
    async with db.write() as tx:
        await _append_in(tx, hand_id, first_seq, texts, now)
        if checked is not None:
            table_id = await tx.scalar("SELECT table_id FROM hands WHERE hand_id = ?", (hand_id,))
            if table_id is None:
                raise StorageError("unknown_hand", hand_id=hand_id)
            await write_save(tx, int(table_id), checked)


async def _append_in(tx: Tx, hand_id: int, first_seq: int, texts: Sequence[str], now: int) -> None:
    for offset, text in enumerate(texts):
        seq = first_seq + offset
        if not await tx.fetchall(_APPEND_ONE, _append_params(hand_id, seq, text, now)):
            raise await _append_refusal(tx, hand_id, seq)


async def _running_hand(tx: Tx, hand_id: int, *, tournament: bool = False) -> Row:
    """A running hand of the kind asked for: cash hands move ledger chips, tournament hands
    never do, and neither path may settle the other's."""
    row = await tx.fetchone(
        "SELECT guild_id, table_id, status, chips, tournament_id, practice FROM hands"
        " WHERE hand_id = ?",
        (hand_id,),
    )
    if row is None:
        raise StorageError("unknown_hand", hand_id=hand_id)
    if row["status"] != "running":
        raise StorageError("hand_not_running", hand_id=hand_id, status=row["status"])
    if (row["tournament_id"] is not None) != tournament:
        raise StorageError("not_in_tournament" if not tournament else "unknown_hand",
                           hand_id=hand_id)
    return row


def _check_results(results: Sequence[PlayerResult]) -> None:
    for r in results:
        if not isinstance(r, PlayerResult):
            raise StorageError("bad_players", reason="type", value=repr(r)[:50])
        for name in ("final_stack", "contributed", "won"):
            value = getattr(r, name)
            if value != 0:
                check_amount(value, name)
            elif isinstance(value, bool) or not isinstance(value, int):
                raise StorageError("bad_amount", field=name, value=repr(value))
        for name in ("vpip", "pfr", "showdown"):
            if not isinstance(getattr(r, name), bool):
                raise StorageError("bad_players", reason="flag", field=name)
        for name in STAT_FLAGS:
            if not isinstance(getattr(r, name), bool | None):
                raise StorageError("bad_players", reason="flag", field=name)
        if r.all_in_ev_net is not None and (
            isinstance(r.all_in_ev_net, bool) or not isinstance(r.all_in_ev_net, int)
        ):
            raise StorageError("bad_amount", field="all_in_ev_net", value=repr(r.all_in_ev_net))
        # Flags that contradict each other would skew every percentage built on them.
        if (r.three_bet and not r.three_bet_chance) or (
            r.won_at_showdown and not r.went_to_showdown
        ) or (r.went_to_showdown and r.saw_flop is False):
            raise StorageError("bad_players", reason="flags_disagree", player=r.player)


def _check_all_in(
    all_in: AllInRecord | None, players: Sequence[PlayerResult]
) -> tuple[int, str | None]:
    """The hand's ``all_in_counted`` and ``all_in_ev`` columns. Every player's all-in EV net,
    or his net where he has none, must add up to zero (the table's luck is zero in every
    hand), and only a hand that came to the all-in moment has any."""
    if all_in is not None and not isinstance(all_in, AllInRecord):
        raise StorageError("bad_json", field="all_in", detail=repr(all_in)[:50])
    exact = None if all_in is None else all_in.exact
    if exact is None:
        if any(r.all_in_ev_net is not None for r in players):
            raise StorageError("bad_players", reason="all_in_without_moment")
        return int(all_in is not None), None
    total = sum(
        r.won - r.contributed if r.all_in_ev_net is None else r.all_in_ev_net for r in players
    )
    if total != 0:
        raise StorageError("bad_players", reason="all_in_ev_not_zero", total=total)
    return 1, to_json_text(exact, "all_in")


async def _store_all_in(
    tx: Tx, hand_id: int, counted: tuple[int, str | None], players: Sequence[PlayerResult]
) -> None:
    await tx.execute(
        "UPDATE hands SET all_in_counted = ?, all_in_ev = ? WHERE hand_id = ?",
        (*counted, hand_id),
    )
    for r in players:
        if r.all_in_ev_net is not None:
            await tx.execute(
                "UPDATE hand_players SET all_in_ev_net = ? WHERE hand_id = ? AND player = ?",
                (r.all_in_ev_net, hand_id, r.player),
            )


async def _return_to_seats(
    tx: Tx,
    *,
    hand: Row,
    hand_id: int,
    stacks: dict[int, int],
    reason: Reason,
    actor_id: int | None,
    now: int,
) -> dict[int, tuple[int, int, int]]:
    """Move ``stacks`` (by player index) from the hand to the seats: they must add up to what
    the hand holds (a practice hand: to its starting stacks, for it holds no ledger chip).

    Returns {player: (user id, seat, starting stack)}.
    """
    seated = {
        row[0]: (row[1], row[2], row[3])
        for row in await tx.fetchall(
            "SELECT player, user_id, seat_no, starting_stack FROM hand_players WHERE hand_id = ?",
            (hand_id,),
        )
    }
    if set(seated) != set(stacks):
        raise StorageError("bad_players", reason="players_differ", expected=sorted(seated))
    total = sum(stacks.values())
    practice = bool(hand["practice"])
    expected = sum(start for _, _, start in seated.values()) if practice else hand["chips"]
    if total != expected:
        raise StorageError("hand_chips_mismatch", hand_id=hand_id, expected=expected, got=total)
    for player, stack in stacks.items():
        user_id, seat_no, _ = seated[player]
        moved = await tx.execute(
            "UPDATE seats SET stack = ?, hand_id = NULL"
            " WHERE table_id = ? AND seat_no = ? AND user_id = ? AND hand_id = ?",
            (stack, hand["table_id"], seat_no, user_id, hand_id),
        )
        if moved != 1:  # pragma: no cover - seats in a hand cannot be left or changed
            raise StorageError("seat_mismatch", hand_id=hand_id, seat_no=seat_no, user_id=user_id)
        if stack > 0 and not practice:
            await record(
                tx,
                guild_id=hand["guild_id"],
                amount=stack,
                source=hand_account(hand_id),
                dest=seat_account(hand["table_id"], seat_no),
                reason=reason,
                user_id=user_id,
                table_id=hand["table_id"],
                hand_id=hand_id,
                actor_id=actor_id,
                now=now,
            )
    return seated


async def record_hand_result(
    db: Database,
    hand_id: int,
    result: object,
    players: Sequence[PlayerResult],
    *,
    pot: int | None = None,
    departures: Sequence[int] = (),
    save: TableSave | None = None,
    all_in: AllInRecord | None = None,
    now: int | None = None,
) -> None:
    """Finish a hand: finishing stacks back to the seats, result and statistics, the players
    who were leaving sent home (``departures``: user ids) and the table saved, atomically.

    ``result`` is any JSON value (or an object with ``to_json()``); ``pot`` defaults to the sum
    of the contributions. The finishing stacks must add up to the chips the hand holds (a
    practice hand's: to its starting stacks). ``all_in``: the hand's all-in EV (None: not
    counted, so unknown). A practice hand counts in no statistic and keeps no all-in EV, and
    the house and its bots count in none at all.
    """
    check_id(hand_id, "hand_id")
    _check_results(players)
    counted = _check_all_in(all_in, players)
    departing = _check_departures(departures)
    checked = check_save(save)
    if len({r.player for r in players}) != len(players):
        raise StorageError("bad_players", reason="duplicate_player")
    result_text = to_json_text(result, "result")
    pot = sum(r.contributed for r in players) if pot is None else pot
    if pot != 0:
        check_amount(pot, "pot")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        hand = await _running_hand(tx, hand_id)
        seated = await _return_to_seats(
            tx,
            hand=hand,
            hand_id=hand_id,
            stacks={r.player: r.final_stack for r in players},
            reason=Reason.HAND_END,
            actor_id=None,
            now=now,
        )
        await tx.execute(
            "UPDATE hands SET status = 'finished', chips = 0, pot = ?, result = ?, ended_at = ?"
            " WHERE hand_id = ?",
            (pot, result_text, now, hand_id),
        )
        guild_id = hand["guild_id"]
        for r in players:
            user_id, _, start = seated[r.player]
            await tx.execute(
                "UPDATE hand_players SET final_stack = ?, contributed = ?, won = ?, vpip = ?,"
                " pfr = ?, showdown = ?, saw_flop = ?, went_to_showdown = ?,"
                " won_at_showdown = ?, three_bet_chance = ?, three_bet = ?"
                " WHERE hand_id = ? AND player = ?",
                (
                    r.final_stack,
                    r.contributed,
                    r.won,
                    int(r.vpip),
                    int(r.pfr),
                    int(r.showdown),
                    *(_stored_flag(getattr(r, name)) for name in STAT_FLAGS),
                    hand_id,
                    r.player,
                ),
            )
            if hand["practice"] or is_house_or_bot(user_id):
                continue
            await tx.execute(
                "INSERT INTO player_totals (guild_id, user_id, hands_played, hands_won, net,"
                " biggest_pot, vpip_hands, pfr_hands) VALUES (?, ?, 1, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id, user_id) DO UPDATE SET"
                " hands_played = player_totals.hands_played + 1,"
                " hands_won = player_totals.hands_won + excluded.hands_won,"
                " net = player_totals.net + excluded.net,"
                " biggest_pot = CASE WHEN excluded.biggest_pot > player_totals.biggest_pot"
                " THEN excluded.biggest_pot ELSE player_totals.biggest_pot END,"
                " vpip_hands = player_totals.vpip_hands + excluded.vpip_hands,"
                " pfr_hands = player_totals.pfr_hands + excluded.pfr_hands",
                (
                    guild_id,
                    user_id,
                    int(r.won > 0),
                    r.final_stack - start,
                    r.won,
                    int(r.vpip),
                    int(r.pfr),
                ),
            )
        if not hand["practice"]:
            await _store_all_in(tx, hand_id, counted, players)
        await _depart_and_save(tx, hand, departing, checked, now)


def _check_departures(departures: Sequence[int]) -> tuple[int, ...]:
    users = tuple(check_id(user_id, "user_id") for user_id in departures)
    if len(set(users)) != len(users):
        raise StorageError("bad_players", reason="duplicate_departure")
    return users


async def _depart_and_save(
    tx: Tx, hand: Row, departing: Sequence[int], save: Any, now: int
) -> None:
    table_id = int(hand["table_id"])
    for user_id in departing:
        await unseat(tx, table_id, user_id, actor_id=None, now=now)
    await write_save(tx, table_id, save)


async def note_rabbit(db: Database, hand_id: int) -> None:
    """Remember that the rest of a finished hand's board was shown (a rabbit hunt), so that
    verifying the hand opens those positions too. Only a finished hand has a rabbit."""
    check_id(hand_id, "hand_id")
    async with db.write() as tx:
        row = await tx.fetchone(
            "SELECT result FROM hands WHERE hand_id = ? AND status = 'finished'", (hand_id,)
        )
        if row is None:
            raise StorageError("unknown_hand", hand_id=hand_id)
        result = from_json_text(row[0]) if row[0] is not None else {}
        if not isinstance(result, dict):
            raise StorageError("unknown_hand", hand_id=hand_id)
        result["rabbit"] = True
        await tx.execute(
            "UPDATE hands SET result = ? WHERE hand_id = ?",
            (to_json_text(result, "result"), hand_id),
        )


async def void_hand(
    db: Database,
    hand_id: int,
    *,
    reason: str,
    actor_id: int | None = None,
    first_seq: int | None = None,
    actions: Sequence[object] = (),
    departures: Sequence[int] = (),
    save: TableSave | None = None,
    now: int | None = None,
) -> dict[int, int]:
    """Cancel a running hand: every starting stack goes back to its seat; {user id: chips}.

    One transaction with everything that goes with it: the ``actions`` the engine logged for
    the void (from ``first_seq``, so a replay ends voided too), the players who were leaving
    sent home, and the table saved. A crash leaves either all of it or none.
    """
    checked = _check_void(hand_id, reason, actor_id, first_seq, actions)
    departing = _check_departures(departures)
    checked_save = check_save(save)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        refunds = await _void_in(tx, hand_id, checked, now)
        hand = await tx.fetchone("SELECT table_id FROM hands WHERE hand_id = ?", (hand_id,))
        assert hand is not None
        await _depart_and_save(tx, hand, departing, checked_save, now)
        return refunds


async def close_table(
    db: Database,
    table_id: int,
    *,
    actor_id: int | None = None,
    hand_id: int | None = None,
    reason: str = "table closed",
    first_seq: int | None = None,
    actions: Sequence[object] = (),
    recap: bool = True,
    now: int | None = None,
) -> dict[int, int]:
    """Close a table, voiding its running hand ``hand_id`` first, in one transaction (which
    ends its session: stored for its recap, posted unless ``recap`` is off); {user id: chips
    returned to the wallet}."""
    check_id(table_id, "table_id")
    checked = None if hand_id is None else _check_void(
        hand_id, reason, actor_id, first_seq, actions
    )
    now = unix_now() if now is None else now
    async with db.write() as tx:
        if checked is not None:
            assert hand_id is not None
            owner = await tx.scalar("SELECT table_id FROM hands WHERE hand_id = ?", (hand_id,))
            if owner != table_id:
                raise StorageError("unknown_hand", hand_id=hand_id, table_id=table_id)
            await _void_in(tx, hand_id, checked, now)
        return await close_in(tx, table_id, actor_id=actor_id, now=now, recap=recap)


# --- tournament hands ---------------------------------------------------------------------------


def _required_save(save: TournamentSave) -> Any:
    checked = check_tournament_save(save)
    if checked is None:
        raise StorageError("bad_json", field="save", detail="a tournament hand needs its save")
    return checked


async def start_tournament_hand(
    db: Database,
    table_id: int,
    *,
    level: int,
    config: object,
    deck: Sequence[Card],
    commitment: DeckCommitment,
    players: Sequence[HandSeat],
    save: TournamentSave,
    button_seat: int | None = None,
    now: int | None = None,
) -> int:
    """Store a new hand at a tournament's table, dealt at ``level``, with the tournament's
    state as the deal left it, in one transaction; the hand id. No chip moves: ``stack`` is
    each player's tournament stack, which must be what the configuration deals him, and every
    player must be an entrant still playing and in no other running hand of the tournament."""
    check_id(table_id, "table_id")
    check_setting(level, "level", 1, 100_000)
    deal = _check_deal(table_id, config, deck, commitment, players, button_seat)
    checked = _required_save(save)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        table = await _next_hand(tx, table_id)
        guild_id, hand_no, tournament_id = table.guild_id, table.hand_no, table.tournament_id
        if tournament_id is None:
            raise StorageError("not_tournament_table", table_id=table_id)
        for p in deal.players:
            place = await tx.fetchone(
                "SELECT place FROM tournament_entries WHERE tournament_id = ? AND user_id = ?",
                (tournament_id, p.user_id),
            )
            if place is None or place[0] is not None:
                raise StorageError("not_playing", player=p.user_id)
            elsewhere = await tx.scalar(
                "SELECT h.hand_id FROM hands h JOIN hand_players hp ON hp.hand_id = h.hand_id"
                " WHERE h.tournament_id = ? AND h.status = 'running' AND hp.user_id = ?",
                (tournament_id, p.user_id),
            )
            if elsewhere is not None:
                raise StorageError("hand_in_progress", player=p.user_id, hand_id=elsewhere)
        hand_id = await tx.insert(
            "INSERT INTO hands (guild_id, table_id, hand_no, config, deck, deck_salt,"
            " deck_digest, deck_scheme, button_seat, chips, started_at, tournament_id, level)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 'merkle1', ?, 0, ?, ?, ?) RETURNING hand_id",
            (
                guild_id,
                table_id,
                hand_no,
                deal.config_text,
                to_json_text(list(deal.cards), "deck"),
                commitment.seed_hex,
                commitment.root_hex,
                button_seat,
                now,
                tournament_id,
                level,
            ),
        )
        for p in deal.players:
            await tx.execute(
                "INSERT INTO hand_players (hand_id, player, guild_id, user_id, seat_no,"
                " starting_stack) VALUES (?, ?, ?, ?, ?, ?)",
                (hand_id, p.player, guild_id, p.user_id, p.seat_no, p.stack),
            )
        await write_tournament_save(tx, tournament_id, checked, now)
        return hand_id


async def append_tournament_actions(
    db: Database,
    hand_id: int,
    first_seq: int,
    actions: Sequence[object],
    *,
    save: TournamentSave,
    now: int | None = None,
) -> None:
    """Actions of a tournament hand stored with the tournament's new state (a timeout that
    marks a player away), atomically. Actions alone go through ``append_actions``."""
    check_id(hand_id, "hand_id")
    _check_seq(first_seq)
    texts = [to_json_text(a, "action") for a in actions]
    checked = _required_save(save)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        hand = await _running_hand(tx, hand_id, tournament=True)
        await _append_in(tx, hand_id, first_seq, texts, now)
        await write_tournament_save(tx, int(hand["tournament_id"]), checked, now)


async def record_tournament_hand(
    db: Database,
    hand_id: int,
    result: object,
    players: Sequence[PlayerResult],
    *,
    save: TournamentSave,
    pot: int | None = None,
    all_in: AllInRecord | None = None,
    now: int | None = None,
) -> None:
    """Finish a tournament hand with the tournament's state after it (eliminations, moves,
    broken tables, and the places and prizes if it ended the tournament), atomically.

    The finishing stacks must add up to the starting ones: tournament chips are neither
    created nor destroyed by a hand. Statistics are not counted (they are about wallet
    chips); the all-in EV is kept (``all_in``, in tournament chips) for the player's own
    tournament figures and the tournament's recap."""
    check_id(hand_id, "hand_id")
    _check_results(players)
    counted = _check_all_in(all_in, players)
    if len({r.player for r in players}) != len(players):
        raise StorageError("bad_players", reason="duplicate_player")
    result_text = to_json_text(result, "result")
    pot = sum(r.contributed for r in players) if pot is None else pot
    if pot != 0:
        check_amount(pot, "pot")
    checked = _required_save(save)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        hand = await _running_hand(tx, hand_id, tournament=True)
        starts = {
            int(row[0]): int(row[1])
            for row in await tx.fetchall(
                "SELECT player, starting_stack FROM hand_players WHERE hand_id = ?", (hand_id,)
            )
        }
        if set(starts) != {r.player for r in players}:
            raise StorageError("bad_players", reason="players_differ", expected=sorted(starts))
        total = sum(r.final_stack for r in players)
        if total != sum(starts.values()):
            raise StorageError("hand_chips_mismatch", hand_id=hand_id,
                               expected=sum(starts.values()), got=total)
        for r in players:
            await tx.execute(
                "UPDATE hand_players SET final_stack = ?, contributed = ?, won = ?, vpip = ?,"
                " pfr = ?, showdown = ? WHERE hand_id = ? AND player = ?",
                (r.final_stack, r.contributed, r.won, int(r.vpip), int(r.pfr),
                 int(r.showdown), hand_id, r.player),
            )
        await tx.execute(
            "UPDATE hands SET status = 'finished', pot = ?, result = ?, ended_at = ?"
            " WHERE hand_id = ?",
            (pot, result_text, now, hand_id),
        )
        await _store_all_in(tx, hand_id, counted, players)
        await write_tournament_save(tx, int(hand["tournament_id"]), checked, now)


async def void_tournament_hand(
    db: Database,
    hand_id: int,
    *,
    reason: str,
    save: TournamentSave,
    actor_id: int | None = None,
    first_seq: int | None = None,
    actions: Sequence[object] = (),
    now: int | None = None,
) -> None:
    """Call a tournament hand off (every stack as it was at the deal, in the engine) with the
    void's logged ``actions`` and the tournament's state, atomically."""
    void = _check_void(hand_id, reason, actor_id, first_seq, actions)
    checked = _required_save(save)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        hand = await _running_hand(tx, hand_id, tournament=True)
        await _append_in(tx, hand_id, void.first_seq, void.texts, now)
        await tx.execute(
            "UPDATE hands SET status = 'voided', void_reason = ?, ended_at = ? WHERE hand_id = ?",
            (void.reason, now, hand_id),
        )
        await write_tournament_save(tx, int(hand["tournament_id"]), checked, now)


@dataclass(frozen=True, slots=True)
class _Void:
    hand_id: int
    reason: str
    actor_id: int | None
    first_seq: int
    texts: tuple[str, ...]


def _check_void(
    hand_id: int,
    reason: str,
    actor_id: int | None,
    first_seq: int | None,
    actions: Sequence[object],
) -> _Void:
    check_id(hand_id, "hand_id")
    if actor_id is not None:
        check_id(actor_id, "actor_id")
    if not isinstance(reason, str) or not 1 <= len(reason) <= 200:
        raise StorageError("bad_setting", name="reason", value=repr(reason)[:50])
    texts = tuple(to_json_text(a, "action") for a in actions)
    if texts and first_seq is None:
        raise StorageError("action_out_of_order", got=None)
    seq = 0 if first_seq is None else _check_seq(first_seq)
    return _Void(hand_id, reason, actor_id, seq, texts)


async def _void_in(tx: Tx, hand_id: int, void: _Void, now: int) -> dict[int, int]:
    hand = await _running_hand(tx, hand_id)
    await _append_in(tx, hand_id, void.first_seq, void.texts, now)
    starts = {
        row[0]: row[1]
        for row in await tx.fetchall(
            "SELECT player, starting_stack FROM hand_players WHERE hand_id = ?", (hand_id,)
        )
    }
    seated = await _return_to_seats(
        tx,
        hand=hand,
        hand_id=hand_id,
        stacks=starts,
        reason=Reason.HAND_VOID,
        actor_id=void.actor_id,
        now=now,
    )
    await tx.execute(
        "UPDATE hands SET status = 'voided', chips = 0, void_reason = ?, ended_at = ?"
        " WHERE hand_id = ?",
        (void.reason, now, hand_id),
    )
    return {user_id: start for user_id, _, start in seated.values()}


_HAND_COLUMNS = (
    "hand_id, guild_id, table_id, hand_no, status, config, deck, deck_salt, deck_digest,"
    " deck_scheme,"
    " button_seat, chips, pot, result, void_reason, started_at, ended_at, tournament_id, level,"
    " practice, all_in_counted, all_in_ev"
)


def _flag(value: int | None) -> bool | None:
    return None if value is None else bool(value)


def _stored_flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _stored_deck(text: str) -> tuple[Card, ...]:
    # A damaged deck must not stop a hand from loading: rebuilding it checks the commitment.
    try:
        return check_deck(from_json_text(text))
    except (EngineError, ValueError):
        return ()


_PLAYER_COLUMNS = (
    "player, user_id, seat_no, starting_stack, final_stack, contributed, won, vpip, pfr,"
    f" showdown, {', '.join(STAT_FLAGS)}, all_in_ev_net"
)


def _stored_player(p: Row) -> StoredPlayer:
    return StoredPlayer(
        player=p[0],
        user_id=p[1],
        seat_no=p[2],
        starting_stack=p[3],
        final_stack=p[4],
        contributed=p[5],
        won=p[6],
        vpip=_flag(p[7]),
        pfr=_flag(p[8]),
        showdown=_flag(p[9]),
        saw_flop=_flag(p[10]),
        went_to_showdown=_flag(p[11]),
        won_at_showdown=_flag(p[12]),
        three_bet_chance=_flag(p[13]),
        three_bet=_flag(p[14]),
        all_in_ev_net=p[15],
    )


async def _load(tx: Tx, row: Row) -> StoredHand:
    hand_id = row["hand_id"]
    players = tuple(
        _stored_player(p)
        for p in await tx.fetchall(
            f"SELECT {_PLAYER_COLUMNS} FROM hand_players WHERE hand_id = ? ORDER BY player",
            (hand_id,),
        )
    )
    actions = tuple(
        from_json_text(a[0])
        for a in await tx.fetchall(
            "SELECT action FROM hand_actions WHERE hand_id = ? ORDER BY seq", (hand_id,)
        )
    )
    return _stored_hand(row, players, actions)


def _stored_hand(
    row: Row, players: tuple[StoredPlayer, ...], actions: tuple[Any, ...]
) -> StoredHand:
    hand_id = row["hand_id"]
    return StoredHand(
        hand_id=hand_id,
        guild_id=row["guild_id"],
        table_id=row["table_id"],
        hand_no=row["hand_no"],
        status=row["status"],
        config=from_json_text(row["config"]),
        deck=_stored_deck(row["deck"]),
        deck_salt=row["deck_salt"],
        deck_digest=row["deck_digest"],
        deck_scheme=row["deck_scheme"],
        button_seat=row["button_seat"],
        chips=row["chips"],
        pot=row["pot"],
        result=None if row["result"] is None else from_json_text(row["result"]),
        void_reason=row["void_reason"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        players=players,
        actions=actions,
        tournament_id=row["tournament_id"],
        level=row["level"],
        practice=bool(row["practice"]),
        all_in_counted=bool(row["all_in_counted"]),
        all_in_ev=None if row["all_in_ev"] is None else from_json_text(row["all_in_ev"]),
    )


async def load_hand(db: Database, hand_id: int) -> StoredHand:
    check_id(hand_id, "hand_id")
    async with db.read() as tx:
        row = await tx.fetchone(f"SELECT {_HAND_COLUMNS} FROM hands WHERE hand_id = ?", (hand_id,))
        if row is None:
            raise StorageError("unknown_hand", hand_id=hand_id)
        return await _load(tx, row)


MAX_HANDS_AT_ONCE = 500  # hands one read may load: a page of an export, never a session


async def load_hands(db: Database, hand_ids: Sequence[int]) -> list[StoredHand]:
    """Several hands in the order given, from one snapshot and three queries (what a page of
    an export reads: loading a session hand by hand would take a round trip each). At most
    :data:`MAX_HANDS_AT_ONCE`; an unknown id is ``unknown_hand``."""
    ids = [check_id(hand_id, "hand_id") for hand_id in hand_ids]
    if len(ids) > MAX_HANDS_AT_ONCE:
        raise StorageError("bad_setting", name="hand_ids", value=len(ids))
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    async with db.read() as tx:
        rows = {
            int(row["hand_id"]): row
            for row in await tx.fetchall(
                f"SELECT {_HAND_COLUMNS} FROM hands WHERE hand_id IN ({marks})", ids
            )
        }
        players: dict[int, list[StoredPlayer]] = {hand_id: [] for hand_id in rows}
        for p in await tx.fetchall(
            f"SELECT hand_id, {_PLAYER_COLUMNS} FROM hand_players WHERE hand_id IN ({marks})"
            " ORDER BY hand_id, player",
            ids,
        ):
            players[int(p[0])].append(_stored_player(p[1:]))
        actions: dict[int, list[Any]] = {hand_id: [] for hand_id in rows}
        for a in await tx.fetchall(
            f"SELECT hand_id, action FROM hand_actions WHERE hand_id IN ({marks})"
            " ORDER BY hand_id, seq",
            ids,
        ):
            actions[int(a[0])].append(from_json_text(a[1]))
    missing = next((hand_id for hand_id in ids if hand_id not in rows), None)
    if missing is not None:
        raise StorageError("unknown_hand", hand_id=missing)
    return [
        _stored_hand(rows[hand_id], tuple(players[hand_id]), tuple(actions[hand_id]))
        for hand_id in ids
    ]


async def unfinished_hands(db: Database, table_id: int | None = None) -> list[StoredHand]:
    """Every running hand (of one table, or all): what start-up rebuilds or voids."""
    async with db.read() as tx:
        if table_id is None:
            # Cash hands: a tournament's running hands come back with their tournament
            # (``tournament_hands_running``).
            rows = await tx.fetchall(
                f"SELECT {_HAND_COLUMNS} FROM hands WHERE status = 'running'"
                " AND tournament_id IS NULL ORDER BY hand_id"
            )
        else:
            check_id(table_id, "table_id")
            rows = await tx.fetchall(
                f"SELECT {_HAND_COLUMNS} FROM hands WHERE status = 'running' AND table_id = ?",
                (table_id,),
            )
        return [await _load(tx, row) for row in rows]


async def tournament_hands_running(db: Database, tournament_id: int) -> list[StoredHand]:
    """The running hands of a tournament (one per table at most): what a restart replays."""
    check_id(tournament_id, "tournament_id")
    async with db.read() as tx:
        rows = await tx.fetchall(
            f"SELECT {_HAND_COLUMNS} FROM hands WHERE tournament_id = ? AND status = 'running'"
            " ORDER BY hand_id",
            (tournament_id,),
        )
        return [await _load(tx, row) for row in rows]


def rebuild_hand(stored: StoredHand) -> Hand:
    """The engine state of a stored hand, by replaying its configuration, deck and actions.

    Raises ``hand_corrupt`` if the stored data does not replay (the runtime then voids the hand
    and logs it).
    """
    if not stored.deck_matches():
        raise StorageError("hand_corrupt", hand_id=stored.hand_id, detail="deck commitment")
    try:
        config = HandConfig.from_json(stored.config)
        actions = [Action.from_json(a) for a in stored.actions]
        return Hand.replay(config, stored.deck, actions)
    except Exception as exc:
        # Any failure (an EngineError from a refused action, a malformed JSON value) means the
        # stored hand cannot be trusted to continue.
        raise StorageError("hand_corrupt", hand_id=stored.hand_id, detail=str(exc)) from exc


def phh_players(stored: StoredHand) -> list[str]:
    """PHH ``players``: Discord user ids in player-index order (the bot may use display names)."""
    return [str(p.user_id) for p in stored.players]


def phh_extra(stored: StoredHand) -> dict[str, object]:
    """The PHH fields only storage knows: the hand's number, its table and who sat where."""
    extra: dict[str, object] = {
        "hand": stored.hand_no,
        "table": stored.table_id,
        "seats": [p.seat_no for p in stored.players],
        "seat_count": max(p.seat_no for p in stored.players),
    }
    if stored.tournament_id is not None:
        extra["tournament"] = stored.tournament_id
        extra["level"] = stored.level
    return extra


def replayed(stored: StoredHand) -> Hand:
    """A finished hand as the engine replays it, for the exports.

    Raises ``hand_not_finished`` (running or voided) and ``hand_corrupt`` when the replay does
    not end with the stored finishing stacks.
    """
    if stored.status != "finished":
        raise StorageError("hand_not_finished", hand_id=stored.hand_id, status=stored.status)
    hand = rebuild_hand(stored)
    result = hand.result
    if result is None or list(result.stacks) != list(stored.final_stacks or ()):
        # The replay must end where the stored result says, or the export would tell a story
        # different from the chips that actually moved.
        raise StorageError("hand_corrupt", hand_id=stored.hand_id,
                           detail="finishing stacks differ")
    return hand


async def finished_hand(db: Database, hand_id: int) -> tuple[StoredHand, Hand]:
    """A finished hand as stored and as the engine replays it (see :func:`replayed`)."""
    stored = await load_hand(db, hand_id)
    return stored, replayed(stored)


def viewer_index(stored: StoredHand, viewer_id: int | None) -> int | None:
    """The asker's player index in the hand, None if he was not dealt in (or nobody asks)."""
    return next((p.player for p in stored.players if p.user_id == viewer_id), None)


def phh_text(
    stored: StoredHand,
    hand: Hand,
    *,
    reveal_all: bool = False,
    players: Sequence[str] | None = None,
    event: str | None = None,
    viewer_id: int | None = None,
) -> str:
    """:func:`export_phh` of a hand already loaded and replayed (:func:`replayed`)."""
    names = phh_players(stored) if players is None else list(players)
    # An EngineError here (say "phh_unsupported" for a posted dead blind) passes through: the
    # hand is sound, PHH just cannot say it.
    extra = phh_extra(stored)
    if event is not None and stored.tournament_id is not None:
        extra["event"] = event
    return dump_played_hand(hand, reveal_all=reveal_all, players=names, extra=extra,
                            viewer=viewer_index(stored, viewer_id))


async def export_phh(
    db: Database,
    hand_id: int,
    *,
    reveal_all: bool = False,
    players: Sequence[str] | None = None,
    event: str | None = None,
    viewer_id: int | None = None,
) -> str:
    """A finished hand as PHH text, finishing stacks included, through the engine's writer.

    Unshown hole cards are written ``????`` unless ``reveal_all`` (only for the server's own
    archive); ``viewer_id``'s own are written too (a file for him alone). ``players`` replaces
    the user ids as the players' names; ``event`` names the tournament a tournament hand was
    played in (PHH's ``event``). Raises ``hand_corrupt`` if the stored hand does not replay to
    its stored result.
    """
    stored, hand = await finished_hand(db, hand_id)
    return phh_text(stored, hand, reveal_all=reveal_all, players=players, event=event,
                    viewer_id=viewer_id)


def posted_small_blind(config: HandConfig) -> int | None:
    """The small blind a hand's configuration posts at the small blind's place, None when it
    posts none there (a bomb pot, a dead small blind, heads-up after a bust): the stakes' small
    blind must then come from the table (``LiveTable.small_blind_at``)."""
    if config.bomb_pot:
        return None
    return config.blinds[(config.big_blind_index - 1) % config.players] or None


def pokerstars_facts(
    stored: StoredHand,
    *,
    names: Sequence[str],
    table_name: str,
    max_seats: int,
    small_blind: int,
    viewer_id: int | None = None,
    buy_in: int = 0,
) -> HandFacts:
    """What :func:`engine.pokerstars.write_hand` needs besides the replayed hand, from what
    storage knows of it and what the table says.

    ``names`` are the players' names in player-index order (pass a whole session's roster
    through ``engine.pokerstars.safe_names`` first, so a name stays the same from hand to
    hand). ``max_seats`` is the table's seat count, ``small_blind`` the small blind of the
    stakes the hand was dealt at (a tournament's level: ``LiveTable.small_blind_at``), for a
    hand whose configuration posts none at its place (:func:`posted_small_blind`),
    ``viewer_id`` the asker (his hole cards are written; None writes only what everybody saw),
    ``buy_in`` a tournament's. The hand is numbered by its storage id (unique across every
    table, as trackers need).
    """
    players = sorted(stored.players, key=lambda p: p.player)
    posted = posted_small_blind(HandConfig.from_json(stored.config))
    viewer = viewer_index(stored, viewer_id)
    tournament = None
    if stored.tournament_id is not None:
        tournament = TournamentFacts(stored.tournament_id, stored.level or 1, buy_in)
    return HandFacts(
        hand_id=stored.hand_id,
        table_name=table_name,
        seats=tuple(p.seat_no for p in players),
        names=tuple(names),
        max_seats=max([max_seats, *(p.seat_no for p in players)]),
        started_at=stored.started_at,
        small_blind=small_blind if posted is None else posted,
        big_blind=int(stored.config["big_blind"]),
        button_seat=stored.button_seat,
        tournament=tournament,
        viewer=viewer,
    )


async def export_pokerstars(
    db: Database,
    hand_id: int,
    *,
    names: Sequence[str],
    table_name: str,
    max_seats: int,
    small_blind: int,
    viewer_id: int | None = None,
    buy_in: int = 0,
) -> str:
    """A finished hand in the text PokerStars writes (``engine.pokerstars``): the hands shown
    and ``viewer_id``'s own cards, nothing else. Arguments as :func:`pokerstars_facts`; raises
    as :func:`finished_hand`."""
    stored, hand = await finished_hand(db, hand_id)
    facts = pokerstars_facts(
        stored,
        names=names,
        table_name=table_name,
        max_seats=max_seats,
        small_blind=small_blind,
        viewer_id=viewer_id,
        buy_in=buy_in,
    )
    return write_hand(hand, facts)
