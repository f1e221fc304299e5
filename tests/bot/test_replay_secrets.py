"""``/history replay`` never draws a card that was not shown (issue "Hardening, round 2", item 11).

The method is non-interference: take a finished hand, deal it again from a deck in which every
card nobody saw is swapped for another card nobody saw (the folded hands, a hand that won
without a showdown, the burns and the undealt rest of the deck), replay the same decisions,
and the replay must not change: the same frames' views and words, and, decoded from the GIF
with Pillow frame by frame, the same pixels. A renderer or a replayer that drew a secret card
anywhere (face up in a seat, on the board ahead of its street, in a caption, in the alt text)
would draw a different card in the second replay. This needs no knowledge of the layout (no
card boxes to locate, no card-back art to match) and holds for any frame. The test shows it
is sensitive: a frame with one hidden card turned face up decodes to different pixels.

A mucked hand at a showdown cannot be swapped without changing who won; that no mucked or
folded card is in any frame's view, caption or alt text is checked directly, over random hands.
"""

from __future__ import annotations

import dataclasses
import io
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageSequence

from bot.render.replay import draw_replay_frame, render_replay, replay_alt_text
from bot.replay import PlayedHand, build_replay
from engine.cards import format_card
from engine.commitment import hole_positions, seen_positions
from engine.hand import Hand, HandConfig, RunItTwice
from tests.bot.test_replay import NAMES, _random_hand
from tests.engine.test_table_sim import random_action


def _played(hand: Hand) -> PlayedHand:
    n = hand.n
    return PlayedHand(hand, 4, seats=tuple(range(1, n + 1)), names=NAMES[:n],
                      seat_count=max(n, 6), button_seat=1, small_blind=hand.config.big_blind // 2)


def secret_positions(hand: Hand) -> set[int]:
    """Deck positions of the cards nobody saw and nothing depends on: folded hands, an unshown
    hand that won without a showdown, burns and the cards never dealt."""
    result = hand.result
    assert result is not None
    n = hand.n
    seen = set(seen_positions(n, len(hand.board), result.shown,
                              second_run_from=hand.second_run_from))
    kept = set(seen)
    for i in range(n):
        if not hand.folded[i] and result.showdown:
            kept |= set(hole_positions(n, i))  # a mucked hand decided who won
    return set(range(52)) - kept


def swapped(hand: Hand, rng: random.Random) -> Hand:
    """The same hand dealt from a deck whose secret cards are shuffled among themselves, played
    with the same decisions."""
    secret = sorted(secret_positions(hand))
    deck = list(hand.deck)
    cards = [deck[p] for p in secret]
    while len(cards) > 1 and cards == [deck[p] for p in secret]:
        rng.shuffle(cards)
    for p, card in zip(secret, cards, strict=True):
        deck[p] = card
    other = Hand(hand.config, tuple(deck))
    for action in hand.actions:
        other.apply(action)
    assert other.result is not None and hand.result is not None
    assert other.result.won == hand.result.won and other.board == hand.board
    return other


def _hidden(hand: Hand) -> set[str]:
    result = hand.result
    assert result is not None
    shown = {i for i in result.shown if not hand.folded[i]}
    return {format_card(c) for i in range(hand.n) if i not in shown for c in hand.hole_cards(i)}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 9),
       mode=st.sampled_from(list(RunItTwice)))
def test_the_frames_do_not_depend_on_any_card_nobody_saw(seed: int, players: int,
                                                        mode: RunItTwice) -> None:
    """The animation's input: every frame's view, caption and the words are the same when
    the secret cards are others; and no unshown hole card is in any view."""
    rng = random.Random(seed)
    hand = _random_hand(rng, players, mode)
    first, second = build_replay(_played(hand)), build_replay(_played(swapped(hand, rng)))
    assert first == second
    hidden = _hidden(hand)
    dealt = {format_card(c) for board in hand.boards for c in board}
    for frame in first.view.frames:
        view = frame.view
        assert set(view.board) | set(view.second_board) <= dealt
        for seat in view.seats:
            if seat is not None:
                assert not {c for c in seat.cards if c is not None} & hidden
                assert not (set(seat.best_five) | set(seat.second_best_five)) & hidden


def _folded_hand(seed: int) -> Hand:
    """Six players: the first two to act fold, the others play on at random."""
    rng = random.Random(seed)
    hand = Hand(HandConfig.standard((1_000,) * 6, 5, 10), tuple(rng.sample(range(52), 52)))
    folds = 2
    while not hand.is_over:
        if hand.run_choice_pending:
            hand.choose_run_count(1)
            continue
        legal = hand.legal()
        assert legal is not None
        if folds and legal.to_call:
            hand.fold(legal.player)
            folds -= 1
        else:
            random_action(hand, rng)
    assert sum(hand.folded) >= 2
    return hand


def _decoded(data: bytes) -> list[Image.Image]:
    with Image.open(io.BytesIO(data)) as gif:
        assert gif.format == "GIF"
        return [frame.convert("RGB") for frame in ImageSequence.Iterator(gif)]


def test_the_gif_decodes_to_the_same_pixels_whatever_the_hidden_cards() -> None:
    for seed in (3, 11):
        hand = _folded_hand(seed)
        other = swapped(hand, random.Random(seed))
        assert {format_card(c) for i in range(6) if hand.folded[i]
                for c in hand.hole_cards(i)} != {format_card(c) for i in range(6)
                                                 if other.folded[i] for c in other.hole_cards(i)}
        first, second = build_replay(_played(hand)), build_replay(_played(other))
        gif_a, gif_b = render_replay(first.view), render_replay(second.view)
        frames_a, frames_b = _decoded(gif_a.data), _decoded(gif_b.data)
        assert len(frames_a) == len(frames_b) == gif_a.frames > 5
        for k, (a, b) in enumerate(zip(frames_a, frames_b, strict=True)):
            assert ImageChops.difference(a, b).getbbox() is None, f"frame {k} differs"
        assert gif_a.alt_text == replay_alt_text(second.view)
        for card in _hidden(hand) | _hidden(other):
            assert card not in gif_a.alt_text


def test_a_hidden_card_turned_up_would_be_seen() -> None:
    """The comparison is sensitive: turning one face-down card of the first frame face up
    changes the decoded pixels."""
    hand = _folded_hand(3)
    frame = build_replay(_played(hand)).view.frames[0]
    seats = list(frame.view.seats)
    k = next(k for k, s in enumerate(seats) if s is not None and s.cards == (None, None))
    seat = seats[k]
    assert seat is not None
    seats[k] = dataclasses.replace(  # seat k + 1 is player k's (see _played)
        seat, cards=tuple(format_card(c) for c in hand.hole_cards(k)))
    leaked = dataclasses.replace(frame, view=dataclasses.replace(frame.view, seats=tuple(seats)))
    a = draw_replay_frame(frame, 0, 10).quantize(colors=256)
    b = draw_replay_frame(leaked, 0, 10).quantize(colors=256)
    assert ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox() is not None
