"""The Omaha games over the fake Discord, against careless and hostile players: a raise above
the pot limit by slash command, form or forged button; switching the game in the middle of a
hand; more seats than one deck deals to; a game the picker never offered; a tournament's game
changed after registration; bots at a game they cannot play. Each is refused with one clear
sentence and changes nothing."""

from __future__ import annotations

import asyncio

import pytest

from bot.errors import BotError
from bot.i18n import t
from bot.presenter import cards_text
from bot.runtime.cash import CashTable
from bot.runtime.history import verification
from bot.storage import hands
from engine.cards import format_card, parse_cards
from engine.games import NLHE, PLO8
from engine.hand import ActionKind, ActionTaken, Hand, board_positions, deck_from_cards
from tests.attack.kit import press
from tests.e2e.game_kit import Game, button_id, press_answer, settled, until
from tests.fakediscord import FakeUser

pytestmark = pytest.mark.timeout(120)


async def plo_heads_up(game: Game, chosen: str = "plo") -> CashTable:
    alice, bob = game.world.alice, game.world.bob
    reply = await game.ok(alice, "poker", "create", game=chosen, small_blind=5, big_blind=10)
    assert reply.startswith(f"Table open: {t(f'game.{chosen}')}, blinds 5/10"), reply
    await game.ok(alice, "poker", "join", buy_in=1000)
    await game.ok(bob, "poker", "join", buy_in=1000)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    return game.live_table()


async def test_a_table_with_more_seats_than_the_game_deals_to_is_refused(game: Game) -> None:
    alice = game.world.alice
    reply = await game.poker(alice, "create", game="plo5", seats=10)
    assert reply.content == (
        "Five-card Pot-Limit Omaha deals to at most 9 players (every hole card and the board come"
        " from one deck): choose 9 seats or fewer.")
    reply = await game.poker(alice, "create", game="razz")
    assert reply.content == "That value isn't valid for game."
    with pytest.raises(BotError):
        game.live_table()  # no table was opened
    reply = await game.poker(alice, "create", game="plo5", seats=9)
    assert reply.content.startswith("Table open: Five-card Pot-Limit Omaha")
    assert game.live_table().table.options.seats == 9


async def test_a_raise_above_the_pot_is_refused_by_slash_form_and_button(game: Game) -> None:
    live_table = await plo_heads_up(game)
    hand = live_table.hand
    assert hand is not None
    turn = await game.wait_turn()
    legal = hand.legal()
    assert legal is not None and legal.pot_limited
    # Heads-up the button posts 5 and calls 5 more; the pot is then 20: the most is 30.
    assert legal.max_raise_to == 30
    expected = "That's more than the pot limit: you can go up to 30 (the pot)."
    before = len(hand.actions)
    reply = await game.slash(turn, "raise", to=31)
    assert reply.content == expected
    message = await game.turn_message(turn, 1)
    assert any(c.get("label") == "Pot 30" for c in message.walk_components())
    opened = await game.fake.click(turn, message, button_id(message, "raise_modal"))
    opener = await opened.response()
    assert opener.is_modal and opener.custom_id
    submitted = await game.fake.submit_modal(turn, opener.custom_id, {"amount": "1000"})
    assert await press_answer(submitted) == expected
    forged = button_id(message, "raise", 20).rsplit(":", 1)[0] + ":999"
    assert await press_answer(await press(game.fake, turn, message, forged)) == expected
    assert len(hand.actions) == before and hand.to_act == legal.player
    # The Pot button raises exactly the pot.
    answer = await press_answer(await game.fake.click(turn, message, button_id(message, "allin")))
    assert answer == f"table: Last: {turn.name} raises to 30", answer
    last = hand.events[-1]
    assert isinstance(last, ActionTaken) and last.kind is ActionKind.RAISE and last.amount == 30


async def test_the_game_changes_between_hands_only(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    live_table = await plo_heads_up(game, "nlhe")
    reply = await game.poker(alice, "settings", game="plo8")
    assert reply.content == t("error.game_mid_hand")
    assert live_table.table.options.game is NLHE and live_table.config.pending is None
    # Other settings still wait for the next hand in the middle of one, the game with them.
    await game.passive_round(1)
    await game.wait_result(1)
    reply = await game.poker(alice, "settings", game="plo8")
    assert reply.ephemeral and not reply.content.startswith(("The game", "Something"))
    hand = await game.wait_hand(2, timeout=20)
    assert hand.game is PLO8 and len(hand.hole_cards(0)) == 4
    await game.fake.wait_for_message(
        lambda m: m.content.startswith("**Pot-Limit Omaha Hi-Lo** · Hand #2"),
        channel=game.channel, timeout=20)
    # Bob's DM shows him his four cards.
    dm = await game.fake.wait_for_message(lambda m: "Hand #2" in m.content, channel=bob,
                                          kinds=("create",), timeout=20)
    index = list(live_table.table.hand_players).index(bob.id)
    assert cards_text(hand.hole_cards(index)) in dm.content


async def test_a_host_switches_the_game_under_bots_between_hands_and_back(game: Game) -> None:
    """The bots play whatever the table deals: Omaha from the next hand, then Hold'em again."""
    alice = game.world.alice
    await game.ok(alice, "poker", "practice", bots=2)
    live_table = game.live_table()
    bots = live_table.bots()
    assert bots

    async def alice_folds() -> None:
        # She folds whatever she is dealt (checks when free): the bots play the hands out.
        while True:
            hand = live_table.hand
            index = live_table.table.hand_index(alice.id)
            if hand is not None and not hand.is_over and hand.to_act == index:
                legal = hand.legal()
                await game.slash(alice, "check" if legal and legal.can_check else "fold")
            await asyncio.sleep(0.01)

    folding = asyncio.create_task(alice_folds())
    try:
        for code, dealt in (("plo8", PLO8), ("nlhe", NLHE)):
            # Refused while a hand is played (its cards were dealt for its game): the host
            # asks again until he finds the pause between two hands.
            while True:
                number = live_table.table.hand_number
                reply = await game.poker(alice, "settings", game=code)
                assert reply.ephemeral, reply
                if reply.content != t("error.game_mid_hand"):
                    break
                await asyncio.sleep(0.02)

            def next_hand(wanted: object = dealt) -> Hand | None:
                hand = live_table.hand
                return hand if hand is not None and hand.game is wanted else None

            hand = await until(next_hand, timeout=60, what=f"a hand of {code}")
            # The hand being played when the host asked is the last of the old game.
            assert live_table.table.hand_number <= number + 1
            assert len(hand.hole_cards(0)) == dealt.hole_count
            assert live_table.bots() == bots  # nobody stood the bots up
            await until(lambda h=hand: h.is_over, timeout=60, what=f"the hand of {code} to end")
    finally:
        folding.cancel()


async def create_tournament(at: Game, user: FakeUser, **options: object) -> str:
    """``/tournament create`` (its options name the game too, which ``Game.slash`` takes for
    itself); the reply's text."""
    handle = await at.fake.slash(user, at.channel, "tournament", subcommand="create",
                                 options=options)
    return (await settled(handle)).content


async def test_a_tournament_keeps_the_game_it_was_created_with(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    options = {"name": "Omaha Friday", "kind": "freeze_out", "buy_in": 10,
               "starting_stack": 1000}
    reply = await create_tournament(game, alice, game="plo5", seats_per_table=10, **options)
    assert reply.startswith("Five-card Pot-Limit Omaha deals to at most 9 players"), reply
    reply = await create_tournament(game, alice, game="plo", bots=3,
                             **{**options, "name": "Practice", "buy_in": 0})
    assert reply.startswith("Tournament **Practice** is open (Pot-Limit Omaha)"), reply
    await game.ok(alice, "tournament", "cancel")
    reply = await create_tournament(game, alice, game="plo8", **options)
    assert reply.startswith("Tournament **Omaha Friday** is open (Pot-Limit Omaha Hi-Lo)"), reply
    await game.ok(alice, "tournament", "register")
    await game.ok(bob, "tournament", "register")
    # After registration nothing can change its game: a second create here is refused.
    reply = await create_tournament(game, alice, game="nlhe", **{**options, "name": "Other"})
    assert reply == t("error.channel_has_tournament")
    await game.ok(alice, "tournament", "start")
    running = game.runtime.registry.tournament_in(game.channel.id)
    assert running is not None
    table = next(iter(running.tables.values()))
    await until(lambda: table.hand, timeout=20, what="the tournament's first hand")
    assert table.hand is not None and table.hand.game is PLO8
    assert all(len(table.hand.hole_cards(i)) == 4 for i in range(table.hand.n))


async def test_run_it_twice_at_hi_lo_splits_each_runs_pot_high_and_low(game: Game) -> None:
    """All-in for the pot before the flop, the board run twice, each run's pot split high and
    low on its own board."""
    alice, bob = game.world.alice, game.world.bob
    await game.ok(alice, "poker", "create", game="plo8", small_blind=5, big_blind=10,
                  run_it_twice="always", min_buy_in=20, max_buy_in=1000)
    await game.ok(alice, "poker", "join", buy_in=30)
    await game.ok(bob, "poker", "join", buy_in=30)
    holes = [parse_cards("As 2s Kd Kh"), parse_cards("Ac 3c Qd Qh")]
    game.deck.push(deck_from_cards(2, holes, parse_cards("4d 5h 9c Jc Ts"), hole_count=4))
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    while not hand.is_over:
        user = await game.wait_turn()
        legal = hand.legal()
        assert legal is not None
        await game.ok(user, "allin" if legal.can_raise else "call")
    result = await game.wait_result(1)
    assert hand.second_board is not None
    assert "low half" in result.content and "high half" in result.content
    assert "on run 2" in result.content



async def test_a_bomb_pot_history_verify_and_replay_at_omaha(game: Game) -> None:
    """The extras and the records of a hand deal with four cards a player: a bomb pot flops at
    once, the PHH file says pot-limit Omaha, verify opens the asker's four cards only, and the
    replay draws the hand."""
    alice, bob = game.world.alice, game.world.bob
    await game.ok(alice, "poker", "create", game="plo", small_blind=5, big_blind=10)
    await game.ok(alice, "poker", "join", buy_in=1000)
    await game.ok(bob, "poker", "join", buy_in=1000)
    await game.ok(alice, "poker", "bomb", amount=20)
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    assert hand.config.bomb_pot and len(hand.board) == 3
    assert all(len(hand.hole_cards(i)) == 4 for i in range(hand.n))
    live_table = game.live_table()
    players = list(live_table.table.hand_players)
    # The first to act bets the pot, the other folds: nobody shows.
    await game.ok(await game.wait_turn(), "allin")
    await game.ok(await game.wait_turn(), "fold")
    await game.wait_result(1)
    await game.wait_idle()
    assert hand.result is not None and not hand.result.shown

    reply = await game.slash(bob, "history", "hand", hand=1)
    (phh,) = reply.attachments
    assert "variant = 'PO'" in phh.data.decode()

    reply = await game.slash(bob, "history", "verify", hand=1)
    # His own cards come in a file of his own, all four of them, and none of Alice's.
    (proofs,) = [a for a in reply.attachments if "my-cards" in a.filename]
    text = proofs.data.decode()
    assert all(f" {format_card(c)} " in text
               for c in hand.hole_cards(players.index(bob.id))), text[:300]
    assert not any(f" {format_card(c)} " in text
                   for c in hand.hole_cards(players.index(alice.id)))

    reply = await game.slash(alice, "history", "replay", hand=1)
    assert reply.ephemeral and reply.attachments
    assert reply.attachments[0].filename.endswith((".gif", ".png", ".webp"))


async def test_the_rabbit_of_an_omaha_hand_is_its_board_not_anybodys_cards(game: Game) -> None:
    """The rest of the board comes from the positions after four hole cards a player (dealing
    order in docs/verify.md): never a hole card, and verify opens exactly those positions."""
    alice, bob = game.world.alice, game.world.bob
    await game.ok(alice, "poker", "create", game="plo", small_blind=5, big_blind=10)
    await game.ok(alice, "poker", "join", buy_in=1000)
    await game.ok(bob, "poker", "join", buy_in=1000)
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    await game.ok(await game.wait_turn(), "fold")
    result = await game.wait_result(1)
    mark = game.fake.mark()
    answer = await settled(await game.fake.click(bob, result, button_id(result, "rabbit")))
    assert answer.content == t("reply.rabbit")
    shown = await game.fake.wait_for_message(
        lambda m: "hunts the rabbit of hand #1" in m.content, channel=game.channel, after=mark)
    positions = board_positions(2, 4)
    board = [hand.deck[p] for p in positions]
    assert cards_text(board) in shown.content
    holes = {c for i in range(hand.n) for c in hand.hole_cards(i)}
    assert not holes & set(board)
    stored = await hands.load_hand(game.db, 1)
    opened = {opening.position for opening in verification(stored, alice.id).public}
    assert opened == set(positions)
