"""The tournament formats over the fake Discord: the worst member against rebuys, the add-on,
re-entries, bounties and the sit-and-go, each refusal in words and changing nothing, and the
money of every format moving only through the ledger."""

from __future__ import annotations

import asyncio
import random
import re
import time

import pytest

from bot.i18n import t
from bot.runtime import formats
from bot.runtime.tourney import LiveTournament
from bot.storage import economy, invariant, tournaments
from engine.hand import Hand
from engine.tournament import TournamentState
from tests.e2e.game_kit import STARTING_BALANCE, Game, settled, until
from tests.e2e.tournament_kit import (
    Players,
    Policy,
    always_all_in,
    check_or_fold,
    create,
    register,
    stored,
    tournament,
    wait_over,
)
from tests.fakediscord import FakeUser
from tests.fakediscord.models import CREATE_PUBLIC_THREADS, MEMBER_PERMISSIONS

pytestmark = pytest.mark.timeout(180)

# Long levels: the clock never moves a level inside a test unless the test moves it.
LONG = "10/20 30, 20/40 30, 40/80 30"


async def ledger_reasons(game: Game, user: FakeUser) -> list[str]:
    rows = await economy.ledger_entries(game.db, game.world.guild.id, user_id=user.id)
    return [row.reason for row in reversed(rows)]


async def pool_is_the_ledgers(game: Game, tournament_id: int) -> int:
    """The pool storage holds, checked against the whole ledger's invariant."""
    report = await invariant.check_invariant(game.db)
    assert report.ok, report
    return (await tournaments.get_tournament(game.db, tournament_id)).pool


async def between_hands(game: Game, live: object) -> None:
    """Pause the tournament and let the hand in play finish: nobody is in a hand after."""
    from bot.runtime.tourney import LiveTournament
    assert isinstance(live, LiveTournament)
    await until(lambda: any(t.table.hand_number for t in live.tables.values()), timeout=20,
                what="a hand dealt")
    await game.ok(game.world.alice, "tournament", "pause")
    players = Players(game, live, policy=check_or_fold)
    await players.play_until(lambda: all(t.hand is None for t in live.tables.values()))


# --- the format at creation ---------------------------------------------------------------


async def test_each_format_option_is_refused_with_its_reason_and_changes_nothing(
    game: Game,
) -> None:
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, structure=LONG)
    before = live.state.config
    cases = [
        ({"bounty": 150}, "The bounty (150) can't be more than the buy-in (100)."),
        ({"rebuys": 2}, "Rebuys and an add-on need a rebuy period"),
        ({"rebuys": 2, "rebuy_levels": 3}, "Rebuys can stay open for at most 2 levels"),
        ({"rebuy_levels": 1}, "The rebuy period does nothing without the number of rebuys"),
        ({"reentries": 1}, "does nothing without the late registration levels"),
        ({"rebuys": 101}, "The number of rebuys must be between 0 and 100."),
        ({"bounty_kind": "progressive"}, "The bounty format does nothing without the bounty"),
    ]
    for options, words in cases:
        reply = await tournament(game, alice, "format", **options)
        assert words in reply, (options, reply)
        assert live.state.config == before
    # Only the host sets it.
    reply = await tournament(game, bob, "format", rebuys=1, rebuy_levels=1)
    assert "host" in reply.lower(), reply
    assert live.state.config == before


async def test_a_practice_tournament_has_no_bounty_and_a_format_is_fixed_at_the_first_entry(
    game: Game,
) -> None:
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, buy_in=0, structure=LONG)
    reply = await tournament(game, alice, "format", bounty=10)
    assert "a tournament without a buy-in (a practice one) can't have a bounty" in reply
    await tournament(game, alice, "cancel")

    live = await create(game, alice, name="Saturday", structure=LONG)
    assert "format of **Saturday**" in await tournament(game, alice, "format", rebuys=1,
                                                         rebuy_levels=1)
    assert live.state.config.rebuys == 1
    await register(game, bob)
    reply = await tournament(game, alice, "format", rebuys=3, rebuy_levels=1)
    assert "before anyone registers" in reply
    assert live.state.config.rebuys == 1
    # What the players registered for is stored, and shown.
    info = await stored(game.db, live)
    assert info.state["config"]["rebuys"] == 1
    status = await game.slash(bob, "tournament", "status")
    assert "Rebuys: up to 1 each" in status.content
    assert "Rebuys ×1." in status.content  # the board's own words, in its description


async def test_repeat_is_a_sit_and_gos_and_a_sit_and_go_must_fit_the_servers_tables(
    game: Game,
) -> None:
    alice = game.world.alice
    reply = await tournament(game, alice, "create", name="A", kind="freeze_out", buy_in=10,
                             starting_stack=1000, repeat=True)
    assert reply == "Only a sit-and-go repeats: choose the kind sit-and-go."
    reply = await tournament(game, alice, "create", name="A", kind="sit_and_go", buy_in=10,
                             starting_stack=1000, late_levels=1, max_players=6)
    assert "no start time and no late registration" in reply
    # A repeating one plays in a thread once it starts: no thread, no repeat.
    game.channel.bot_permissions = MEMBER_PERMISSIONS & ~CREATE_PUBLIC_THREADS
    reply = await tournament(game, alice, "create", name="A", kind="sit_and_go", buy_in=10,
                             starting_stack=1000, max_players=2, repeat=True)
    assert reply == t("error.bot_missing_permissions",
                      permissions=t("permission.create_public_threads")), reply
    game.channel.bot_permissions = None
    await economy.update_settings(game.db, game.world.guild.id, max_tables=2)
    reply = await tournament(game, alice, "create", name="A", kind="sit_and_go", buy_in=10,
                             starting_stack=1000, max_players=27, seats_per_table=9)
    assert reply == ("A sit-and-go of 27 players needs 3 tables at once; this server allows 2.")
    assert game.runtime.registry.tournament_in(game.channel.id) is None


# --- rebuys -----------------------------------------------------------------------------------


async def test_a_rebuy_between_hands_is_a_ledger_row_and_the_worst_member_is_refused(
    game: Game,
) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure=LONG)
    await tournament(game, alice, "format", rebuys=1, rebuy_levels=1)
    await register(game, alice, bob, carol)
    assert await tournament(game, bob, "rebuy") == "The tournament isn't running."
    await game.ok(alice, "tournament", "start")
    await between_hands(game, live)
    # Three players checking or folding one hand: the big blind won 10, the button kept his
    # 1,000 and the small blind lost 10.
    table = next(iter(live.tables.values())).table
    stacks = {seat.player_id: seat.stack for seat in table.seats()}
    assert sorted(stacks.values()) == [990, 1000, 1010]
    rich = game.fake.users[next(p for p, chips in stacks.items() if chips == 1010)]
    broke = game.fake.users[next(p for p, chips in stacks.items() if chips == 990)]
    buyer = game.fake.users[next(p for p, chips in stacks.items() if chips == 1000)]
    assert await pool_is_the_ledgers(game, live.tournament_id) == 300

    reply = await tournament(game, rich, "rebuy")
    assert reply == "You may rebuy only at or below the starting stack, 1,000: you have 1,010."
    # An empty wallet rebuys nothing, and nothing moves.
    balance = await game.balance(broke)
    await economy.remove(game.db, game.world.guild.id, broke.id, balance, actor_id=alice.id)
    reply = await tournament(game, broke, "rebuy")
    assert reply == "You have 0 chips: not enough for 100.", reply
    assert table.player(broke.id).stack == 990
    assert await pool_is_the_ledgers(game, live.tournament_id) == 300
    # Two presses at once take one buy-in.
    before = await game.balance(buyer)
    answers = await asyncio.gather(*(game.slash(buyer, "tournament", "rebuy") for _ in range(2)))
    texts = sorted(a.content for a in answers)
    assert [text.startswith("Rebought: your stack is 2,000.") for text in texts].count(True) == 1
    assert await game.balance(buyer) == before - 100
    assert await pool_is_the_ledgers(game, live.tournament_id) == 400
    assert (await ledger_reasons(game, buyer)).count("tournament_rebuy") == 1
    assert live.state.tables[1].player(buyer.id).stack == 2000
    # Past the count: refused for that before his stack is looked at.
    assert live.state.rebuys_of(buyer.id) == 1
    assert await tournament(game, buyer, "rebuy") == "You've made all 1 of your rebuys."
    assert await game.balance(buyer) == before - 100
    assert await pool_is_the_ledgers(game, live.tournament_id) == 400


async def test_rebuys_close_with_their_period(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, structure="10/20 0.05, 20/40 30")
    await tournament(game, alice, "format", rebuys=1, rebuy_levels=1)
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    await until(lambda: live.state.level >= 2, timeout=20, what="level 2")
    await between_hands(game, live)
    table = next(iter(live.tables.values())).table
    poor = next(p for p in table.seats() if p.stack <= 1000)
    reply = await tournament(game, game.fake.users[poor.player_id], "rebuy")
    assert reply == "Rebuys are closed."
    assert await pool_is_the_ledgers(game, live.tournament_id) == 200


async def test_a_bust_is_offered_a_rebuy_by_dm_and_two_presses_buy_once(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, structure=LONG)
    await tournament(game, alice, "format", rebuys=2, rebuy_levels=2)
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    players = Players(game, live, policy=always_all_in)
    await players.play_until(lambda: bool(live.state.pending()), timeout=60)
    busted = game.fake.users[int(live.state.pending()[0])]
    assert live.state.state is TournamentState.RUNNING  # he is not out yet
    offer = await game.fake.wait_for_message(
        lambda m: "Rebuy for 100" in m.content, channel=game.fake.dm_channel(busted),
        timeout=20)
    rebuy_id = next(c for c in offer.custom_ids() if ":t_rebuy" in c)
    before = await game.balance(busted)
    presses = await asyncio.gather(*(game.fake.click(busted, offer, rebuy_id)
                                     for _ in range(2)))
    answers = [await settled(p) for p in presses]
    assert sum(a.content.startswith("Rebought") for a in answers) == 1, answers
    assert await game.balance(busted) == before - 100
    assert not live.state.pending()
    assert live.state.rebuys_of(busted.id) == 1
    assert await pool_is_the_ledgers(game, live.tournament_id) == 300


async def test_an_offer_not_answered_in_time_eliminates_him(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(formats, "REBUY_ANSWER", 0.5)
    monkeypatch.setattr("bot.runtime.tourney.REBUY_ANSWER", 0.5)
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, structure=LONG)
    await tournament(game, alice, "format", rebuys=1, rebuy_levels=2)
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    players = Players(game, live, policy=always_all_in)
    # A busted player is offered a rebuy, so nothing but his answer can end it.
    await players.play_until(lambda: bool(live.state.pending()), timeout=60)
    busted = game.fake.users[int(live.state.pending()[0])]
    info = await wait_over(game, live, timeout=20)
    loser = info.entry_of(busted.id)
    assert loser is not None and loser.place == 2
    assert info.pool == 0
    await game.fake.wait_for_message(
        lambda m: "didn't answer the rebuy in time" in m.content, channel=game.channel,
        timeout=10)


async def test_nobody_is_out_for_not_answering_while_the_tournament_is_paused(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.runtime.tourney.REBUY_ANSWER", 0.5)
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, structure=LONG)
    await tournament(game, alice, "format", rebuys=1, rebuy_levels=2)
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    players = Players(game, live, policy=always_all_in)
    await players.play_until(lambda: bool(live.state.pending()), timeout=60)
    await game.ok(alice, "tournament", "pause")
    await asyncio.sleep(2.0)  # four times his time to answer
    assert live.state.pending() and not live.state.knocked_out()
    await game.ok(alice, "tournament", "resume")
    # His whole time again from the resume, then out.
    assert live.state.pending()
    info = await wait_over(game, live, timeout=20)
    assert info.pool == 0


# --- the add-on -------------------------------------------------------------------------------


async def test_the_add_on_once_while_open_and_never_after(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.runtime.tourney.ADD_ON_OPEN", 4.0)
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, structure="10/20 0.05, 20/40 30")
    await tournament(game, alice, "format", add_on=2000, add_on_price=50, rebuy_levels=1)
    await register(game, alice, bob)
    assert await tournament(game, bob, "addon") == "The tournament isn't running."
    await game.ok(alice, "tournament", "start")
    await until(lambda: live.state.add_on_open, timeout=20, what="the add-on")
    offer = await game.fake.wait_for_message(
        lambda m: "2,000 chips for 50, once" in m.content, channel=game.fake.dm_channel(bob),
        timeout=20)
    assert any(":t_add_on" in c for c in offer.custom_ids())
    await between_hands(game, live)
    before = await game.balance(bob)
    stack = live.state.tables[1].player(bob.id).stack
    reply = await tournament(game, bob, "addon")
    assert reply.startswith(f"Add-on taken: your stack is {stack + 2000:,}."), reply
    assert await tournament(game, bob, "addon") == "You've taken the add-on already."
    assert await game.balance(bob) == before - 50
    assert (await ledger_reasons(game, bob)).count("tournament_add_on") == 1
    assert await pool_is_the_ledgers(game, live.tournament_id) == 250
    # Its time runs while the tournament plays, not while it is paused.
    await asyncio.sleep(1.0)
    assert live.state.add_on_open
    await game.ok(alice, "tournament", "resume")
    await until(lambda: not live.state.add_on_open, timeout=20, what="the add-on's end")
    assert await tournament(game, alice, "addon") == "The add-on is closed."
    assert await pool_is_the_ledgers(game, live.tournament_id) == 250


# --- re-entry ---------------------------------------------------------------------------------


def duel(live: LiveTournament, *duellists: FakeUser) -> Policy:
    """The duellists go all in and call; everybody else folds (checks when free)."""
    ids = {user.id for user in duellists}

    def policy(hand: Hand, rng: random.Random) -> str:
        legal = hand.legal()
        assert legal is not None and hand.to_act is not None
        table = next(t for t in live.tables.values() if t.hand is hand)
        if table.player_of(hand.to_act) in ids:
            return always_all_in(hand, rng)
        return "check" if legal.can_check else "fold"

    return policy


async def test_a_reentry_is_a_new_entry_while_late_registration_lasts(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure=LONG, late_levels=1)
    await tournament(game, alice, "format", reentries=1)
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    players = Players(game, live, policy=duel(live, alice, bob))
    await players.play_until(lambda: bool(live.state.knocked_out()), timeout=60)
    out = game.fake.users[int(live.state.knocked_out()[0])]
    assert out in (alice, bob)
    before = await game.balance(out)
    reply = await game.slash(out, "tournament", "register")
    assert reply.content.startswith("You're registered"), reply.content
    assert await game.balance(out) == before - 100
    assert live.state.entries_of(out.id) == 2
    assert live.state.table_of(out.id) is not None  # seated, a fresh stack
    assert await pool_is_the_ledgers(game, live.tournament_id) == 400
    assert (await stored(game.db, live)).entrants == 4
    # Knocked out again (everyone shoves now, so it ends soon): a second re-entry is past
    # the count.
    players.policy = duel(live, alice, bob, carol)
    await players.play_until(
        lambda: (out.id in {int(p) for p in live.state.knocked_out()}
        and live.state.entries_of(out.id) == 2 and out.id not in live.state.players_left())
        or live.closed, timeout=60)
    if out.id not in live.state.players_left():
        # Refused for the count, or (his bust ended it) because it is over: nothing paid.
        expected = (t("error.no_tournament") if live.closed
                    else "You can't enter again: at most 1 re-entries.")
        before = await game.balance(out)
        reply = await game.slash(out, "tournament", "register")
        assert reply.content == expected, reply.content
        assert await game.balance(out) == before


async def test_no_reentry_once_late_registration_closed(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure="10/20 0.05, 20/40 30", late_levels=1)
    await tournament(game, alice, "format", reentries=2)
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    await until(lambda: live.state.level >= 2, timeout=20, what="level 2")
    players = Players(game, live, policy=duel(live, alice, bob))
    await players.play_until(lambda: bool(live.state.knocked_out()), timeout=60)
    out = game.fake.users[int(live.state.knocked_out()[0])]
    before = await game.balance(out)
    reply = await game.slash(out, "tournament", "register")
    assert reply.content == "Registration is closed.", reply.content
    assert await game.balance(out) == before
    assert live.state.entries_of(out.id) == 1


# --- bounties ---------------------------------------------------------------------------------


async def test_knockout_bounties_are_paid_when_won_and_shown_in_the_results(
    game: Game,
) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure=LONG)
    await tournament(game, alice, "format", bounty=40, bounty_kind="progressive")
    await register(game, alice, bob, carol)
    assert live.state.prize_pool == 180
    await game.ok(alice, "tournament", "start")
    players = Players(game, live, policy=always_all_in)
    await players.play_until(lambda: live.closed, timeout=90)
    info = await wait_over(game, live)
    assert info.pool == 0
    report = await invariant.check_invariant(game.db)
    assert report.ok, report
    paid = 0
    for user in (alice, bob, carol):
        rows = await economy.ledger_entries(game.db, game.world.guild.id, user_id=user.id)
        paid += sum(r.amount for r in rows if r.reason == "tournament_bounty")
    prizes = sum(e.prize or 0 for e in info.entries)
    assert prizes + paid == 300  # every chip paid in came back out, as prizes or bounties
    assert paid == 120
    results = await tournament(game, alice, "results", name="Friday")
    assert "Progressive knockout" in results
    assert re.search(r"bounties \d", results), results


# --- the sit-and-go ---------------------------------------------------------------------------


async def test_a_sit_and_go_starts_when_full_and_repeats_in_its_channel(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, name="Turbo", kind="sit_and_go", max_players=2,
                        repeat=True, structure=LONG)
    await register(game, alice)
    assert live.state.state is TournamentState.REGISTERING
    await register(game, bob)
    assert live.state.state is TournamentState.RUNNING
    # It plays in a thread; the next one is open in the channel.
    after = await until(lambda: (t := game.runtime.registry.tournament_in(game.channel.id))
                        is not live and t, timeout=10, what="the next sit-and-go")
    assert after.name == "Turbo #2"
    assert live.channel_id != game.channel.id
    assert after.state.state is TournamentState.REGISTERING
    # Stopping the series is cancelling the one open.
    await tournament(game, alice, "cancel")
    players = Players(game, live, policy=always_all_in)
    await players.play_until(lambda: live.closed, timeout=90)
    info = await wait_over(game, live)
    assert info.pool == 0
    assert game.runtime.registry.tournament_in(game.channel.id) is None
    assert await game.balance(alice) + await game.balance(bob) == 2 * STARTING_BALANCE


async def test_an_unfilled_sit_and_go_is_cancelled_after_the_idle_time(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    guild = game.world.guild.id
    live = await create(game, alice, name="Turbo", kind="sit_and_go", max_players=6,
                        repeat=True, structure=LONG)
    await register(game, bob)
    paid = await economy.balance(game.db, guild, bob.id)
    await economy.update_settings(game.db, guild, idle_close=600)
    await game.runtime.close_idle_tables(wall=time.time() + 300)
    assert not live.closed
    await game.runtime.close_idle_tables(wall=time.time() + 3600)
    assert live.closed
    assert (await stored(game.db, live)).status == "cancelled"
    assert await economy.balance(game.db, guild, bob.id) == paid + 100
    # Nothing opens after it: only a start opens the next one.
    assert game.runtime.registry.tournament_in(game.channel.id) is None
    await invariant.verify_invariant(game.db)


async def test_the_servers_tournament_caps_count_every_repeat(game: Game) -> None:
    """Repeat spam: each sit-and-go that starts opens the next, and each counts against the
    server's tables; the one that would pass the limit is refused with its reason and the
    series stops there."""
    alice, bob = game.world.alice, game.world.bob
    await economy.update_settings(game.db, game.world.guild.id, max_tables=2,
                                  max_tables_per_host=2)
    first = await create(game, alice, name="Turbo", kind="sit_and_go", max_players=2,
                         repeat=True, structure=LONG)
    await register(game, alice, bob)
    second = await until(lambda: (t := game.runtime.registry.tournament_in(game.channel.id))
                         is not first and t, timeout=10, what="the second")
    await register(game, alice, bob)
    assert second.running
    # Two running sit-and-gos are the server's two tables: no third opens.
    await game.fake.wait_for_message(
        lambda m: m.content.startswith("The next sit-and-go couldn't open:"),
        channel=game.channel, timeout=10)
    assert game.runtime.registry.tournament_in(game.channel.id) is None
    open_ = [v for v in game.runtime.registry.tournaments() if not v.closed]
    assert sorted(v.name for v in open_) == ["Turbo", "Turbo #2"]


async def test_a_cancel_after_bounties_were_paid_gives_back_exactly_the_pool(game: Game) -> None:
    """A bounty won is the winner's: a cancel then gives each entrant what he paid in less the
    bounties won off his head, and every chip of the pool goes back."""
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure=LONG)
    await tournament(game, alice, "format", bounty=30, rebuys=1, rebuy_levels=2)
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    players = Players(game, live, policy=duel(live, alice, bob))
    await players.play_until(lambda: live.state.bounties_paid > 0, timeout=60)
    pool = await pool_is_the_ledgers(game, live.tournament_id)
    assert pool == 300 - 30
    wallets = {u.id: await game.balance(u) for u in (alice, bob, carol)}
    await game.ok(alice, "tournament", "cancel")
    after = {u.id: await game.balance(u) for u in (alice, bob, carol)}
    assert sum(after.values()) - sum(wallets.values()) == pool
    assert (await stored(game.db, live)).pool == 0
    await invariant.verify_invariant(game.db)
    # Everyone ends where he began, but for the bounty that changed hands.
    assert sum(after.values()) == 3 * STARTING_BALANCE


async def test_a_practice_bot_offered_a_rebuy_is_out_at_once(game: Game) -> None:
    """Bots never answer a DM: a practice tournament with rebuys does not wait a minute on
    each busted bot."""
    alice = game.world.alice
    live = await create(game, alice, buy_in=0, bots=3,
                        structure="100/200 2, 1000/2000 30")
    reply = await tournament(game, alice, "format", rebuys=1, rebuy_levels=1)
    assert "Rebuys: up to 1 each" in reply
    await game.ok(alice, "tournament", "start")
    # Over well inside the two minutes rebuys stay open.
    info = await wait_over(game, live, timeout=45)
    assert info.pool == 0 and info.buy_in == 0
    assert len(info.entries) == 3
