"""What the one hand loop (``bot.runtime.table.LiveTable``) does reaches a tournament's table too.

Cash tables and tournament tables share one hand loop since the runtime's refactor; before it,
a tournament's table skipped some of what a cash table did. Each test here plays at a
tournament table what a cash-table test proves (named in its docstring), over the fake
Discord, and one proves the declared difference (``TableKind.pauses_without_channel``): a
tournament's clock does not wait for a lost channel.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import bot.interact
import bot.runtime.rendering
from bot.i18n import t
from bot.render.labels import format_percent
from bot.runtime.play import DOUBLE_CLICK
from bot.runtime.tourney import LiveTournament, TournamentSettings, TournamentTable
from bot.storage import hands, tournaments
from engine.cards import Card, parse_cards, pretty_cards
from engine.equity import equity
from engine.hand import Hand, PreAction, deck_from_cards
from tests.e2e.game_kit import (
    DEFERRED,
    Game,
    StackedDeck,
    button_id,
    press_answer,
    quick_options,
    running_game,
    settled,
    until,
)
from tests.e2e.harness import World
from tests.e2e.test_game_runout import chances_in
from tests.e2e.tournament_kit import Players, check_or_fold, create, register, tournament_of
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.fakediscord.models import READ_MESSAGE_HISTORY, VIEW_CHANNEL

pytestmark = pytest.mark.timeout(120)

BOARD = "2c 7d 9h 4s 5d"
READ_ONLY = VIEW_CHANNEL | READ_MESSAGE_HISTORY


async def heads_up(game: Game, **options: object) -> tuple[LiveTournament, TournamentTable, Hand]:
    """Alice's tournament, Alice and Bob registered and started: its one table (in #poker)
    and its first hand."""
    alice, bob = game.world.alice, game.world.bob
    options.setdefault("structure", "10/20 10")
    live = await create(game, alice, **options)
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    table = await until(lambda: live.tables.get(1), what="table 1")
    assert table.channel_id == game.channel.id
    hand = await until(lambda: table.hand, what="hand 1", timeout=20)
    return live, table, hand


def to_act(game: Game, table: TournamentTable) -> FakeUser | None:
    hand = table.hand
    if hand is None or hand.to_act is None:
        return None
    return game.fake.users[table.player_of(hand.to_act)]


async def turn_message(game: Game, table: TournamentTable, user: FakeUser) -> FakeMessage:
    """The table message once it names ``user`` to act."""
    message_id = await until(lambda: table.messenger.message_id, what="the table message")
    return await game.fake.wait_for_message(
        lambda m: m.id == message_id and f"{user.mention} to act" in m.content,
        channel=game.channel, timeout=20)


# -- 1: the all-in run-out, street by street ---------------------------------------------------


def expected_chances(holes: dict[str, tuple[Card, ...]], board: str) -> dict[str, str]:
    names = sorted(holes)
    figures = equity([holes[n] for n in names], parse_cards(board))
    return {name: format_percent(hand.win, figures.exact)
            for name, hand in zip(names, figures.hands, strict=True)}


async def test_the_run_out_shows_each_streets_chances_before_the_result_at_a_tournament_table(
    game: Game,
) -> None:
    """As ``test_game_runout::test_the_run_out_shows_each_streets_chances_before_the_result``
    at a cash table: both players all in before the flop, the tournament's table message
    shows the pre-flop, flop and turn chances, each once, before the result is posted.
    Before the shared loop a tournament's table went straight to the result."""
    # Player 0 of the first hand holds aces, player 1 kings, whoever they are.
    game.deck.push(deck_from_cards(2, [parse_cards("AsAh"), parse_cards("KsKh")],
                                   parse_cards(BOARD)))
    _runner, table, hand = await heads_up(game)
    holes = {game.fake.users[table.player_of(i)].name: tuple(hand.hole_cards(i))
             for i in range(2)}
    first = await until(lambda: to_act(game, table), what="a player to act")
    await game.ok(first, "allin")
    second = await until(lambda: to_act(game, table) if to_act(game, table) is not first
                         else None, what="the other player to act")
    message = await turn_message(game, table, second)
    mark = game.fake.mark()
    answer = await press_answer(
        await game.fake.click(second, message, button_id(message, "call")))
    # The press that closed the betting is answered by the table message's own update.
    assert answer.startswith("table: "), answer
    result = await game.fake.wait_for_message(
        lambda m: m.content.startswith("**Hand #1: result**"),
        channel=game.channel, kinds=("create",), after=mark, timeout=30)
    result_at = next(e.index for e in game.fake.events[mark:]
                     if e.kind == "create" and e.message.id == result.id)
    versions = [e.message for e in game.fake.events[mark:]
                if e.kind == "edit" and e.message.id == message.id and e.index < result_at]
    streets = [v for v in versions if chances_in(v.content)]
    boards = ["", "2c 7d 9h", "2c 7d 9h 4s"]
    assert len(streets) == len(boards), (
        "a tournament table must show the run-out street by street before the result:\n"
        + "\n----\n".join(v.content for v in versions))
    for version, board in zip(streets, boards, strict=True):
        expected = expected_chances(holes, board)
        assert chances_in(version.content) == expected, version.content
        assert "%" in "".join(expected.values())
        if board:
            assert t("table.board", cards=pretty_cards(parse_cards(board))) in version.content
        else:
            assert "Board" not in version.content
        # Still the tournament's table message: headed by the tournament and its level.
        assert version.content.startswith("**Friday** · "), version.content
        alt = version.attachment("table.png").description or ""
        for figure in expected.values():
            assert figure in alt, alt
        assert not version.custom_ids()  # nobody can act during the run-out
    aces = next(name for name, cards in holes.items() if cards == tuple(parse_cards("AsAh")))
    assert f"{aces} wins" in result.content, result.content


# -- 2: a double click on a pre-selection sets it once -----------------------------------------


async def test_a_double_click_on_a_pre_selection_sets_it_once_at_a_tournament_table(
    game: Game,
) -> None:
    """As ``test_attack_input::test_a_double_click_on_a_pre_selection_sets_it_once`` at a cash
    table: the waiting player double-clicks "Call any" on the tournament's table message; the
    second click of the double click keeps it set instead of taking it back, and a deliberate
    press later (after ``DOUBLE_CLICK``) cancels it."""
    _runner, table, hand = await heads_up(game)
    first = await until(lambda: to_act(game, table), what="a player to act")
    waiting = game.world.bob if first is game.world.alice else game.world.alice
    message = await turn_message(game, table, first)
    call_any = button_id(message, "pre_call_any")
    presses = await asyncio.gather(
        game.fake.click(waiting, message, call_any), game.fake.click(waiting, message, call_any)
    )
    answers = [await press_answer(p) for p in presses]
    assert answers == [t("preselect.call_any")] * 2, (
        "the second click of a double click must keep the pre-selection at a tournament "
        f"table, not take it back: {answers}")
    index = table.table.hand_index(waiting.id)
    assert index is not None
    chosen = hand.preselected.get(index)
    assert chosen is not None and chosen[0] is PreAction.CALL_ANY, hand.preselected
    await asyncio.sleep(DOUBLE_CLICK)  # the rule's own window, not a wait for the bot
    again = await press_answer(await game.fake.click(waiting, message, call_any))
    assert again == t("preselect.none") and index not in hand.preselected, again


# -- 3: replies that draw an image or build a file are deferred ---------------------------------


async def test_replies_that_draw_or_build_a_file_are_deferred_at_a_tournament_table(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``test_attack_channel::test_replies_that_draw_or_build_a_file_are_deferred`` at a
    cash table: with drawing and building files made slower than Discord's 3 s, ``/poker
    cards``, ``history``, ``replay`` and ``verify`` in a tournament's channel are answered
    "thinking" at once (a deferral, private), and the reply follows."""
    alice = game.world.alice
    _runner, table, _hand = await heads_up(game)
    first = await until(lambda: to_act(game, table), what="a player to act")
    await game.ok(first, "fold")
    await until(lambda: table.hand if table.table.hand_number == 2 else None,
                what="hand 2", timeout=20)

    real_render, real_export = bot.interact.render, hands.export_phh
    real_replay_render = bot.runtime.rendering.render

    async def slow_render(*args: object) -> object:
        await asyncio.sleep(3.5)
        return await real_render(*args)  # type: ignore[arg-type]

    async def slow_replay_render(*args: object) -> object:
        await asyncio.sleep(3.5)
        return await real_replay_render(*args)  # type: ignore[arg-type]

    async def slow_export(*args: object, **kwargs: object) -> str:
        await asyncio.sleep(3.5)
        return await real_export(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(bot.interact, "render", slow_render)
    # /history replay imports the renderer when it runs.
    monkeypatch.setattr(bot.runtime.rendering, "render", slow_replay_render)
    monkeypatch.setattr(hands, "export_phh", slow_export)
    asked = (("cards", {}), ("history", {"hand": 1}), ("replay", {"hand": 1}),
             ("verify", {"hand": 1}))
    for subcommand, options in asked:
        name, command = ("poker", "cards") if subcommand == "cards" else (
            "history", "hand" if subcommand == "history" else subcommand)
        handle = await game.fake.slash(alice, game.channel, name, subcommand=command,
                                       options=options)
        first_answer = await handle.response(timeout=3)
        assert first_answer.type == DEFERRED and first_answer.ephemeral, (
            f"/{name} {command} at a tournament table must be deferred first",
            first_answer)
        final = await settled(handle)
        assert final.ephemeral and final.content and not final.content.startswith(
            "Something"), (subcommand, final.content)
        if subcommand in ("cards", "replay", "history"):
            assert final.attachments, (subcommand, final.content)


# -- 4: a change of the server's language reaches a running tournament --------------------------


def zh(key: str, **params: object) -> str:
    return t(key, "zh-CN", **params)


async def test_a_server_language_change_reaches_a_running_tournament_and_survives_a_restart(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """As ``test_game_languages`` at a cash table: while the tournament runs, the server's
    manager sets the language to Simplified Chinese; the tournament's table message changes
    at once, the result, the next hand and the tournament's announcements are in it, and so
    is everything after a restart (the tournament stores its language). Before the shared
    loop a running tournament kept speaking the language it was created in."""
    alice = world.alice
    head = zh("tournament.header", name="Friday", table=1, level=1)
    async with running_game(fake, world, tmp_path) as game:
        live, table, _hand = await heads_up(game)
        english = await turn_message(game, table, await until(lambda: to_act(game, table)))
        assert english.content.startswith("**Friday** · table 1 · level 1"), english.content
        mark = fake.mark()
        settings = await game.slash(alice, "chips", "settings", language="zh-CN")
        assert settings.ephemeral, settings
        # The table message is shown again in the new language, without waiting for a hand.
        await fake.wait_for_message(
            lambda m: m.id == english.id and m.content.startswith(head) and "第 1 手" in m.content,
            channel=game.channel, after=mark, timeout=20)
        assert live.locale == "zh-CN" and table.locale == "zh-CN"
        first = await until(lambda: to_act(game, table), what="a player to act")
        await game.ok(first, "fold")
        result = await fake.wait_for_message(
            lambda m: m.content.startswith(zh("result.title", hand=1)),
            channel=game.channel, kinds=("create",), after=mark, timeout=20)
        assert "Hand #" not in result.content, result.content
        alt = result.attachment("table.png").description or ""
        assert alt and "Poker table" not in alt, alt
        hand_two = await fake.wait_for_message(
            lambda m: m.content.startswith(head) and "第 2 手" in m.content,
            channel=game.channel, kinds=("create",), after=mark, timeout=20)
        assert "Texas Hold'em" not in hand_two.content, hand_two.content
        # An announcement of the tournament's: in the server's new language too.
        await game.ok(alice, "tournament", "pause")
        await fake.wait_for_message(lambda m: m.content == zh("tournament.paused"),
                                    channel=game.channel, after=mark, timeout=20)
        stored = await tournaments.get_tournament(game.db, live.tournament_id)
        assert TournamentSettings.from_json(stored.config).locale == "zh-CN"
    await fake.wait_for(lambda: not fake.sessions, what="the first bot to disconnect")

    mark = fake.mark()
    async with running_game(fake, world, tmp_path) as game:
        live = await until(lambda: tournament_of(game), what="the restored tournament")
        assert live.locale == "zh-CN"
        table = await until(lambda: live.tables.get(1), what="table 1")
        # The hand in progress is shown again, in the language the server chose.
        reposted = await fake.wait_for_message(
            lambda m: m.content.startswith(head) and "第 2 手" in m.content,
            channel=game.channel, kinds=("create",), after=mark, timeout=20)
        assert "Texas Hold'em" not in reposted.content, reposted.content
        assert table.locale == "zh-CN"
        await game.ok(alice, "tournament", "resume")
        await fake.wait_for_message(lambda m: m.content == zh("tournament.resumed"),
                                    channel=game.channel, after=mark, timeout=20)


# -- 5: a lost channel: the tournament plays on and tells its players by DM ---------------------


async def lose_the_channel(
    game: Game, **options: object
) -> tuple[LiveTournament, TournamentTable, int]:
    """A heads-up tournament whose channel stops taking the bot's messages (Discord answers
    403) as the first hand ends: once both players were told by DM, its live, its table,
    and the mark in the fake's events from which the channel was lost. (The DM is the one
    that names the channel; what it should say is the last test's.)"""
    alice, bob = game.world.alice, game.world.bob
    live, table, hand = await heads_up(game, **options)
    await live.flush(20)
    game.channel.bot_permissions = READ_ONLY
    mark = game.fake.mark()
    first = await until(lambda: to_act(game, table), what="a player to act")
    await game.ok(first, "fold")  # the result cannot be posted any more
    assert hand.is_over
    await until(lambda: table.messenger.blocked, what="the channel refused", timeout=10)
    for user in (alice, bob):
        await game.fake.wait_for_message(
            lambda m: f"<#{game.channel.id}>" in m.content,
            channel=user, after=mark, timeout=10)
    return live, table, mark


async def test_losing_the_channel_tells_a_tournaments_players_and_pauses_nothing(
    game: Game,
) -> None:
    """The declared difference (``TOURNAMENT.pauses_without_channel`` is False): when the bot
    may no longer post in a tournament table's channel (Discord answers 403 Missing
    Permissions), its players are told by DM and nothing pauses: not the tournament, not its
    table, not its clock (the next level comes on time), and the hand in progress plays on by
    command. At a cash table the same pauses the table
    (``test_attack_server::test_losing_the_channel_pauses_the_table_and_tells_its_players``)."""
    live, table, _mark = await lose_the_channel(game, structure="10/20 0.1, 20/40 10")
    assert not live.state.paused and not table.table.paused
    assert live.state.level == 1
    await until(lambda: live.state.level == 2, what="level 2 without the channel",
                timeout=20)
    assert not live.state.paused and not table.table.paused
    # A hand dealt as the channel went plays to its end by command, the clock running.
    number = table.table.hand_number
    if table.hand is not None:
        assert table.decision is not None or table.hand.is_over
        players = Players(game, live, policy=check_or_fold)
        await players.play_until(lambda: table.hand is None
                                 or table.table.hand_number != number, timeout=20)


async def test_a_tournament_table_keeps_dealing_without_its_channel(game: Game) -> None:
    """Play goes on at a tournament table whose channel is lost: once the bot knows the
    channel refuses it, the table still deals the next hands (the players' cards by DM, their
    decisions by command, the decision clock running)."""
    alice, bob = game.world.alice, game.world.bob
    live, table, mark = await lose_the_channel(game)
    # The hand dealt just after the first one ended may have raced the refusal; from here on
    # the channel is known lost.
    known_lost = table.table.hand_number
    players = Players(game, live, policy=check_or_fold)
    try:
        await players.play_until(lambda: table.table.hand_number >= known_lost + 2,
                                 timeout=20)
    except TimeoutError:
        raise AssertionError(
            "a tournament table stops dealing once its channel is lost (the declared "
            "difference says play goes on): still at hand "
            f"#{table.table.hand_number}, hand={table.hand}, blocked={table.messenger.blocked}"
        ) from None
    number = table.table.hand_number
    for user in (alice, bob):
        await game.fake.wait_for_message(
            lambda m, n=number: m.content.startswith(f"Hand #{n} · Your cards"),
            channel=user, after=mark, timeout=10)


async def test_the_dm_about_a_lost_tournament_channel_does_not_say_it_paused(
    game: Game,
) -> None:
    """The players of a tournament table whose channel is lost are told what is true there:
    the tournament goes on, and no /poker resume brings the table back."""
    alice = game.world.alice
    _runner, _table, mark = await lose_the_channel(game)
    told = await game.fake.wait_for_message(
        lambda m: f"<#{game.channel.id}>" in m.content, channel=alice, after=mark, timeout=10)
    assert "paused" not in told.content and "/poker resume" not in told.content, (
        f"a tournament table does not pause, but its players were told: {told.content!r}")


# -- the pause between hands starts once the result can be read ---------------------------------


async def test_a_tournament_table_deals_the_next_hand_only_after_the_result_is_shown(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """As at a cash table (``LiveTable._after_settle``): the pause between hands starts once
    players can read the result. With the run-out held 0.7 s a street and 3 s between hands,
    hand 2 must not be dealt before hand 1's result is posted."""
    deck = StackedDeck()
    # The board's straight plays for both: the pot is split and the tournament goes on.
    deck.push(deck_from_cards(2, [parse_cards("AsAh"), parse_cards("KsKh")],
                              parse_cards("2c 3d 4h 5s 6c")))
    options = quick_options(deck, runout_pause=0.7, next_hand_delay=3.0)
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        _runner, table, _hand = await heads_up(game)
        first = await until(lambda: to_act(game, table), what="a player to act")
        await game.ok(first, "allin")
        second = await until(lambda: to_act(game, table) if to_act(game, table) is not first
                             else None, what="the other player to act")
        mark = fake.mark()
        await game.ok(second, "call")
        dealt_early = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while not any(e.kind == "create" and e.message.content.startswith("**Hand #1: result**")
                      for e in fake.events[mark:]):
            assert loop.time() < deadline, "no result for hand 1"
            if table.table.hand_number >= 2:
                dealt_early.append(table.table.hand_number)
                break
            await asyncio.sleep(0.01)
        assert not dealt_early, "hand 2 was dealt before hand 1's result was shown"
        result = await fake.wait_for_message(
            lambda m: m.content.startswith("**Hand #1: result**"), channel=game.channel,
            kinds=("create",), after=mark, timeout=20)
        assert "split" in result.content.lower() or result.content.count("wins") == 2, (
            result.content)
        await until(lambda: table.table.hand_number == 2, what="hand 2", timeout=20)
