"""Omaha hand histories: PHH's ``PO`` for Pot-Limit Omaha, and this project's ``PO5`` and
``PO/8`` (engine.phh's docstring): written, read back and replayed to the same stacks, ``PO``
also replayed by PokerKit, and ``python -m engine.phh`` checks files of every variant."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from pokerkit import HandHistory

from engine.errors import EngineError
from engine.games import PLO, PLO5, PLO8, Game
from engine.hand import Hand, PotAwarded
from engine.phh import dump_collection, dump_played_hand, load_hand, load_hands, replay
from engine.phh.__main__ import main
from tests.engine.pokerkit_oracle import (
    DiffStats,
    choose_action,
    random_config,
    random_deck,
    run_hand,
)


def played(game: Game, seed: int) -> Hand:
    rng = random.Random(f"phh-{game.code}-{seed}")
    # PHH has no dead blind (engine.phh refuses to write one).
    config = dataclasses.replace(random_config(rng, game), dead_blinds=())
    hand = Hand(config, random_deck(rng))
    while (legal := hand.legal()) is not None:
        hand.apply(choose_action(legal, rng, hand.config.chip_unit))
    return hand


@pytest.mark.parametrize("game", [PLO, PLO5, PLO8], ids=lambda g: g.code)
def test_played_hands_round_trip(game: Game) -> None:
    for seed in range(150):
        hand = played(game, seed)
        for reveal_all in (True, False):
            text = dump_played_hand(hand, reveal_all=reveal_all)
            assert f"variant = '{game.phh_variant}'" in text
            phh = load_hand(text)
            assert phh.config == hand.config
            again = replay(phh)
            assert again.stacks == hand.stacks and again.board == hand.board
            if reveal_all:
                assert phh.holes == tuple(hand.hole_cards(i) for i in range(hand.n))


def test_pokerkit_replays_our_pot_limit_omaha_files() -> None:
    # The hands the differential test compared to the end with no named case (PokerKit plays
    # those otherwise, and PHH has no dead blind): PokerKit's reader gets the same stacks.
    compared = 0
    for seed in range(200):
        duel = run_hand(seed, DiffStats(), game=PLO)
        if duel.case or duel.normalised or duel.config.dead_blinds:
            continue
        text = dump_played_hand(duel.hand, reveal_all=True)
        state = list(HandHistory.loads(text))[-1]
        assert list(state.stacks) == duel.hand.stacks, text
        compared += 1
    assert compared >= 150


@pytest.mark.parametrize("game", [PLO5, PLO8], ids=lambda g: g.code)
def test_pokerkit_refuses_the_variants_it_does_not_know(game: Game) -> None:
    text = dump_played_hand(played(game, 0), reveal_all=True)
    with pytest.raises((KeyError, ValueError)):
        list(HandHistory.loads(text))


HI_LO = """
variant = "PO/8"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = [
  "d dh p1 Ad3h9s9c", "d dh p2 KdKhJsTs", "d dh p3 ????????",
  "p3 f", "p1 cbr 6", "p2 cc",
  "d db 2c4d7h", "p1 cc", "p2 cc", "d db Ks", "p1 cc", "p2 cc", "d db Qc", "p1 cc", "p2 cc",
  "p1 sm Ad3h9s9c", "p2 sm KdKhJsTs",
]
finishing_stacks = [100, 100, 100]
"""


def test_a_written_hi_lo_file_splits_the_pot() -> None:
    hand = replay(load_hand(HI_LO))
    # 12 in the pot: kings take the high half, A-3 (7-4-3-2-A) the low half.
    assert hand.stacks == [100, 100, 100]
    awards = [(e.half, e.shares) for e in hand.events if isinstance(e, PotAwarded)]
    assert awards == [("high", ((1, 6),)), ("low", ((0, 6),))]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (HI_LO.replace("Ad3h9s9c", "Ad3h9s"), "the game deals 4 hole cards"),
        (HI_LO.replace('"PO/8"', '"PO5"'), "the game deals 5 hole cards"),
    ],
)
def test_hole_cards_must_fit_the_variant(text: str, reason: str) -> None:
    with pytest.raises(EngineError) as err:
        load_hand(text)
    assert err.value.code == "phh_bad_action" and err.value.params["reason"] == reason


def test_the_command_line_checks_every_variant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for game in (PLO, PLO5, PLO8):
        texts = [dump_played_hand(played(game, seed)) for seed in range(20)]
        (tmp_path / f"{game.code}.phhs").write_text(dump_collection(texts), encoding="utf-8")
        assert len(load_hands(dump_collection(texts))) == 20
    (tmp_path / "written.phh").write_text(HI_LO, encoding="utf-8")
    assert main(["check", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "61 hands, 61 match, 0 differ"
    assert main(["replay", "--json", str(tmp_path / "written.phh")]) == 0
    assert '"finishing_stacks": [100, 100, 100]' in capsys.readouterr().out
