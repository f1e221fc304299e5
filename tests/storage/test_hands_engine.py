"""Real engine hands through storage: every unfinished hand rebuilds into the same state, and
every finished one exports as PHH that ``python -m engine.phh check`` accepts."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import engine.cards as engine_cards
import engine.hand as engine_hand
from bot.storage import Database, hands, invariant, tables
from bot.storage.hands import HandSeat, PlayerResult
from engine.commitment import DeckCommitment

from .conftest import GUILD, HOST

Action = engine_hand.Action
ActionKind = engine_hand.ActionKind
Hand = engine_hand.Hand
HandConfig = engine_hand.HandConfig


def _choose(hand: Any, rng: random.Random) -> Any:
    legal = hand.legal()
    p = legal.player
    choices = (
        [Action(ActionKind.CHECK, p)]
        if legal.can_check
        else [
            Action(ActionKind.FOLD, p),
            Action(ActionKind.CALL, p),
            Action(ActionKind.CALL, p),
        ]
    )
    if legal.can_raise:
        to = rng.choice(
            [
                legal.min_raise_to,
                legal.max_raise_to,
                rng.randint(legal.min_raise_to, legal.max_raise_to),
            ]
        )
        choices.append(Action(ActionKind.BET if legal.is_bet else ActionKind.RAISE, p, to))
    return rng.choice(choices)


def _state(hand: Any) -> list[Any]:
    """Everything observable, for every viewer, plus the replay log."""
    views = [hand.snapshot(v) for v in [None, *range(hand.config.players)]]
    return [views, list(hand.actions), list(hand.stacks), hand.board, hand.is_over]


def _player_results(hand: Any) -> list[PlayerResult]:
    n = hand.config.players
    won = [0] * n
    for pot in hand.result.pots:
        for player, chips in pot.shares:
            won[player] += chips
    vpip, pfr = [False] * n, [False] * n
    for event in hand.events:
        if type(event).__name__ == "StreetDealt":
            break
        if type(event).__name__ == "ActionTaken":
            kind = str(event.kind)
            vpip[event.player] |= kind in ("call", "bet", "raise", "all_in")
            pfr[event.player] |= kind in ("bet", "raise")
    contributed = [p["contributed"] for p in hand.snapshot()["players"]]
    return [
        PlayerResult(
            i,
            hand.result.stacks[i],
            contributed[i],
            won[i],
            vpip=vpip[i],
            pfr=pfr[i],
            showdown=hand.result.showdown and i in hand.result.shown,
        )
        for i in range(n)
    ]


async def _play_hands(db_path: Path, count: int, seed: int) -> tuple[list[int], int]:
    """Play ``count`` random hands, rebuilding from the database after every stored action
    (sometimes across a close and reopen); the finished hand ids and how many rebuilds matched.
    """
    rng = random.Random(seed)
    db = await Database.open(f"sqlite:///{db_path}")
    from bot.storage import economy

    await economy.ensure_guild(db, GUILD)
    finished: list[int] = []
    rebuilds = 0
    try:
        for k in range(count):
            n = rng.randint(2, 6)
            table = await tables.create_table(
                db, GUILD, 10_000 + k, HOST, config={}, min_buy_in=20, max_buy_in=2_000
            )
            users = [100_000 + 10 * k + i for i in range(n)]
            stacks = [rng.choice([20, 100, 400, 2_000]) for _ in range(n)]
            for user, stack in zip(users, stacks, strict=True):
                await tables.buy_in(db, table.table_id, user, stack)
            config = HandConfig.standard(stacks, 5, 10)
            deck = engine_cards.shuffled_deck()
            commitment = DeckCommitment.commit(deck)
            hand_id = await hands.start_hand(
                db,
                table.table_id,
                config=config,
                deck=deck,
                commitment=commitment,
                players=[HandSeat(i, i + 1, users[i], stacks[i]) for i in range(n)],
            )
            hand = Hand(config, deck)
            while not hand.is_over:
                before = len(hand.actions)
                hand.apply(_choose(hand, rng))
                await hands.append_actions(db, hand_id, before, hand.actions[before:])
                if rng.random() < 0.2:
                    # A restart: the rebuilt hand must come from the file alone.
                    await db.close()
                    db = await Database.open(f"sqlite:///{db_path}")
                stored = await hands.load_hand(db, hand_id)
                assert _state(hands.rebuild_hand(stored)) == _state(hand)
                rebuilds += 1
            await hands.record_hand_result(
                db,
                hand_id,
                {"stacks": list(hand.result.stacks), "net": list(hand.result.net)},
                _player_results(hand),
            )
            finished.append(hand_id)
            report = await invariant.check_invariant(db)
            assert report.ok, report
    finally:
        await db.close()
    return finished, rebuilds


async def test_unfinished_hands_rebuild_and_finished_hands_export(
    db_path: Path, tmp_path: Path
) -> None:
    finished, rebuilds = await _play_hands(db_path, 25, seed=2024)
    assert rebuilds > 25
    db = await Database.open(f"sqlite:///{db_path}")
    out = tmp_path / "phh"
    out.mkdir()
    try:
        for hand_id in finished:
            stored = await hands.load_hand(db, hand_id)
            text = await hands.export_phh(db, hand_id, reveal_all=hand_id % 2 == 0)
            assert f"finishing_stacks = {list(stored.final_stacks or ())}" in text
            (out / f"hand-{hand_id}.phh").write_text(text, encoding="utf-8")
    finally:
        await db.close()
    check = subprocess.run(
        [sys.executable, "-m", "engine.phh", "check", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    last = check.stdout.strip().splitlines()[-1]
    assert last.startswith(f"{len(finished)} hands, {len(finished)} match"), last


async def test_finished_hands_export_as_pokerstars_text_for_each_asker(db_path: Path) -> None:
    """``export_pokerstars`` writes the stored hand, numbered by its storage id, with the
    players at their seats and only the asker's own hole cards beside the hands shown."""
    from engine.cards import format_card
    from tests.engine.pokerstars_reader import chip_flow, read_hand

    finished, _ = await _play_hands(db_path, 8, seed=77)
    db = await Database.open(f"sqlite:///{db_path}")
    try:
        for hand_id in finished:
            stored = await hands.load_hand(db, hand_id)
            hand = hands.rebuild_hand(stored)
            assert hand.result is not None
            players = sorted(stored.players, key=lambda p: p.player)
            names = [f"user {p.user_id}" for p in players]
            shown = {format_card(c) for j in hand.result.shown for c in hand.hole_cards(j)}
            board = {format_card(c) for b in hand.boards for c in b}
            for asker in (None, *(p.user_id for p in players)):
                text = await hands.export_pokerstars(
                    db, hand_id, names=names, table_name="Main", max_seats=6, small_blind=5,
                    viewer_id=asker,
                )  # fmt: skip
                read = read_hand(text)
                assert read.hand == hand_id and read.play_money
                assert read.seats == {f"user_{p.user_id}": p.seat_no for p in players}
                flow = chip_flow(read)
                assert [flow[f"user_{p.user_id}"] for p in players] == [
                    p.final_stack for p in players
                ]
                own = {
                    format_card(c)
                    for p in players
                    if p.user_id == asker
                    for c in hand.hole_cards(p.player)
                }
                dealt = {format_card(c) for cards in read.dealt.values() for c in cards}
                assert dealt == own
                cards = re.findall(r"\[((?:[2-9TJQKA][cdhs] ?)+)\]", text)
                written = {c for group in cards for c in group.split()}
                assert written == shown | board | own
    finally:
        await db.close()
