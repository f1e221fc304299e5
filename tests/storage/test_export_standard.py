"""A session's export checked against a standard, and against the worst sessions.

- **Nets by PokerKit.** The PokerStars text of a session, read back by PokerKit 0.7.7
  (``HandHistory.from_pokerstars``, each hand played by PokerKit itself) and summed by
  ``pokerkit.analysis.Statistics.from_hand_history``, gives every player the net the ledger
  gives him (``bot.storage.sessions.session_ledger``). PokerKit reads No-Limit Hold'em only,
  without antes, straddles or a second board (tests/engine/test_pokerstars.py says why), and it
  gives a split pot's odd chip to the first winner where RULES.md gives it to the first left of
  the button: the session is Hold'em, and a deal whose pots PokerKit would split otherwise is
  dealt again (``export_kit.play_session``), so PokerKit's play must end where ours did.
- **Statistics by a second reading.** VPIP, PFR, 3-bet, went to showdown and won at showdown,
  counted from the exported text by a reading written here from the format alone (on the
  tests' reader, tests/engine/pokerstars_reader.py), equal what ``/chips stats`` reports
  (``bot.storage.stats.player_stats``), count for count.
- **No hidden card**, over random sessions of every game (Omaha and Hi-Lo, boards run twice):
  for every player of the session, every card in either format is a board card, a hand shown
  or his own.
- **100,000 hands**: refused at once when even the zip's directory would not fit the file
  Discord takes, without reading a hand; and the builder's count of the zip's size is the
  size it ends with.
"""

from __future__ import annotations

import asyncio
import random
import re
import tomllib
import warnings
import zipfile
from collections import Counter
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pokerkit import HandHistory
from pokerkit.analysis import Statistics

from bot.errors import BotError
from bot.runtime.export import SessionFacts, TableFacts, ZipBuilder
from bot.runtime.history import ExportAsk, export_of
from bot.storage import Database, economy, hands, sessions, stats
from engine.cards import format_card
from engine.games import NLHE, PLO, PLO5, PLO8
from engine.hand import RunItTwice
from tests.engine.pokerstars_reader import ReadHand, read_hand, split_hands

from .conftest import CHANNEL, GUILD
from .export_kit import HOSTILE_NAMES, play_session

USERS = (301, 302, 303, 304, 305)
TEN_MB = 10 * 1024 * 1024
NOBODY_LIVE = SimpleNamespace(find_in=lambda channel: None, tournament_in=lambda channel: None)
CARD_GROUP = re.compile(r"\[((?:[2-9TJQKA][cdhs] ?)+)\]")


async def exported_text(db: Database, user: int) -> str:
    built = await export_of(db, NOBODY_LIVE, ExportAsk(GUILD, CHANNEL, user, None, None, None,  # type: ignore[arg-type]
                                                       TEN_MB), "en", lambda c: "main")
    with zipfile.ZipFile(built.file.file) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".txt")]
        return archive.read(name).decode()


# --- the second reading ---------------------------------------------------------------------


def counted(read: ReadHand) -> dict[str, Counter[str]]:
    """What each player's line of ``/chips stats`` counts in one hand, from the text alone:

    - a hand played; VPIP: he called, bet or raised before the flop; PFR: he bet or raised
      then;
    - a 3-bet chance: he acted before the flop facing exactly one bet or raise beyond the
      blinds (the big blind opens), and a 3-bet: that act raised;
    - a flop seen: a flop was dealt and he had not folded before it; a showdown: the hand
      ended in one (a pot collected there) and he never folded; won at showdown: he collected
      something there.
    """
    figures = {name: Counter(hands=1) for name in read.seats}
    aggressive = 0
    for act in (a for a in read.acts if a.street == 0):
        mine = figures[act.name]
        if aggressive == 1:
            mine["three_bet_chances"] += 1
            mine["three_bets"] += act.verb in ("bets", "raises")
        aggressive += act.verb in ("bets", "raises")
        mine["vpip"] = max(mine["vpip"], int(act.verb in ("calls", "bets", "raises")))
        mine["pfr"] = max(mine["pfr"], int(act.verb in ("bets", "raises")))
    folded_before_flop = {a.name for a in read.acts if a.street == 0 and a.verb == "folds"}
    folded = {a.name for a in read.acts if a.verb == "folds"}
    showdown = any(section >= 1 for section, *_ in read.collected)
    collectors = {name for _, name, chips, _ in read.collected if chips > 0}
    for name, mine in figures.items():
        if read.boards[0] and name not in folded_before_flop:
            mine["flops"] += 1
        if showdown and name not in folded:
            mine["showdowns"] += 1
            mine["won_at_showdown"] += name in collectors
    return figures


async def test_nets_read_back_by_pokerkit_and_statistics_by_a_second_reading(
    db: Database,
) -> None:
    played = await play_session(db, random.Random(31), guild=GUILD, channel=CHANNEL,
                                users=USERS, hands_count=90,
                                names=dict(zip(USERS, HOSTILE_NAMES, strict=False)))
    text = await exported_text(db, USERS[0])
    blocks = split_hands(text)
    assert len(blocks) == 90
    seat_user = {seat: user for user, seat in zip(USERS, range(1, 6), strict=True)}
    reads = [read_hand(block) for block in blocks]
    user_of = {name: seat_user[seat] for name, seat in reads[0].seats.items()}

    with warnings.catch_warnings():
        # PokerKit warns about the time zone it keeps, and about folds where a check is free.
        warnings.simplefilter("ignore")
        histories = list(HandHistory.from_pokerstars(text, error_status=True))
        assert [h.hand for h in histories] == played.hand_ids
        by_pokerkit = Statistics.from_hand_history(*histories)
    ledger = await sessions.session_ledger(db, played.table_id)
    assert {p.user_id: p.net for p in ledger.players} == {
        user_of[name]: figures.payoff_sum for name, figures in by_pokerkit.items()
    }
    assert {user_of[name]: figures.sample_count for name, figures in by_pokerkit.items()} == {
        user: 90 for user in USERS
    }

    totals: dict[int, Counter[str]] = {user: Counter() for user in USERS}
    for read in reads:
        for name, figures in counted(read).items():
            totals[user_of[name]].update(figures)
    for user in USERS:
        mine, reported = totals[user], await stats.player_stats(db, GUILD, user)
        assert reported.hands_played == mine["hands"] == 90
        assert (reported.vpip.part, reported.vpip.whole) == (mine["vpip"], mine["hands"])
        assert (reported.pfr.part, reported.pfr.whole) == (mine["pfr"], mine["hands"])
        assert (reported.three_bet.part, reported.three_bet.whole) == (
            mine["three_bets"], mine["three_bet_chances"])
        assert (reported.wtsd.part, reported.wtsd.whole) == (mine["showdowns"], mine["flops"])
        assert (reported.wsd.part, reported.wsd.whole) == (
            mine["won_at_showdown"], mine["showdowns"])
    # The session is rich enough for the figures to mean something.
    everyone = sum(totals.values(), Counter())
    assert everyone["three_bets"] >= 5 and everyone["won_at_showdown"] >= 10


# --- no hidden card, over random sessions -------------------------------------------------------


def phh_cards(text: str) -> set[str]:
    found: set[str] = set()
    for action in tomllib.loads(text)["actions"]:
        token = action.split()[-1]
        if action.startswith(("d dh", "d db")) or " sm " in action:
            found |= {token[k:k + 2] for k in range(0, len(token), 2)} - {"??"}
    return found


async def check_no_hidden_card(data: st.DataObject) -> None:
    db = await Database.open("sqlite:///:memory:")
    try:
        await economy.ensure_guild(db, GUILD, now=1_000)
        count = data.draw(st.integers(2, 6), label="players")
        users = USERS[:count] if count <= len(USERS) else (*USERS, 306)
        game = data.draw(st.sampled_from((NLHE, PLO, PLO8, PLO5)), label="game")
        twice = data.draw(st.sampled_from((RunItTwice.OFF, RunItTwice.ALWAYS)), label="runs")
        names = dict(zip(users, data.draw(st.permutations(HOSTILE_NAMES)), strict=False))
        played = await play_session(
            db, random.Random(data.draw(st.integers(0, 2**32 - 1), label="seed")),
            guild=GUILD, channel=CHANNEL, users=users, names=names, game=game,
            run_it_twice=twice, hands_count=data.draw(st.integers(1, 6), label="hands"),
            pokerkit_splits=False)
        loaded = await hands.load_hands(db, played.hand_ids)
        for viewer in users:
            built = await export_of(db, NOBODY_LIVE, ExportAsk(  # type: ignore[arg-type]
                GUILD, CHANNEL, viewer, None, None, None, TEN_MB), "en", lambda c: "")
            with zipfile.ZipFile(built.file.file) as archive:
                files = {n: archive.read(n).decode() for n in archive.namelist()}
            text = next(body for name, body in files.items() if name.endswith(".txt"))
            for stored, block in zip(loaded, split_hands(text), strict=True):
                hand = hands.rebuild_hand(stored)
                assert hand.result is not None
                seen = {c for board in hand.boards for c in board}
                for p in stored.players:
                    if p.player in hand.result.shown or p.user_id == viewer:
                        seen |= set(hand.hole_cards(p.player))
                allowed = {format_card(c) for c in seen}
                written = {c for g in CARD_GROUP.findall(block) for c in g.split()}
                assert written <= allowed, (viewer, stored.hand_no)
                phh = next(body for name, body in files.items()
                           if name.endswith(f"-hand-{stored.hand_no}.phh"))
                assert phh_cards(phh) <= allowed, (viewer, stored.hand_no)
    finally:
        await db.close()


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_no_export_shows_a_card_its_asker_may_not_see(data: st.DataObject) -> None:
    asyncio.run(check_no_hidden_card(data))


# --- the biggest sessions -----------------------------------------------------------------------


async def test_a_session_of_100000_hands_is_refused_before_a_hand_is_read(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One hand stored, then 99,999 copies of its rows under new numbers (straight into the
    tables: the storage API would take minutes): the export counts them, sees that even the
    zip's directory passes Discord's 10 MB, and says how many hands may be asked for."""
    db = sqlite_db
    played = await play_session(db, random.Random(3), guild=GUILD, channel=CHANNEL,
                                users=USERS[:2], hands_count=1)
    (first,) = played.hand_ids
    async with db.write() as tx:
        await tx.execute(
            "WITH RECURSIVE n(k) AS (SELECT 2 UNION ALL SELECT k + 1 FROM n WHERE k < 100000)"
            " INSERT INTO hands (guild_id, table_id, hand_no, status, config, deck, deck_salt,"
            " deck_digest, deck_scheme, button_seat, chips, pot, result, started_at, ended_at,"
            " practice) SELECT guild_id, table_id, k, status, config, deck, deck_salt,"
            " deck_digest, deck_scheme, button_seat, chips, pot, result, started_at, ended_at,"
            " practice FROM hands, n WHERE hand_id = ?",
            (first,),
        )
        await tx.execute(
            "INSERT INTO hand_players (hand_id, player, guild_id, user_id, seat_no,"
            " starting_stack, final_stack, contributed, won, vpip, pfr, showdown)"
            " SELECT h.hand_id, p.player, p.guild_id, p.user_id, p.seat_no, p.starting_stack,"
            " p.final_stack, p.contributed, p.won, p.vpip, p.pfr, p.showdown"
            " FROM hands h, hand_players p WHERE p.hand_id = ? AND h.hand_id <> ?",
            (first, first),
        )

    async def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a hand was read")

    monkeypatch.setattr(hands, "load_hands", never)
    with pytest.raises(BotError) as caught:
        await export_of(db, NOBODY_LIVE, ExportAsk(  # type: ignore[arg-type]
            GUILD, CHANNEL, USERS[0], None, None, None, TEN_MB), "en", lambda c: "")
    assert caught.value.code == "export_too_large"
    fits = caught.value.params["fits"]
    assert 10_000 < fits < 100_000, fits


async def test_the_builder_knows_the_zips_size_before_it_ends(db: Database) -> None:
    """The size the build stops on is the zip's own: counted at every hand, it equals the
    size of the file the build ends with."""
    played = await play_session(db, random.Random(9), guild=GUILD, channel=CHANNEL,
                                users=USERS, hands_count=30)
    facts = SessionFacts(
        viewer_id=USERS[1], names={}, tables={played.table_id: TableFacts("main", 9)},
        small_blind_at=lambda level: 5, limit=TEN_MB, stem="s")
    builder = ZipBuilder(facts, list(USERS))
    for hand_id in played.hand_ids:
        builder.add(await hands.load_hands(db, [hand_id]))
    predicted = builder.size()
    built = builder.finish()
    try:
        assert built.size == predicted == len(built.file.read())
    finally:
        built.file.close()
