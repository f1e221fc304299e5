"""The table message and the image's description state the same pot, in every state of a
hand (issue 10, defect 15): both read it from the one view the presenter builds."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.presenter import Scene, table_message
from bot.render.alttext import table_alt_text
from engine.cards import shuffled_deck
from engine.hand import AnteKind
from engine.table import Table, TableOptions
from tests.engine.test_table_sim import random_action

MESSAGE_POT = re.compile(r"^Pot: ([\d,]+)$", re.MULTILINE)
ALT_POT = re.compile(r"\bPot: ([\d,]+)\.")


def pots_said(table: Table) -> tuple[str | None, str | None]:
    message = table_message(Scene(table=table, names={}, hand_number=table.hand_number,
                                  dealing=True))
    in_text = MESSAGE_POT.search(message.content)
    in_alt = ALT_POT.search(table_alt_text(message.view))
    return (in_text[1] if in_text else None), (in_alt[1] if in_alt else None)


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 9),
    seed=st.integers(0, 2**32),
    ante=st.sampled_from([0, 5]),
)
def test_message_and_alt_text_state_the_same_pot_in_every_state(
    players: int, seed: int, ante: int
) -> None:
    rng = random.Random(seed)
    kind = AnteKind.BIG_BLIND if ante else AnteKind.NONE
    options = TableOptions(small_blind=5, big_blind=10, ante=ante, ante_kind=kind)
    table = Table(options, rng)
    for seat in range(1, players + 1):
        table.join(seat, rng.choice([200, 500, 1000]), seat=seat)
    table.start_hand(shuffled_deck())
    hand = table.hand
    assert hand is not None
    states = 0
    while not hand.is_over:
        text, alt = pots_said(table)
        # Pre-flop with the blinds in, on every street with bets out: always a figure, the same.
        assert text is not None and text == alt, (text, alt)
        assert int(text.replace(",", "")) == hand.total_pot()
        random_action(hand, rng)
        states += 1
    assert states >= 1


def test_the_reported_states() -> None:
    """Pre-flop the description said "No pot yet" beside "Pot: 15"; after a flop bet it left
    out the street's bets."""
    table = Table(TableOptions(small_blind=5, big_blind=10), random.Random(3))
    for seat in (1, 2, 3):
        table.join(seat, 1000, seat=seat)
    table.start_hand(shuffled_deck())
    hand = table.hand
    assert hand is not None
    assert pots_said(table) == ("15", "15")
    while not hand.board:
        legal = hand.legal()
        assert legal is not None
        (hand.call if legal.to_call else hand.check)(legal.player)
    first = hand.legal()
    assert first is not None
    hand.bet(first.player, 20)
    assert pots_said(table) == ("50", "50")
