"""The runtime's pieces without Discord: the message catalog is complete, the presenter words
hands like the engine, quick raises are legal, and the ``POKER_*`` settings parse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.i18n import catalog, t
from bot.presenter import Scene, describe_rank, raise_targets, table_view
from bot.runtime.config import RuntimeOptions, RuntimeOptionsError, TableConfig
from bot.storage.errors import INTERNAL_CODES
from bot.storage.errors import __doc__ as storage_codes_doc
from engine.cards import FULL_DECK, parse_cards
from engine.evaluator import evaluate
from engine.hand import Hand, HandConfig
from engine.table import Table, TableOptions

REPO = Path(__file__).resolve().parents[2]
ENGLISH = catalog("en")


def _sources(*folders: str) -> str:
    return "\n".join(
        path.read_text(encoding="utf-8")
        for folder in folders
        for path in sorted((REPO / folder).rglob("*.py"))
    )


def test_every_refusal_code_has_one_sentence() -> None:
    """Engine, storage and bot refusals share one vocabulary: ``error.<code>`` per meaning."""
    sources = _sources("engine", "bot", "cogs")
    codes = set(re.findall(r'(?:Engine|Storage|Bot)Error\(\s*"([a-z_]+)"', sources))
    listed = (storage_codes_doc or "").split("Codes (stable):", 1)[1]
    codes |= set(re.findall(r"``([a-z_]+)``", listed))
    assert len(codes) > 100
    missing = {c for c in codes if c not in INTERNAL_CODES and f"error.{c}" not in ENGLISH}
    assert not sorted(missing)
    # No layer keeps a namespace of its own any more.
    assert not [key for key in ENGLISH if key.split(".")[0] in ("engine", "storage")]


def test_no_two_refusals_say_the_same_thing() -> None:
    sentences: dict[str, str] = {}
    for key, text in ENGLISH.items():
        if key.startswith("error."):
            assert text not in sentences, f"{key} repeats {sentences.get(text)}"
            sentences[text] = key


def test_every_message_the_bot_names_is_in_the_catalog() -> None:
    code = _sources("bot", "cogs")
    keys = set(re.findall(r'\bt\(\s*"([a-z_.]+)"', code))
    keys |= {f"error.{c}" for c in re.findall(r'BotError\(\s*"([a-z_]+)"', code)}
    assert len(keys) > 100
    assert not sorted(k for k in keys if k not in ENGLISH)


@pytest.mark.parametrize(
    "cards",
    ["AhJd 2c4d4h9sJc", "Kc9c6c3c8d Ac5h", "AsKsQsJsTs 2d3d", "5d4c3h2sAc9d9h", "7c7d7hKs2c"],
)
def test_hand_names_in_english_match_the_engine(cards: str) -> None:
    rank = evaluate(parse_cards(cards))
    assert describe_rank(rank, "en-US") == rank.describe()


def test_quick_raises_are_legal_raise_to_totals() -> None:
    hand = Hand(HandConfig.standard((1000, 1000, 1000), 5, 10), FULL_DECK)
    legal = hand.legal()
    assert legal is not None
    targets = dict(raise_targets(hand, legal))
    assert targets["raise_min"] == legal.min_raise_to == 20
    # Pot after calling 10 is 15 + 10 = 25: half pot raises to 10 + 12, pot to 10 + 25.
    assert targets["raise_half_pot"] == 22 and targets["raise_pot"] == 35
    assert all(legal.min_raise_to <= to <= legal.max_raise_to for to in targets.values())


def test_the_public_view_hides_every_hole_card() -> None:
    table = Table(TableOptions(small_blind=5, big_blind=10, seats=6), 3)
    for seat, player in enumerate((11, 22, 33), start=1):
        table.join(player, 1000, seat=seat)
    table.start_hand(FULL_DECK)
    view = table_view(Scene(table, {11: "a", 22: "b", 33: "c"}, table.hand_number))
    drawn = [seat.cards for seat in view.seats if seat is not None]
    assert drawn == [(None, None)] * 3
    assert len(view.seats) == 6 and sum(seat is not None for seat in view.seats) == 3


def test_runtime_options_come_from_the_environment(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("POKER_NEXT_HAND_DELAY=2.5\nPOKER_TIME_BANK=\n", encoding="utf-8")
    options = RuntimeOptions.from_env({"POKER_MIN_TIMER": "3"}, dotenv_path=env_file)
    assert options.next_hand_delay == 2.5 and options.min_timer == 3
    assert options.time_bank == RuntimeOptions().time_bank
    with pytest.raises(RuntimeOptionsError, match="POKER_TIME_BANK"):
        RuntimeOptions.from_env({"POKER_TIME_BANK": "soon"}, dotenv_path=None)
    with pytest.raises(RuntimeOptionsError, match="POKER_MIN_TIMER"):
        RuntimeOptions.from_env({"POKER_MIN_TIMER": "0"}, dotenv_path=None)


def test_table_config_round_trips_through_json() -> None:
    options = TableOptions(small_blind=5, big_blind=10)
    table = Table(options, 1)
    table.join(42, 500, seat=2)
    config = TableConfig(options, 30, dealing=True, locale="en-US", names={42: "ann"},
                         banks={42: 12.5}, pending=options.with_blinds(10, 20),
                         state=table.to_json())
    again = TableConfig.from_json(config.to_json())
    assert again == config
    title = t("table.title", "en-US", game=t("game.nlhe", "en-US"), hand=3, stakes="x")
    assert title.startswith("**Texas Hold'em**")


@pytest.mark.parametrize("locale", [None, "zh-TW", "zh-CN"])
def test_a_move_says_whether_the_table_broke_or_the_tables_were_balanced(
    locale: str | None,
) -> None:
    """A player moved because his table broke is told so in the thread he leaves, not that he
    moves to balance the tables (and the table he joins is told the same in both cases)."""
    from bot.presenter import News, TournamentScene, tournament_news
    from engine.tournament import PlayerMoved

    scene = TournamentScene("Sunday", locale, lobby=1, channels={1: 11, 2: 22}, moment=0.0)
    said: dict[str, list[News]] = {}
    for reason in ("balance", "table_broken"):
        said[reason] = tournament_news(
            PlayerMoved(7, from_table=1, from_seat=3, to_table=2, to_seat=5, stack=1500,
                        reason=reason), scene)
    words = dict(player="<@7>", table=2, channel="<#22>")
    assert [n.text for n in said["table_broken"] if n.to == 1] == [
        t("tournament.moved_out_broken", locale, **words)]
    assert [n.text for n in said["balance"] if n.to == 1] == [
        t("tournament.moved_out", locale, **words)]
    assert t("tournament.moved_out", locale, **words) != t(
        "tournament.moved_out_broken", locale, **words)
    assert [n for n in said["balance"] if n.to == 2] == [
        n for n in said["table_broken"] if n.to == 2]
