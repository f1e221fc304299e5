"""Hole cards are seen by their owner only: no verification output, no log line at any level
(in either log format) and no metric shows a hand that was never shown (issue 10, defects 4
and 5)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.storage import hands
from engine.cards import Card, format_card, format_cards, pretty_card, pretty_cards
from tests.e2e.game_kit import Game, running_game, settled
from tests.e2e.harness import World
from tests.e2e.ops_kit import ALLOWED_LABELS, get, label_names, samples
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.timeout(90)


def spellings(cards: tuple[Card, Card]) -> list[str]:
    """Every way the bot writes a pair of cards (and each card alone, but for the ones a board
    could also show: those are checked as a pair only)."""
    first, second = cards
    return [
        pretty_cards(cards),
        format_cards(cards),
        f"{format_card(first)} {format_card(second)}",
        f"{pretty_card(first)}, {pretty_card(second)}",
        f"[{first}, {second}]",
    ]


async def fold_around(game: Game) -> None:
    """Hand 1: the first player to act raises, everybody else folds."""
    hand = await game.wait_hand(1)
    raiser = await game.wait_turn()
    await game.ok(raiser, "raise", to=40)
    while not hand.is_over:
        await game.ok(await game.wait_turn(), "fold")
    await game.wait_result(1)


async def seat_three_and_deal(game: Game) -> None:
    alice = game.world.alice
    await game.ok(alice, "poker", "create")
    for user in game.world.users:
        await game.ok(user, "poker", "join", buy_in=1000)
    await game.ok(alice, "poker", "start")


async def test_verifying_a_hand_never_shows_a_folded_hand(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with running_game(fake, world, tmp_path) as game:
        await seat_three_and_deal(game)
        await fold_around(game)
        stored = await hands.load_hand(game.db, 1)  # the first hand of a new database
        n = len(stored.players)
        holes = {
            p.user_id: (stored.deck[p.player], stored.deck[p.player + n]) for p in stored.players
        }
        assert stored.result is not None and stored.result["shown"] == []
        for viewer in world.users:
            reply = await settled(
                await fake.slash(
                    viewer, game.channel, "history", subcommand="verify", options={"hand": 1}
                )
            )
            assert reply.ephemeral
            everything = reply.content + "".join(a.data.decode() for a in reply.attachments)
            # The whole deck in deal order is never printed.
            assert format_cards(stored.deck) not in everything
            # Everything but his own proofs file is for anyone: no hole card of anyone in it.
            public = "\n".join(
                [reply.content]
                + [a.data.decode() for a in reply.attachments if "my-cards" not in a.filename]
            )
            for owner, cards in holes.items():
                for spelling in spellings(cards):
                    if re.fullmatch(r"[0-9a-f]+", spelling):
                        continue  # "5d2c" reads as hex: it turns up inside the proofs' digests
                    assert spelling not in public, (viewer.name, owner, spelling)
            # His own two cards come in a file sent to him alone, and only his.
            (mine,) = [a for a in reply.attachments if "my-cards" in a.filename]
            proofs = mine.data.decode()
            assert all(format_card(c) in proofs for c in holes[viewer.id])
            for owner, cards in holes.items():
                if owner != viewer.id:
                    assert not any(f" {format_card(c)} " in proofs for c in cards)


async def test_no_log_line_at_any_level_holds_a_secret(
    fake: FakeDiscord, world: World, tmp_path: Path, every_log_line: list[str]
) -> None:
    await play_and_search_the_log(fake, world, tmp_path, every_log_line)


async def test_no_log_line_at_any_level_holds_a_secret_on_postgresql(
    fake: FakeDiscord, world: World, tmp_path: Path, every_log_line: list[str], postgres_url: str
) -> None:
    """asyncpg logs on its own; its records are searched the same way."""
    await play_and_search_the_log(fake, world, tmp_path, every_log_line, postgres_url)


async def play_and_search_the_log(
    fake: FakeDiscord,
    world: World,
    tmp_path: Path,
    every_log_line: list[str],
    database_url: str | None = None,
) -> None:
    """Two hands (one folded round, one shown down) with every logger at DEBUG and the
    metrics on; then no token, salt, deck or hole card nobody showed in any log line, nor in
    any metric's name, label or value (scraped with the cards in the players' hands, and after),
    and no label names a user, server, table or hand."""
    scraped: list[str] = []
    async with running_game(fake, world, tmp_path, database_url=database_url, metrics=True) as game:
        await seat_three_and_deal(game)
        await fold_around(game)
        await game.wait_hand(2)
        scraped.append((await get(game.bot, "/metrics"))[1])
        await game.passive_round(2)
        await game.wait_result(2)
        await game.wait_idle()
        scraped.append((await get(game.bot, "/metrics"))[1])
        table_id = game.live_table().table_id
        secrets: list[str] = [fake.token]
        stored_hands = [await hands.load_hand(game.db, hand_id) for hand_id in (1, 2)]
        for stored in stored_hands:
            secrets += [stored.deck_salt, format_cards(stored.deck), str(list(stored.deck))]
            shown = set(stored.result["shown"]) if stored.result else set()
            n = len(stored.players)
            for p in stored.players:
                if p.player not in shown:
                    secrets += spellings((stored.deck[p.player], stored.deck[p.player + n]))
    text = "\n".join(every_log_line)
    assert len(every_log_line) > 50  # the capture works: DEBUG lines were written
    for secret in secrets:
        assert secret not in text, secret
    # In JSON, the hand loop's lines name their table and hand: the deals of hands 1 and 2.
    entries = [json.loads(line) for line in every_log_line if line.startswith('{"time"')]
    dealt = [e for e in entries if " dealt to " in e["message"]]
    assert not entries or {1, 2} <= {e.get("hand") for e in dealt}, dealt
    assert all(e.get("table") == table_id and e.get("shard") == 0 for e in dealt), dealt
    for exposition in scraped:
        assert "poker_hands_dealt_total" in exposition  # the scrape works
        assert label_names(samples(exposition)) <= ALLOWED_LABELS
        for secret in secrets:
            assert secret not in exposition, secret
