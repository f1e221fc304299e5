"""The hand replayer: every step of a finished hand, nothing the table did not show, and an
animation that stays under a megabyte with its story in the alt text."""

from __future__ import annotations

import io
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from bot.render.alttext import ALT_TEXT_LIMIT
from bot.render.replay import (
    MAX_BYTES,
    ReplayFrame,
    ReplayView,
    render_replay,
    replay_alt_text,
    thinned,
)
from bot.replay import PlayedHand, build_replay, replay_image
from bot.runtime.messenger import MESSAGE_LIMIT, split_text
from engine.cards import format_card, parse_cards, pretty_cards
from engine.errors import EngineError
from engine.hand import ActionTaken, Hand, HandConfig, RunItTwice, StreetDealt, deck_from_cards
from tests.engine.test_table_sim import random_action

NAMES = ("Alice", "Bartholomew the Magnificent", "Chen Wei 陈伟", "Dana", "Eitan", "Farah",
         "Gus", "Hana", "Ivan")
CARD = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")


def _played(hand: Hand, number: int = 7) -> PlayedHand:
    n = hand.n
    return PlayedHand(hand, number, seats=tuple(range(1, n + 1)), names=NAMES[:n],
                      seat_count=max(n, 6), button_seat=n, small_blind=hand.config.big_blind // 2)


def _random_hand(rng: random.Random, players: int, mode: RunItTwice) -> Hand:
    stacks = tuple(rng.choice([300, 1_000, 2_500, 8_000]) for _ in range(players))
    hand = Hand(HandConfig.standard(stacks, 25, 50, run_it_twice=mode),
                tuple(rng.sample(range(52), 52)))
    while not hand.is_over:
        if hand.run_choice_pending:
            hand.choose_run_count(rng.choice([1, 2]))
            continue
        legal = hand.legal()
        assert legal is not None
        if rng.random() < 0.05:
            # A player asks to show at the end, whatever comes.
            i = rng.randrange(players)
            if not hand.folded[i] and i not in hand.shown and i not in hand.show_requested:
                hand.show(i)
        random_action(hand, rng)
    result = hand.result
    assert result is not None
    if not result.showdown and rng.random() < 0.5:
        winner = max(range(players), key=lambda i: result.won[i])
        hand.show(winner)  # a winner who chooses to show
    return hand


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 9),
       mode=st.sampled_from(list(RunItTwice)))
def test_nothing_the_table_did_not_show_appears(seed: int, players: int,
                                                mode: RunItTwice) -> None:
    """No frame, caption, alt text or message holds a folded or mucked hand's card, nor any
    card that was not dealt to the board or shown."""
    hand = _random_hand(random.Random(seed), players, mode)
    result = hand.result
    assert result is not None
    shown = {i for i in result.shown if not hand.folded[i]}
    revealed = {format_card(c) for i in shown for c in hand.hole_cards(i)}
    dealt = {format_card(c) for board in hand.boards for c in board}
    hidden = {format_card(c) for i in range(players) if i not in shown
              for c in hand.hole_cards(i)}
    replay = build_replay(_played(hand))
    allowed = revealed | dealt
    for frame in replay.view.frames:
        view = frame.view
        assert set(view.board) | set(view.second_board) <= dealt
        for seat in view.seats:
            if seat is None:
                continue
            faces = {c for c in seat.cards if c is not None}
            assert faces <= revealed and not faces & hidden
            assert set(seat.best_five) | set(seat.second_best_five) <= allowed
        assert set(CARD.findall(frame.caption)) <= {pretty_cards([c]) for c in _cards(allowed)}
    texts = (replay_alt_text(replay.view), replay.text)
    symbols = {pretty_cards([c]) for c in _cards(allowed)}
    for text in texts:
        assert set(CARD.findall(text)) <= symbols, text
        for card in _cards(hidden):
            assert pretty_cards([card]) not in text


def _cards(strings: set[str]) -> list[int]:
    return [parse_cards(s)[0] for s in sorted(strings)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 9))
def test_every_action_and_street_is_a_step(seed: int, players: int) -> None:
    hand = _random_hand(random.Random(seed), players, RunItTwice.OFF)
    replay = build_replay(_played(hand))
    frames = replay.view.frames
    actions = [e for e in hand.events if isinstance(e, ActionTaken)]
    streets = [e for e in hand.events if isinstance(e, StreetDealt)]
    steps = [f for f in frames if not f.milestone]
    assert len(steps) == len(actions)
    assert frames[0].milestone and frames[-1].milestone
    assert frames[-1].view.has_results
    assert [f.view.board for f in frames][-1] == tuple(format_card(c) for c in hand.board)
    assert sum(1 for f in frames if f.milestone) >= 2 + len(streets)
    # Until the pots are pushed every chip is in a stack, a bet or a pot; then the stacks are
    # the hand's finishing stacks.
    total = sum(hand.config.stacks)
    for frame in frames[:-1]:
        view = frame.view
        assert sum(s.stack for s in view.seats if s) + view.pot_total == total
    result = hand.result
    assert result is not None
    final = [s.stack for s in frames[-1].view.seats if s]
    assert final == list(result.stacks)
    assert replay.lines[0].startswith("**Replay of hand #7**")


def _all_in_hand(mode: RunItTwice) -> Hand:
    """Three all-in before the flop, a fourth folding his kings."""
    holes = [parse_cards(h) for h in ("AsQs", "JhJc", "7c7d", "KhKd")]
    deck = deck_from_cards(4, holes, parse_cards("Ks8h3d9cQd"),
                           second_run=parse_cards("2h5c7h4s2c"))
    hand = Hand(HandConfig.standard((1_000, 2_000, 600, 3_000), 50, 100, run_it_twice=mode),
                deck)
    while hand.to_act is not None:
        legal = hand.legal()
        assert legal is not None
        if legal.player == 3:
            hand.fold(3)
        elif legal.can_raise:
            hand.go_all_in(legal.player)
        else:
            hand.call(legal.player)
    return hand


def test_an_all_in_run_out_shows_the_chances_at_each_street_of_both_runs() -> None:
    hand = _all_in_hand(RunItTwice.ALWAYS)
    replay = build_replay(_played(hand))
    frames = replay.view.frames
    chances = [f for f in frames if any(s and s.equity for s in f.view.seats)]
    # The hand went to showdown: every frame but the result carries the chances of its
    # street, from the deal through the first run's flop, turn and river and the second's
    # (all in before the flop, the runs share no card), the three live hands', never the
    # folded kings'.
    assert chances == list(frames[:-1])
    streets = [(len(f.view.board), len(f.view.second_board)) for f in chances]
    in_order = list(dict.fromkeys(streets))
    assert in_order == [(0, 0), (3, 0), (4, 0), (5, 0), (5, 3), (5, 4), (5, 5)]
    for frame in chances:
        assert [s.name for s in frame.view.seats if s and s.equity] == list(NAMES[:3])
    # Estimated before the flop, counted exactly from the flop on.
    exact = {(len(f.view.board), len(f.view.second_board)): {
        s.equity.exact for s in f.view.seats if s and s.equity} for f in chances}
    assert exact == {(0, 0): {False}, **{street: {True} for street in in_order[1:]}}
    final = frames[-1].view
    assert final.runs == 2 and {p.run for p in final.pots} == {1, 2}
    assert "on run 2" in replay.text and "the board is run twice" in replay.text
    assert "K♥" not in replay.text and "K♦" not in replay.text


def test_a_voided_or_unfinished_hand_has_no_replay() -> None:
    hand = Hand(HandConfig.standard((100, 100), 1, 2), tuple(range(52)))
    with pytest.raises(EngineError):
        _played(hand)
    hand.void()
    with pytest.raises(EngineError):
        _played(hand)


def _raising_war() -> Hand:
    """Six players, deep stacks, two of them raising the minimum back and forth: a hand of
    well over a hundred steps."""
    rng = random.Random(5)
    hand = Hand(HandConfig.standard((100_000,) * 6, 5, 10), tuple(rng.sample(range(52), 52)))
    raises = 0
    while not hand.is_over:
        legal = hand.legal()
        assert legal is not None
        if legal.player in (2, 3) and legal.can_raise and raises < 120:
            hand.raise_to(legal.player, legal.min_raise_to)
            raises += 1
        elif legal.to_call and legal.player not in (2, 3):
            hand.fold(legal.player)
        elif legal.to_call:
            hand.call(legal.player)
        else:
            hand.check(legal.player)
    return hand


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_six_player_replay_is_a_looping_gif_under_a_megabyte(seed: int) -> None:
    rng = random.Random(seed)
    hand = _random_hand(rng, 6, RunItTwice.ALWAYS)
    replay, image = replay_image(_played(hand))
    assert image.data.startswith(b"GIF89a") and image.filename == "replay.gif"
    assert len(image.data) <= MAX_BYTES
    with Image.open(io.BytesIO(image.data)) as gif:
        assert gif.n_frames == image.frames == len(replay.view.frames)
        assert gif.info.get("loop") == 0 and gif.size == (image.width, image.height)
    assert 0 < len(image.alt_text) <= ALT_TEXT_LIMIT
    assert image.alt_text.startswith("Replay of hand #7, blinds 25/50.")


def test_a_very_long_hand_still_fits() -> None:
    hand = _raising_war()
    replay, image = replay_image(_played(hand))
    assert len(replay.view.frames) > 120
    assert len(image.data) <= MAX_BYTES and image.frames <= 40
    assert len(image.alt_text) <= ALT_TEXT_LIMIT
    # The story is cut in the alt text, the outcome kept; the message has all of it, in pieces
    # a message holds.
    assert "…" in image.alt_text and " wins " in image.alt_text
    pieces = split_text(replay.text)
    assert len(pieces) > 1 and all(len(p) <= MESSAGE_LIMIT for p in pieces)
    assert "\n".join(pieces) == replay.text


def test_thinning_keeps_every_milestone() -> None:
    replay = build_replay(_played(_raising_war()))
    frames = replay.view.frames
    kept = thinned(frames, 40)
    assert len(kept) <= 40
    assert [f for f in frames if f.milestone] == [f for f in kept if f.milestone]
    assert kept[0] is frames[0] and kept[-1] is frames[-1]
    assert thinned(frames[:10], 40) == frames[:10]


def test_the_alt_text_keeps_the_outcome_when_the_story_is_too_long() -> None:
    view = build_replay(_played(_all_in_hand(RunItTwice.OFF))).view
    long = ReplayView(view.frames, view.title, tuple(f"Step {k}." * 5 for k in range(200)),
                      view.outcome)
    text = replay_alt_text(long)
    assert len(text) <= ALT_TEXT_LIMIT and text.startswith(view.title)
    assert text.endswith(" ".join(view.outcome)) and "…" in text


def test_a_frame_stays_a_sensible_time() -> None:
    view = build_replay(_played(_all_in_hand(RunItTwice.OFF))).view
    with pytest.raises(ValueError):
        ReplayFrame(view.frames[0].view, "", seconds=0)
    with pytest.raises(ValueError):
        ReplayView((), "title")
    assert render_replay(view).frames == len(view.frames)
