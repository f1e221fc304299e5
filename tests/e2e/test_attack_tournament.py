"""Tournaments against the worst members of a server: each bad input or edge case of the issue,
refused with one clear ephemeral sentence that changes nothing (the whole database is compared
before and after), or played through without losing a chip or a place."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from bot.amounts import MAX_CHIPS
from bot.errors import BotError, coded_message
from bot.i18n import t
from bot.runtime.tourney import LiveTournament
from bot.storage import Database, economy, invariant, tournaments
from engine.hand import ActionKind, ActionTaken, Hand, RunItTwice, StraddleMode
from tests.attack.kit import press
from tests.e2e.game_kit import (
    STARTING_BALANCE,
    Game,
    button_id,
    press_answer,
    settled,
    until,
)
from tests.e2e.harness import World
from tests.e2e.tournament_kit import (
    Players,
    always_all_in,
    assert_no_hidden_card_in_public,
    assert_settled,
    big_world,
    check_or_fold,
    create,
    members,
    quiet,
    register,
    tournament,
    tournament_of,
    wait_over,
)
from tests.fakediscord import FakeChannel, FakeUser

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def world() -> World:
    """The usual three members and one more, for two full tables of two."""
    return big_world(1)


# What a refusal must not touch (the interaction itself may note the server and the user's
# language, leases renew on their own, a running tournament's clock notes it is alive, and a
# table notes the id of its message whenever it is posted again).
GAME_TABLES = {
    name: f"SELECT * FROM {name}"
    for name in ("wallets", "ledger", "tournament_entries", "hands", "hand_players",
                 "hand_actions", "seats")
}
GAME_TABLES["poker_tables"] = (
    "SELECT table_id, guild_id, channel_id, host_id, config, min_buy_in, max_buy_in,"
    " chip_unit, max_seats, hand_count, status, created_at, closed_at, session_entry,"
    " session_hand, session_started_at, session_reset_by, tournament_id, table_no"
    " FROM poker_tables"
)
GAME_TABLES["tournaments"] = (
    "SELECT tournament_id, guild_id, channel_id, host_id, name, kind, buy_in, max_players,"
    " entrants, pool, config, state, status, starts_at, created_at, started_at, ended_at"
    " FROM tournaments"
)


async def snapshot(db: Database) -> dict[str, object]:
    return {name: sorted((tuple(r) for r in await db.fetchall(sql)), key=repr)
            for name, sql in GAME_TABLES.items()}


async def refused(game: Game, user: FakeUser, subcommand: str, expected: str,
                  channel: FakeChannel | None = None, **options: Any) -> None:
    """``/tournament <subcommand>`` is refused with ``expected`` and changes nothing."""
    before = await snapshot(game.db)
    reply = await tournament(game, user, subcommand, channel, **options)
    assert reply == expected, reply
    assert await snapshot(game.db) == before


async def slash_refused(game: Game, user: FakeUser, name: str, subcommand: str | None,
                        expected: str, channel: FakeChannel | None = None,
                        **options: Any) -> None:
    before = await snapshot(game.db)
    handle = await game.fake.slash(user, channel or game.channel, name, subcommand=subcommand,
                                   options=options)
    reply = await settled(handle)
    assert reply.ephemeral and reply.content == expected, reply.content
    assert await snapshot(game.db) == before


def coded(key: str, params: dict[str, Any]) -> str:
    """The refusal as the bot words it (amounts with separators, options by their label)."""
    error = BotError(key.removeprefix("error."), **params)
    return coded_message(error, "en")[0]


async def dealt(live: LiveTournament) -> None:
    """Until the tables that can play have their first hand: then nothing changes until
    somebody acts (long levels, a long decision timer), and a refusal can be compared."""
    await until(lambda: all(tb.hand is not None for tb in live.tables.values()
                            if len(tb.table.seats()) >= 2), what="the first hands")


async def entrants(db: Database, tid: int) -> int:
    return (await tournaments.get_tournament(db, tid)).entrants


async def test_registering_twice_takes_one_buy_in(game: Game) -> None:
    alice = game.world.alice
    live = await create(game, alice)
    await register(game, alice)
    await refused(game, alice, "register", t("error.already_registered"))
    assert await game.balance(alice) == STARTING_BALANCE - 100
    assert await entrants(game.db, live.tournament_id) == 1


async def test_a_buy_in_above_the_wallet_is_refused(game: Game) -> None:
    alice = game.world.alice
    await create(game, alice, buy_in=STARTING_BALANCE + 1)
    await refused(game, alice, "register", t("error.insufficient_funds", balance="10,000",
                                             amount="10,001"))


async def test_start_needs_two_players(game: Game) -> None:
    alice = game.world.alice
    await create(game, alice)
    await refused(game, alice, "start", t("error.not_enough_players"))
    await register(game, alice)
    await refused(game, alice, "start", t("error.not_enough_players"))


async def test_unregister_after_the_start_is_refused_and_before_it_refunds(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice)
    await register(game, alice, bob, carol)
    reply = await tournament(game, carol, "unregister")
    assert reply.startswith("You're no longer registered"), reply
    assert await game.balance(carol) == STARTING_BALANCE
    await refused(game, carol, "unregister", t("error.not_registered"))
    await game.ok(alice, "tournament", "start")
    await until(lambda: live.tables.get(1) is not None and live.tables[1].hand)
    # Nobody leaves once the cards are in the air (and a hand may be stored meanwhile).
    reply = await tournament(game, bob, "unregister")
    assert reply == t("error.registration_closed")
    assert await game.balance(bob) == STARTING_BALANCE - 100


async def test_registration_closes_at_the_end_of_the_late_levels(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure="10/20 0.05, 20/40 10", late_levels=1)
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    await until(lambda: live.state.level >= 2, timeout=15, what="level 2")
    await refused(game, carol, "register", t("error.registration_closed"))
    assert await game.balance(carol) == STARTING_BALANCE


async def test_a_late_entrant_is_seated_at_once(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure="10/20 10", late_levels=1)
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    reply = await tournament(game, carol, "register")
    assert "Late registration: you play at table 1" in reply, reply
    assert live.state.table_of(carol.id) == 1
    assert (await tournaments.get_tournament(game.db, live.tournament_id)).pool == 300


@pytest.mark.parametrize(
    ("structure", "key", "params"),
    [
        ("50/100 10, 25/50 10", "error.structure_big_blind_lower",
         {"level": 2, "big_blind": "50", "previous": "100"}),
        ("25/50 x, 50/100", "error.structure_syntax", {"item": 1, "text": "25/50 x"}),
        ("break 5, 25/50", "error.structure_break_position", {"level": 0}),
        ("quick", "error.unknown_structure",
         {"name": "quick", "choices": "turbo, regular, deep"}),
    ],
)
async def test_a_bad_structure_is_refused_with_its_reason(
    game: Game, structure: str, key: str, params: dict[str, Any]
) -> None:
    expected = t(key, **params)
    await refused(game, game.world.alice, "create", expected, name="Bad", kind="freeze_out",
                  buy_in=100, starting_stack=1000, structure=structure)
    assert tournament_of(game) is None


async def test_bad_times_and_payouts_are_refused(game: Game) -> None:
    alice = game.world.alice
    base = {"name": "T", "buy_in": 100, "starting_stack": 1000}
    await refused(game, alice, "create", t("error.ends_at_past", ends_at=1_000_000_000),
                  kind="time_limited", ends_at="<t:1000000000:f>", **base)
    await refused(game, alice, "create", t("error.ends_at_missing"), kind="time_limited",
                  **base)
    await refused(game, alice, "create", t("error.ends_at_freeze_out"), kind="freeze_out",
                  ends_at="2h", **base)
    await refused(game, alice, "create", t("error.bad_time", option="end time"),
                  kind="time_limited", ends_at="tomorrow-ish", **base)
    await refused(game, alice, "create", t("error.payouts_sum", total="90"),
                  kind="freeze_out", payouts="50, 40", **base)
    await refused(game, alice, "create", t("error.starts_at_past", starts_at=1_000_000_000),
                  kind="freeze_out", starts_at="1000000000", **base)
    # What a crafted request carries past Discord's client: refused, never a crash.
    await refused(game, alice, "create", t("error.bad_tournament_name", maximum=100),
                  kind="freeze_out", **{**base, "name": "   "})
    await refused(game, alice, "create", t("error.bad_option", option="kind"),
                  kind="shootout", **base)
    await refused(game, alice, "create",
                  t("error.out_of_range", option="seats per table", minimum=2, maximum=10),
                  kind="freeze_out", seats_per_table=11, **base)


async def test_only_the_host_runs_the_tournament(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, bob)
    await register(game, bob, carol)
    not_host = t("error.not_tournament_host")
    for command in ("start", "pause", "resume", "cancel"):
        await refused(game, carol, command, not_host)
    # The host starts it; a member with Manage Server (the owner, alice) may act as the floor.
    await game.ok(bob, "tournament", "start")
    await game.ok(alice, "tournament", "pause")
    assert live.state.paused
    await refused(game, carol, "resume", not_host)
    await game.ok(bob, "tournament", "resume")


async def test_two_tournaments_in_one_channel_are_refused(game: Game) -> None:
    alice = game.world.alice
    await create(game, alice)
    await refused(game, alice, "create", t("error.channel_has_tournament"), name="Second",
                  kind="freeze_out", buy_in=10, starting_stack=1000)
    lobby = game.world.guild.channel("lobby")
    await refused(game, alice, "create", t("error.tournament_name_taken", name="Friday"),
                  lobby, name="Friday", kind="freeze_out", buy_in=10, starting_stack=1000)


async def test_no_cash_table_where_a_tournament_plays(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, seats_per_table=2, max_players=4, structure="10/20 10")
    await slash_refused(game, alice, "poker", "create", t("error.channel_has_tournament"))
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    threads = game.fake.threads_of(game.channel)
    assert len(threads) == 2
    await dealt(live)
    # Not in its threads either, and a cash command at its table says where it is.
    for thread in threads:
        await slash_refused(game, alice, "poker", "create", t("error.channel_has_tournament"),
                            thread)
    await slash_refused(game, bob, "poker", "join", t("error.not_in_tournament"), threads[0])
    await slash_refused(game, bob, "poker", "rebuy", t("error.not_in_tournament"), threads[0],
                        amount=100)
    # And no tournament where a cash table plays.
    lobby = game.world.guild.channel("lobby")
    await game.ok(alice, "poker", "create", channel=lobby)
    await refused(game, alice, "create", t("error.channel_has_table"), lobby, name="Cash",
                  kind="freeze_out", buy_in=10, starting_stack=1000)
    assert live.running


async def test_a_tournament_is_not_opened_in_a_thread(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, seats_per_table=2, max_players=4, structure="10/20 10")
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    await dealt(live)
    thread = game.fake.threads_of(game.channel)[0]
    await refused(game, bob, "create", t("error.tournament_in_thread"), thread, name="Inner",
                  kind="freeze_out", buy_in=10, starting_stack=1000)


async def test_a_player_who_leaves_the_server_stays_in_and_is_blinded_off(game: Game) -> None:
    """He is dealt in until eliminated; the clock checks or folds for him; twice in a row
    marks him away (the clock then acts at once), and he still gets his place."""
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, timer=1, structure="50/100 10")
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    game.world.guild.members.remove(carol)  # gone from the server: he never acts again
    players = Players(game, live, idle=frozenset({carol.id}))
    await players.play_until(lambda: live.state.is_absent(carol.id) or live.closed,
                             timeout=60)
    if not live.closed:
        away = await game.fake.wait_for_message(
            lambda m: m.content.startswith(f"<@{carol.id}> ran out of time twice"),
            channel=game.channel, timeout=10)
        assert away.custom_ids()  # the "I'm back" button
        assert carol.id in live.state.players_left()
    await players.play_until(lambda: live.closed, timeout=90)
    info = await wait_over(game, live)
    await assert_settled(game, info)
    assert any(e.user_id == carol.id and e.place is not None for e in info.entries)
    await assert_no_hidden_card_in_public(game, live)


async def test_cancel_mid_hand_refunds_every_buy_in(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure="10/20 10")
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    await until(lambda: live.tables[1].hand, what="a hand")
    reply = await tournament(game, alice, "cancel")
    assert reply == t("reply.tournament_cancelled", players=3, amount="300")
    for user in (alice, bob, carol):
        assert await game.balance(user) == STARTING_BALANCE
    info = await tournaments.get_tournament(game.db, live.tournament_id)
    assert (info.status, info.pool) == ("cancelled", 0)
    await game.fake.wait_for_message(lambda m: "was cancelled by" in m.content,
                                     channel=game.channel)
    report = await invariant.check_invariant(game.db)
    assert report.ok, report
    # Nothing more happens at its table.
    await slash_refused(game, alice, "fold", None, t("error.no_table"))
    # The hand called off showed nobody's cards.
    assert await assert_no_hidden_card_in_public(game, live) >= 3


def first_folds_then_all_in(hand: Hand, rng: random.Random) -> str:
    """The first to act folds, the blinds go all-in: one player out, two left (or a split)."""
    if not any(isinstance(e, ActionTaken) for e in hand.events):
        return "fold"
    return always_all_in(hand, rng)


async def test_cancel_after_an_elimination_refunds_the_eliminated_too(game: Game) -> None:
    """Whatever the stage: the player already out gets his buy-in back like the others, and
    the chips in play are worth nothing."""
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure="10/20 10")
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    await Players(game, live, policy=first_folds_then_all_in).play_until(
        lambda: len(live.state.players_left()) == 2)
    (out,) = {alice.id, bob.id, carol.id} - set(live.state.players_left())
    reply = await tournament(game, alice, "cancel")
    assert reply == t("reply.tournament_cancelled", players=3, amount="300")
    for user in (alice, bob, carol):
        assert await game.balance(user) == STARTING_BALANCE, (user.name, user.id == out)
    info = await tournaments.get_tournament(game.db, live.tournament_id)
    assert (info.status, info.pool) == ("cancelled", 0)
    assert all(e.prize is None for e in info.entries)
    report = await invariant.check_invariant(game.db)
    assert report.ok, report


async def test_an_absent_player_comes_back_with_the_button(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, timer=1, structure="10/20 10")
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    players = Players(game, live, idle=frozenset({bob.id}))
    await players.play_until(lambda: live.state.is_absent(bob.id), timeout=30)
    away = await game.fake.wait_for_message(
        lambda m: m.content.startswith(f"<@{bob.id}> ran out of time twice"),
        channel=game.channel, timeout=10)
    (back,) = [cid for cid in away.custom_ids() if cid.endswith(":back")]
    handle = await game.fake.click(bob, away, back)
    assert (await settled(handle)).content == t("reply.sat_in")
    assert not live.state.is_absent(bob.id)
    # Stored: a restart would know it.
    info = await tournaments.get_tournament(game.db, live.tournament_id)
    assert bob.id not in info.state["absent"]


async def test_a_table_where_everyone_is_away_goes_at_the_clocks_pace(game: Game) -> None:
    """Two absent players were each acted for at once: their heads-up table dealt and folded
    hand after hand as fast as the channel took it, for ever, trading the blinds. With every
    person dealt in away, each decision waits for the clock as anyone's does."""
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, timer=1, structure="10/20 10")
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    players = Players(game, live, idle=frozenset({alice.id, bob.id}))
    await players.play_until(
        lambda: live.state.is_absent(alice.id) and live.state.is_absent(bob.id),
        timeout=60)
    (table,) = live.tables.values()
    first = table.table.hand_number
    await asyncio.sleep(3.0)  # the time under test: three seconds of a one-second clock
    assert table.table.hand_number - first <= 4, table.table.hand_number - first
    assert not live.closed and len(live.state.players_left()) == 2


async def test_pause_stops_the_clock_and_the_dealing_everywhere(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, seats_per_table=2, max_players=4,
                          structure="10/20 0.5, 20/40 10")
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    await game.ok(alice, "tournament", "pause")
    dealt = {n: tb.table.hand_number for n, tb in live.tables.items()}
    players = Players(game, live, policy=always_all_in)
    # Hands in progress may be played out; no new one is dealt while paused.
    await players.play_until(lambda: all(tb.hand is None for tb in live.tables.values()),
                             timeout=20)
    await asyncio.sleep(1.0)
    after = {n: tb.table.hand_number for n, tb in live.tables.items()}
    assert all(after[n] <= dealt[n] for n in after)
    frozen = live.state.seconds_to_next_level(time.time())
    await asyncio.sleep(0.5)
    assert live.state.seconds_to_next_level(time.time()) == frozen
    for thread in game.fake.threads_of(game.channel):
        await game.fake.wait_for_message(lambda m: "is paused" in m.content, channel=thread)
    await game.ok(alice, "tournament", "resume")
    await until(lambda: any(tb.hand for tb in live.tables.values()), what="a new hand")


async def test_a_break_stops_the_dealing_until_the_next_level(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, structure="10/20 0.05, break 0.05, 20/40 10")
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    # Nobody risks his stack: heads-up, one all-in could end it before the break.
    players = Players(game, live, policy=check_or_fold)
    await players.play_until(lambda: live.state.on_break, timeout=20)
    await game.fake.wait_for_message(lambda m: m.content.startswith("Break!"),
                                     channel=game.channel)
    # The hand in progress when the break began is played out; the next one waits for level 2.
    await players.play_until(lambda: live.tables[1].hand is None, timeout=20)
    last = live.tables[1].table.hand_number
    await players.play_until(lambda: live.state.level == 2, timeout=20)
    await until(lambda: live.tables[1].hand, what="a hand at level 2")
    hand = live.tables[1].hand
    assert hand is not None and hand.config.big_blind == 40
    assert live.tables[1].table.hand_number == last + 1
    row = await game.db.fetchone("SELECT level FROM hands WHERE table_id = ? AND hand_no = ?",
                                 (live.tables[1].table_id, last + 1))
    assert row is not None and row[0] == 2


async def test_home_game_extras_are_refused_at_a_tournament_table(game: Game) -> None:
    """Tournament rules: no bomb pot, straddle, run it twice or rabbit hunt, no sitting out,
    no session ledger; each refusal says which rule, and the hands stay plain."""
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure="10/20 10")
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    table = await until(lambda: live.tables.get(1), what="table 1")
    hand = await until(lambda: table.hand, what="a hand")
    rules = t("error.tournament_rules")
    await slash_refused(game, alice, "poker", "bomb", rules, amount=50)
    await slash_refused(game, alice, "poker", "settings", rules, straddle="always")
    await slash_refused(game, alice, "poker", "settings", rules, run_it_twice="always")
    await slash_refused(game, alice, "poker", "settings", rules, bomb_every=3)
    await slash_refused(game, alice, "poker", "settings", t("error.not_in_tournament"),
                        timer=20)
    no_sitout = t("error.tournament_no_sitout")
    await slash_refused(game, bob, "poker", "sitout", no_sitout)
    await slash_refused(game, bob, "poker", "sitout", no_sitout, next_big_blind=True)
    await slash_refused(game, bob, "poker", "ledger", t("error.tournament_no_ledger"))
    await slash_refused(game, alice, "poker", "ledger", t("error.tournament_no_ledger"),
                        reset=True)
    # Forged presses of the extras' buttons (never drawn here) get the kind's reason too.
    await table.flush(10)
    assert table.message_id is not None
    ref = f"@{table.table.hand_number}.0"
    for action in ("rabbit", "run_twice", "run_once", "straddle_next", "straddle_always"):
        forged = f"poker:{table.table_id}:{action}{ref}"
        message = game.fake.message(table.message_id)
        answer = await settled(await press(game.fake, bob, message, forged))
        assert answer.content == rules, (action, answer.content)
    options = table.table.options
    assert (options.straddle, options.run_it_twice) == (StraddleMode.OFF, RunItTwice.OFF)
    config = hand.config
    assert (config.straddle_index, config.bomb_pot, config.run_it_twice) == (
        None, False, RunItTwice.OFF)
    # Played to the end all-in: no run-it-twice vote, straddle or rabbit button is ever drawn.
    await Players(game, live, policy=always_all_in).play_until(lambda: live.closed)
    await assert_settled(game, await wait_over(game, live))
    await quiet(live)
    drawn = {cid.split(":")[2].split("@")[0] for event in game.fake.events
             if event.message.channel_id == game.channel.id
             for cid in event.message.custom_ids()}
    assert drawn and not drawn & {"run_twice", "run_once", "straddle_next", "straddle_always",
                                  "rabbit"}


@pytest.mark.parametrize(
    ("change", "key", "params"),
    [
        # 0 is a freeroll: a negative buy-in is refused without saying "more than zero".
        ({"buy_in": -5}, "error.amount_negative", {"option": "buy_in"}),
        ({"buy_in": "abc"}, "error.amount_not_whole", {"option": "buy_in"}),
        ({"buy_in": 10**13}, "error.amount_too_large",
         {"option": "buy_in", "maximum": 10**12}),
        ({"starting_stack": 0}, "error.amount_not_positive", {"option": "starting_stack"}),
        ({"starting_stack": 10, "structure": "100/200 10"},
         "error.starting_stack_below_big_blind", {"stack": 10, "minimum": 200}),
        ({"max_players": 10**6}, "error.out_of_range",
         {"option": "max_players", "minimum": 2, "maximum": 1000}),
        ({"max_players": True}, "error.out_of_range",
         {"option": "max_players", "minimum": 2, "maximum": 1000}),
        ({"seats_per_table": 1}, "error.out_of_range",
         {"option": "seats_per_table", "minimum": 2, "maximum": 10}),
        ({"late_levels": -1}, "error.out_of_range",
         {"option": "late_levels", "minimum": 0, "maximum": 100}),
        ({"level_minutes": 1e9}, "error.out_of_range",
         {"option": "level_minutes", "minimum": 0.1, "maximum": 240}),
        ({"level_minutes": 0.01}, "error.out_of_range",
         {"option": "level_minutes", "minimum": 0.1, "maximum": 240}),
        ({"timer": 0}, "error.out_of_range", {"option": "timer", "minimum": 1, "maximum": 300}),
        ({"structure": ", ".join(["10/20 1"] * 300)}, "error.text_too_long",
         {"option": "structure", "maximum": 1000}),
        ({"payouts": "100, -5"}, "error.payouts_syntax", {"place": 2, "text": "-5"}),
        ({"name": "x" * 101}, "error.bad_tournament_name", {"maximum": 100}),
        ({"kind": "time_limited", "ends_at": "99999999999"}, "error.time_too_far",
         {"option": "ends_at", "days": 366}),
    ],
)
async def test_odd_numbers_and_texts_at_create_are_refused_with_their_reason(
    game: Game, change: dict[str, Any], key: str, params: dict[str, Any]
) -> None:
    """What a crafted request can carry past Discord's client: each refused by name."""
    base: dict[str, Any] = {"name": "T", "kind": "freeze_out", "buy_in": 100,
                            "starting_stack": 1000}
    await refused(game, game.world.alice, "create", coded(key, params), **{**base, **change})
    assert tournament_of(game) is None


async def test_a_double_press_and_a_press_for_another_player_at_a_tournament_table(
    game: Game,
) -> None:
    """The player to act presses Call twice: one call, the other press is for a decision
    already made. His opponent pressing his Fold is refused and changes nothing."""
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, structure="10/20 10")
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    table = await until(lambda: live.tables.get(1), what="table 1")
    hand = await until(lambda: table.hand, what="hand 1")
    first = game.fake.users[table.player_of(hand.to_act or 0)]
    other = bob if first is alice else alice
    message_id = await until(lambda: table.messenger.message_id, what="the table message")
    message = await game.fake.wait_for_message(
        lambda m: m.id == message_id and f"{first.mention} to act" in m.content,
        channel=game.channel)
    before = await snapshot(game.db)
    handle = await game.fake.click(other, message, button_id(message, "fold"))
    assert await press_answer(handle) == t("error.not_your_turn")
    assert await snapshot(game.db) == before
    call = button_id(message, "call")
    presses = await asyncio.gather(game.fake.click(first, message, call),
                                   game.fake.click(first, message, call))
    answers = sorted([await press_answer(p) for p in presses])
    assert answers[0] == t("error.already_acted"), answers
    calls = [e for e in hand.events if isinstance(e, ActionTaken)
             and e.kind is ActionKind.CALL]
    assert len(calls) == 1 and hand.to_act is not None
    assert table.player_of(hand.to_act) == other.id


async def test_nobody_acts_or_sees_cards_at_a_table_he_does_not_play_at(game: Game) -> None:
    """Two tables in two threads: a player of one cannot act or ask for cards at the other;
    each refusal is his alone and changes nothing."""
    live = await create(game, game.world.alice, seats_per_table=2, max_players=4,
                          structure="10/20 10")
    await register(game, *members(game.world)[:4])
    await game.ok(game.world.alice, "tournament", "start")
    tables = await until(lambda: len(live.tables) == 2 and all(
        tb.hand for tb in live.tables.values()) and live.tables, what="two hands")
    one, two = tables[1], tables[2]
    stranger = game.fake.users[int(one.table.hand_players[0])]
    thread = game.fake.channels[two.channel_id]
    for name in ("fold", "check", "call", "allin"):
        await slash_refused(game, stranger, name, None, t("error.not_in_hand"), thread)
    await slash_refused(game, stranger, "raise", None, t("error.not_in_hand"), thread, to=40)
    await slash_refused(game, stranger, "poker", "cards", t("error.no_cards"), thread)
    # Crafted amounts at his own table are refused before anything else.
    own = game.fake.channels[one.channel_id]
    await slash_refused(game, stranger, "raise", None,
                        coded("error.amount_too_large", {"option": "amount",
                                                         "maximum": MAX_CHIPS}),
                        own, to=10**18)


async def test_a_tournament_starts_by_itself_at_its_time(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, starts_at="2s", structure="10/20 10")
    await register(game, alice, bob)
    await until(lambda: live.running, timeout=20, what="the automatic start")
    await game.fake.wait_for_message(lambda m: "**Friday** has started" in m.content,
                                     channel=game.channel)
    await until(lambda: live.tables[1].hand, what="the first hand")


async def test_an_automatic_start_without_two_players_refunds_every_buy_in(game: Game) -> None:
    alice = game.world.alice
    live = await create(game, alice, starts_at="2s")
    await register(game, alice)
    await until(lambda: live.closed, timeout=20, what="the automatic start refused")
    info = await tournaments.get_tournament(game.db, live.tournament_id)
    assert (info.status, info.pool) == ("cancelled", 0)
    assert await game.balance(alice) == STARTING_BALANCE
    await game.fake.wait_for_message(
        lambda m: m.content == t("tournament.start_failed", name="Friday", players=1),
        channel=game.channel)
    report = await invariant.check_invariant(game.db)
    assert report.ok, report


async def test_a_registration_nobody_starts_is_closed_by_the_idle_sweep(game: Game) -> None:
    """One member cannot keep a channel (and his entrants' buy-ins) tied up by a tournament he
    never starts: after the server's idle time the sweep cancels it, every buy-in back."""
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice)
    await register(game, bob)
    before = await tournaments.get_tournament(game.db, live.tournament_id)
    guild = game.world.guild.id
    paid = await economy.balance(game.db, guild, bob.id)
    await economy.update_settings(game.db, game.world.guild.id, idle_close=600)
    # Within the idle time nothing closes.
    await game.runtime.close_idle_tables(wall=time.time() + 300)
    assert not live.closed
    await game.runtime.close_idle_tables(wall=time.time() + 3600)
    assert live.closed
    assert game.runtime.registry.tournament_in(game.channel.id) is None
    info = await tournaments.get_tournament(game.db, live.tournament_id)
    assert info.status == "cancelled" and before.status == "registering"
    await game.fake.wait_for_message(
        lambda m: m.content.startswith("**Friday** never started"), channel=game.channel,
        timeout=10)
    assert await economy.balance(game.db, guild, bob.id) == paid + 100  # the buy-in back
    await invariant.verify_invariant(game.db)
    # The setting 0 keeps a registration open for good.
    live = await create(game, alice)
    await economy.update_settings(game.db, game.world.guild.id, idle_close=0)
    await game.runtime.close_idle_tables(wall=time.time() + 10**6)
    assert not live.closed


async def test_a_start_without_room_for_its_tables_makes_no_thread(game: Game) -> None:
    """Four players at tables of two need two tables; a server that allows one refuses the
    start, with its reason, before a thread is made for either table."""
    field = members(game.world)[:4]
    live = await create(game, field[0], seats_per_table=2, max_players=4)
    await register(game, *field)
    await economy.update_settings(game.db, game.world.guild.id, max_tables=1)
    refused = await game.slash(field[0], "tournament", "start")
    assert refused.content == t("error.tournament_needs_tables", tables=2, maximum=1, taken=0)
    assert game.fake.threads_of(game.channel) == []
    assert not live.running
    await economy.update_settings(game.db, game.world.guild.id, max_tables=10)
    await game.ok(field[0], "tournament", "start")
    assert len(game.fake.threads_of(game.channel)) == 2
