"""Sessions played into storage for the export's tests: a cash table as the bot keeps it (its
stored config carries the options and the players' names), players who buy in, play random
Hold'em and buy in again when they bust, every hand stored through the storage API and
recorded with the runtime's own results and statistics (``bot.runtime.results``)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.runtime.config import TableConfig
from bot.runtime.results import player_results, result_summary
from bot.storage import Database, economy, hands, tables
from bot.storage.hands import HandSeat
from engine.cards import FULL_DECK
from engine.commitment import DeckCommitment
from engine.games import NLHE, Game
from engine.hand import Action, ActionKind, Hand, HandConfig, RunItTwice
from engine.table import TableOptions
from tests.engine.pokerkit_oracle import pokerkit_style_stacks

SMALL, BIG = 5, 10
BUY_IN = 400
HOSTILE_NAMES = (
    "Seat 1: Bob",
    "Bob [As Kd]",
    "calls",
    "bob",
    "new\nline",
    "*** SUMMARY ***",
    "x' 2-max (Play Money) Seat #1 is the button",
    "Zoë: raises 10 to 20",
)


@dataclass
class PlayedSession:
    """What the kit played: the table, its users by seat, and every hand id in order."""

    table_id: int
    users: tuple[int, ...]
    names: dict[int, str]
    hand_ids: list[int] = field(default_factory=list)


def table_config(names: dict[int, str], *, seats: int = 9) -> dict[str, object]:
    options = TableOptions(small_blind=SMALL, big_blind=BIG, min_buy_in=100,
                           max_buy_in=2_000, seats=seats)
    return TableConfig(options=options, timer=30, names=dict(names)).to_json()


def _choose(hand: Hand, rng: random.Random) -> Action:
    """A loose, aggressive table: calls and raises often, so that flops, showdowns, 3-bets and
    all-ins come in numbers."""
    legal = hand.legal()
    assert legal is not None
    p = legal.player
    choices = [Action(ActionKind.CHECK if legal.can_check else ActionKind.CALL, p)] * 4
    choices.append(Action(ActionKind.FOLD, p))
    if legal.can_raise:
        kind = ActionKind.BET if legal.is_bet else ActionKind.RAISE
        choices.append(Action(kind, p, legal.min_raise_to))
        choices.append(Action(kind, p, rng.randint(legal.min_raise_to, legal.max_raise_to)))
        if rng.random() < 0.15:
            choices.append(Action(ActionKind.ALL_IN, p))
    return rng.choice(choices)


async def play_session(
    db: Database,
    rng: random.Random,
    *,
    guild: int,
    channel: int,
    users: Sequence[int],
    hands_count: int,
    names: dict[int, str] | None = None,
    practice: bool = False,
    pokerkit_splits: bool = True,
    game: Game = NLHE,
    run_it_twice: RunItTwice = RunItTwice.OFF,
    host: int = 500,
    table_id: int | None = None,
) -> PlayedSession:
    """``hands_count`` hands of ``game`` at a new table in ``channel``. With
    ``pokerkit_splits`` only deals whose pots PokerKit would split exactly as we do are kept
    (another deck is drawn otherwise: PokerKit gives a split pot's odd chip to the first
    winner, RULES.md to the first left of the button), so that PokerKit's play of the file
    must end where ours did. ``table_id``: more hands at that table, its players seated."""
    names = dict(names or {})
    if table_id is None:
        table_id = (await tables.create_table(db, guild, channel, host,
                                              config=table_config(names), min_buy_in=100,
                                              max_buy_in=2_000, max_seats=9,
                                              practice=practice)).table_id
        for user in users:
            if not practice:
                await economy.grant(db, guild, user, 10_000_000, actor_id=host)
            await tables.buy_in(db, table_id, user, BUY_IN)
    table = await tables.get_table(db, table_id)
    played = PlayedSession(table.table_id, tuple(users), names)
    seat_of = {s.user_id: s.seat_no for s in table.seats}
    for number in range(hands_count):
        info = await tables.get_table(db, table.table_id)
        for seat in info.seats:
            if seat.stack < BIG:
                await tables.top_up(db, table.table_id, seat.user_id, BUY_IN - seat.stack)
        info = await tables.get_table(db, table.table_id)
        stacks = {s.user_id: s.stack for s in info.seats}
        # The button moves one seat a hand: the engine's button is the last player index.
        order = sorted(users, key=seat_of.__getitem__)
        shift = number % len(order)
        order = order[shift + 1:] + order[: shift + 1]
        config = HandConfig.standard([stacks[u] for u in order], SMALL, BIG, game=game,
                                     run_it_twice=run_it_twice)
        while True:
            deck = tuple(rng.sample(FULL_DECK, 52))
            hand = Hand(config, deck)
            while not hand.is_over:
                hand.apply(_choose(hand, rng))
            assert hand.result is not None
            if not pokerkit_splits or pokerkit_style_stacks(hand, merge=True) == list(
                hand.result.stacks
            ):
                break
        hand_id = await hands.start_hand(
            db, table.table_id, config=config, deck=deck,
            commitment=DeckCommitment.commit(deck),
            players=[HandSeat(i, seat_of[u], u, stacks[u]) for i, u in enumerate(order)],
            button_seat=seat_of[order[-1]] if len(order) > 2 else seat_of[order[1]],
            now=1_700_000_000 + 60 * number,
        )
        await hands.append_actions(db, hand_id, 0, hand.actions)
        await hands.record_hand_result(db, hand_id, result_summary(hand), player_results(hand),
                                       now=1_700_000_030 + 60 * number)
        played.hand_ids.append(hand_id)
    return played
