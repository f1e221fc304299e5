"""Computer players over the fake Discord: a practice table of play chips, bots at a table of
the server's economy paid by the house, a practice tournament, and what the worst member of the
server would try with them (more bots than seats, bots where they may not sit, a bystander at
the controls, a bot removed in its turn, bots left alone, the house's daily cap mid-hand)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from itertools import permutations
from pathlib import Path

import pytest

from bot.runtime.cash import PracticeTable
from bot.storage import Database, economy, hands
from bot.storage.invariant import check_invariant
from engine.bots.ids import HOUSE_ID, is_bot
from engine.cards import Card, parse_cards, shuffled_deck
from engine.games import PLO
from engine.hand import Hand, deck_from_cards
from tests.e2e.game_kit import (
    Game,
    StackedDeck,
    quick_options,
    running_game,
    settled,
    until,
)
from tests.e2e.harness import World
from tests.e2e.test_attack_secrets import spellings
from tests.fakediscord import FakeDiscord, FakeUser
from tests.fakediscord.interactions import InteractionCallback

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]


async def ledger_rows(db: Database) -> int:
    async with db.read() as tx:
        return int(await tx.scalar("SELECT COUNT(*) FROM ledger"))


async def invariant_holds(game: Game) -> None:
    report = await check_invariant(game.db)
    assert report.ok, report


async def person_plays(
    game: Game, user: FakeUser, number: int, *, calls: bool, shoves: bool = False
) -> None:
    """Play ``user``'s turns in hand ``number`` (all in when ``shoves``; else checking when
    free, calling small bets when ``calls``, else folding) until the hand is over for him."""
    live_table = game.live_table()
    while True:
        hand = live_table.hand
        if hand is None or live_table.table.hand_number != number:
            return
        index = live_table.table.hand_index(user.id)
        if index is None or hand.folded[index] or hand.all_in[index]:
            return
        if hand.to_act != index:
            await asyncio.sleep(0.005)
            continue
        legal = hand.legal()
        assert legal is not None
        if shoves:
            await game.ok(user, "allin")
        elif legal.can_check:
            await game.ok(user, "check")
        elif calls and legal.to_call <= live_table.table.options.big_blind:
            await game.ok(user, "call")
        else:
            await game.ok(user, "fold")


async def hand_over(game: Game, number: int, timeout: float = 60.0) -> None:
    def done() -> bool:
        live_table = game.live_table()
        return live_table.closed or live_table.table.hand_number > number or (
            live_table.table.hand_number == number and live_table.hand is None
        )

    await until(done, timeout=timeout, what=f"hand #{number} to end")


# -- a practice table ---------------------------------------------------------------------------


async def test_a_practice_table_plays_fifty_hands_and_touches_no_wallet_or_ledger(
    game: Game,
) -> None:
    alice = game.world.alice
    wallet = await game.balance(alice)  # her wallet exists before, and must not move
    rows = await ledger_rows(game.db)
    reply = await game.ok(alice, "poker", "practice", bots=5, level="regular", blinds="5/10")
    assert "5" in reply and "play chips" in reply
    live_table = game.live_table()
    assert isinstance(live_table, PracticeTable)
    assert len(live_table.bots()) == 5 and live_table.people() == [alice.id]
    for number in range(1, 51):
        await game.wait_hand(number, timeout=60)
        await person_plays(game, alice, number, calls=number % 2 == 0)
        await hand_over(game, number)
        await invariant_holds(game)
        table = live_table.table
        assert sum(v.stack for v in table.seats()) == 6 * 1000  # play chips stay on the table
    message = await game.table_message()
    assert "\N{ROBOT FACE}" in message.content or "(bot)" in message.content
    assert await game.balance(alice) == wallet
    assert await ledger_rows(game.db) == rows
    # No bot and no practice hand reaches the leaderboard.
    board = await game.slash(alice, "chips", "leaderboard")
    assert "bot" not in board.content.lower() and "Ada" not in board.content
    # The last person stands up: the table closes by itself.
    await game.ok(alice, "poker", "leave")
    await until(lambda: live_table.closed, timeout=30, what="the practice table to close")
    assert await ledger_rows(game.db) == rows


async def test_practice_refuses_bad_input_and_leaves_nothing_open(game: Game) -> None:
    alice = game.world.alice
    for blinds in ("ten", "10/5", "5/", "/10", "5/10/20", "²/4", "9" * 5000 + "/1", "0/0"):
        reply = await game.slash(alice, "poker", "practice", blinds=blinds)
        assert reply.ephemeral and "blind" in reply.content.lower(), (blinds, reply.content)
    reply = await game.slash(alice, "poker", "practice", level="godlike")
    assert "beginner, regular or strong" in reply.content
    assert not game.runtime.registry.cash_tables()


# -- bots at a table of the server's economy ----------------------------------------------------


async def test_bots_at_an_economy_table_are_paid_by_the_house_hand_after_hand(
    game: Game,
) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live_table = await game.open_table(alice, bob, buy_in=1000, small_blind=5, big_blind=10)
    # Not allowed yet: a host cannot spend the house's chips on his own say.
    refused = await game.slash(alice, "poker", "bots add", count=2)
    assert "manager allows it" in refused.content
    # A bystander may not turn it on, nor seat bots once it is on.
    refused = await game.slash(bob, "chips", "settings", bots_allowed=True)
    assert refused.ephemeral
    assert not (await economy.get_settings(game.db, live_table.guild_id)).bots_allowed
    await game.ok(alice, "chips", "settings", bots_allowed=True, house_loss_cap=1_000_000)
    refused = await game.slash(carol, "poker", "bots add", count=2)
    assert "host" in refused.content
    assert not live_table.bots()
    # More bots than free seats: refused whole, nobody sits.
    refused = await game.slash(alice, "poker", "bots add", count=9)
    assert "only 7 seats are free" in refused.content and not live_table.bots()
    await game.ok(alice, "poker", "bots add", count=2, level="beginner")
    assert len(live_table.bots()) == 2
    await invariant_holds(game)
    await game.ok(alice, "poker", "start")
    for number in range(1, 51):
        await game.wait_hand(number, timeout=60)
        await asyncio.gather(
            person_plays(game, alice, number, calls=True),
            person_plays(game, bob, number, calls=number % 3 == 0),
        )
        await hand_over(game, number)
        await invariant_holds(game)
    assert live_table.table.hand_number >= 50
    house = await economy.house_report(game.db, live_table.guild_id)
    held = sum(v.stack for v in live_table.table.seats() if is_bot(int(v.player_id)))
    # The house put chips in for its bots; what it has plus what they hold, less that, is
    # what they won.
    assert house.floated > 0
    assert house.net == house.balance + held - house.floated
    async with game.db.read() as tx:
        paid = await tx.scalar(
            "SELECT COUNT(*) FROM ledger WHERE source = ? AND reason = 'buy_in'",
            (f"wallet:{HOUSE_ID}",),
        )
    assert paid == 2
    await game.ok(alice, "poker", "bots remove")
    await hand_over(game, live_table.table.hand_number)
    await until(lambda: not live_table.bots() or None, timeout=30, what="the bots to stand up")
    await invariant_holds(game)
    stats = await game.slash(alice, "chips", "leaderboard")
    assert "bot" not in stats.content.lower()


async def test_bots_never_play_on_alone(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    live_table = await game.open_table(alice, bob, buy_in=1000)
    await game.ok(alice, "chips", "settings", bots_allowed=True)
    await game.ok(alice, "poker", "bots add", count=3)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1, timeout=30)
    await game.ok(alice, "poker", "leave")
    await game.ok(bob, "poker", "leave")
    await hand_over(game, 1)
    await asyncio.sleep(0.5)
    assert live_table.hand is None and live_table.table.hand_number == 1, "bots dealt to themselves"
    assert live_table.empty_since is not None  # the idle sweep will close it


@pytest.mark.parametrize("dealt", ["nlhe", "plo"])
async def test_a_bot_removed_in_its_turn_folds_and_its_bet_stays(
    fake: FakeDiscord, world: World, tmp_path: Path, dealt: str
) -> None:
    deck = StackedDeck()
    options = replace(quick_options(deck), bot_pause=(30.0, 30.0))  # it thinks long
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        alice = world.alice
        await game.ok(alice, "poker", "practice", bots=1, blinds="5/10", game=dealt)
        live_table = game.live_table()
        assert live_table.table.options.game.code == dealt
        (seat,) = live_table.bots()
        bot = live_table.bots()[seat]

        def bots_turn() -> Hand | None:
            hand = live_table.hand
            if hand is None or hand.to_act is None:
                return None
            return hand if live_table.player_of(hand.to_act) == bot else None

        hand = live_table.hand
        assert hand is not None
        if not bots_turn():
            # One action of hers makes it the bot's turn (playing the hand out would wait on
            # the bot's long pause at every one of its turns).
            legal = hand.legal()
            assert legal is not None
            await game.ok(alice, "check" if legal.can_check else "call")
        hand = await until(bots_turn, timeout=10, what="the bot's turn")
        index = hand.to_act
        assert index is not None
        put_in = hand.contributions[index]
        assert put_in > 0  # a blind at least
        reply = await game.ok(alice, "poker", "bots remove", seat=seat)
        assert "stood up" in reply or "fold" in reply
        assert hand.folded[index]
        assert hand.contributions[index] == put_in


async def test_bots_refused_where_they_may_not_sit(game: Game) -> None:
    alice = game.world.alice
    await game.ok(alice, "poker", "practice", bots=8)
    live_table = game.live_table()
    refused = await game.slash(alice, "poker", "bots add", count=1)
    assert "only 0 seats are free" in refused.content
    refused = await game.slash(alice, "poker", "bots remove", seat=1)
    assert "no bot in seat 1" in refused.content.lower() or not live_table.bots().get(1)
    refused = await game.slash(alice, "poker", "bots add", count=2, seat=3)
    assert "one bot" in refused.content.lower()
    assert len(live_table.bots()) == 8


async def test_bots_are_refused_at_a_tournament_table_and_a_paid_tournament(
    game: Game,
) -> None:
    alice = game.world.alice
    refused = await create_tournament(game, alice, name="Paid", kind="freeze_out", buy_in=100,
                                      starting_stack=1000, bots=3)
    assert "buy-in to 0" in refused.content
    made = await create_tournament(game, alice, name="Practice", kind="freeze_out", buy_in=0,
                                   starting_stack=1000, structure="10/20 1", bots=3,
                                   max_players=4)
    assert "3 bots entered" in made.content
    await game.ok(alice, "tournament", "register")
    await game.ok(alice, "tournament", "start")
    await until(lambda: game.runtime.registry.table_in(game.channel.id), timeout=10)
    refused = await game.slash(alice, "poker", "bots add", count=1)
    assert "when it is created" in refused.content


@pytest.mark.parametrize("dealt", ["nlhe", "plo8"])
async def test_a_practice_tournament_with_bots_plays_to_the_end(game: Game, dealt: str) -> None:
    alice = game.world.alice
    wallet = await game.balance(alice)
    rows = await ledger_rows(game.db)
    made = await create_tournament(
        game, alice, name="Drill", kind="freeze_out", buy_in=0, starting_stack=300,
        structure="10/20 0.05, 20/40 0.05, 50/100 0.05", bots=3, max_players=4,
        bot_level="beginner", game=dealt,
    )
    assert made.ephemeral and "bots entered" in made.content
    await game.ok(alice, "tournament", "register")
    await game.ok(alice, "tournament", "start")
    live = await until(lambda: game.runtime.registry.tournament_in(game.channel.id), timeout=10)

    async def alice_folds() -> None:
        while not live.closed:
            for table in list(live.tables.values()):
                hand = table.hand
                if hand is None or hand.to_act is None:
                    continue
                if table.player_of(hand.to_act) == alice.id:
                    legal = hand.legal()
                    assert legal is not None
                    channel = fake_channel(game, table.channel_id)
                    await game.slash(alice, "fold" if not legal.can_check else "check",
                                     channel=channel)
            await asyncio.sleep(0.01)

    player = asyncio.create_task(alice_folds())
    try:
        await until(lambda: live.closed, timeout=200, what="the tournament to end")
    finally:
        player.cancel()
    assert await game.balance(alice) == wallet
    assert await ledger_rows(game.db) == rows
    await invariant_holds(game)


async def create_tournament(at: Game, user: FakeUser, **options: object) -> InteractionCallback:
    handle = await at.fake.slash(user, at.channel, "tournament", subcommand="create",
                                 options=options)
    return await settled(handle)


def fake_channel(game: Game, channel_id: int) -> object:
    return game.fake.state.channels[channel_id]


@pytest.mark.parametrize("dealt", ["nlhe", "plo"])
async def test_no_log_line_message_or_stored_action_shows_a_bots_hidden_cards(
    game: Game, every_log_line: list[str], dealt: str
) -> None:
    """Ten hands at a practice table with every logger at DEBUG: no bot's unshown hole cards in
    any log line, channel message, DM or stored action (in Omaha, no two of them side by side,
    in either order)."""
    alice = game.world.alice
    await game.ok(alice, "poker", "practice", bots=3, level="strong", game=dealt)
    count = game.live_table().table.options.game.hole_count
    live_table = game.live_table()
    for number in range(1, 11):
        # Dealt by now, or already played: a hand she is out of goes by between two looks.
        await until(lambda n=number: live_table.table.hand_number >= n, timeout=60,
                    what=f"hand #{number}")
        await person_plays(game, alice, number, calls=True)
        await hand_over(game, number)
    await game.wait_idle()
    hidden: list[tuple[Card, Card]] = []
    public: set[Card] = set()
    async with game.db.read() as tx:
        ids = [int(r[0]) for r in await tx.fetchall("SELECT hand_id FROM hands")]
        actions = [str(r[0]) for r in await tx.fetchall("SELECT action FROM hand_actions")]
    for hand_id in ids:
        stored = await hands.load_hand(game.db, hand_id)
        shown = set(stored.result["shown"]) if stored.result else set()
        n = len(stored.players)
        for board in hands.rebuild_hand(stored).boards:
            public.update(board)
        for p in stored.players:
            dealt_cards = [stored.deck[p.player + k * n] for k in range(count)]
            if is_bot(p.user_id) and p.player not in shown:
                if count == 2:
                    hidden.append((dealt_cards[0], dealt_cards[1]))
                else:  # any two of them, in either order: however a listing sorts them
                    hidden.extend(permutations(dealt_cards, 2))
            else:
                public.update(dealt_cards)  # shown, or hers (told to her by DM)
    # A card hidden in one hand may be seen in another (a board, her own cards): a pair is
    # searched for only while one of its cards was never public; a spelling that reads as hex
    # is left out (it turns up inside digests in the log).
    secrets = [
        secret
        for cards in hidden
        if not set(cards) <= public
        for secret in spellings(cards)
        if not re.fullmatch(r"[0-9a-f]+", secret)
    ]
    assert secrets, "some bot folded its cards unseen"
    said = [m.content for m in game.fake.state.messages.values()]
    text = "\n".join([*every_log_line, *said, *actions])
    for secret in secrets:
        assert secret not in text, secret


class AliceWins:
    """A deck factory that deals Alice aces and the board two more, from the second hand on
    (the order of a hand is known once the first has placed the button)."""

    def __init__(self) -> None:
        self.game: Game | None = None

    def __call__(self) -> tuple[Card, ...]:
        assert self.game is not None
        live_table = self.game.live_table()
        table = live_table.table
        if table.hand_number == 0:
            return shuffled_deck()
        plan = table.next_plan()
        players = [int(table.seat(seat).player_id) for seat in plan.seats]  # type: ignore[union-attr]
        junk = iter(("7c2d", "8c3d", "9c4d", "Tc5d", "Jc6d"))
        holes = [
            parse_cards("AsAh") if pid == self.game.world.alice.id else parse_cards(next(junk))
            for pid in players
        ]
        return deck_from_cards(len(players), holes, parse_cards("AdAcKs9h3s"))


async def test_past_the_house_daily_cap_the_bots_stand_up_after_the_hand(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """The cap is reached in the middle of a hand: that hand plays out, then the bots stand up
    before the next deal, the channel is told, and no host can seat them again today."""
    deck = AliceWins()
    options = replace(quick_options(StackedDeck()), deck_factory=deck)
    async with running_game(fake, world, tmp_path, options=options) as game:
        deck.game = game
        alice, bob = world.alice, world.bob
        live_table = await game.open_table(alice, bob, buy_in=1000, small_blind=5, big_blind=10)
        await game.ok(alice, "chips", "settings", bots_allowed=True, house_loss_cap=1)
        await game.ok(alice, "poker", "bots add", count=2, level="beginner")
        await game.ok(alice, "poker", "start")
        lost_in = None
        for number in range(1, 8):
            await game.wait_hand(number, timeout=60)
            await asyncio.gather(
                person_plays(game, alice, number, calls=True, shoves=number > 1),
                person_plays(game, bob, number, calls=False),
            )
            await hand_over(game, number)
            if await economy.house_net(game.db, live_table.guild_id, since=0) < 0:
                lost_in = number
                break
        assert lost_in is not None, "the bots never lost a chip to Alice's aces"
        # Before the next deal they are gone, and the channel says why.
        await until(lambda: not live_table.bots() or None, timeout=30, what="the bots to go")
        notice = await game.fake.wait_for_message(
            lambda m: "daily limit" in m.content, channel=game.channel, timeout=20
        )
        assert "stand up" in notice.content
        refused = await game.slash(alice, "poker", "bots add", count=1)
        assert "already lost" in refused.content and not live_table.bots()
        await invariant_holds(game)


async def test_a_practice_table_keeps_no_ledger(game: Game) -> None:
    alice = game.world.alice
    await game.ok(alice, "poker", "practice", bots=2)
    refused = await game.slash(alice, "poker", "ledger")
    assert refused.ephemeral and "play chips" in refused.content


async def test_a_practice_table_of_pot_limit_omaha_plays_with_bots(game: Game) -> None:
    """``/poker practice game:plo``: five bots and one person deal Omaha, four cards each, the
    bots answer every turn within the pot limit and the play chips stay on the table."""
    alice = game.world.alice
    reply = await game.poker(alice, "practice", bots=5, level="strong", game="plo")
    assert reply.ephemeral and "play chips" in reply.content, reply
    live_table = game.live_table()
    assert live_table.table.options.game is PLO and len(live_table.bots()) == 5
    for number in range(1, 9):
        hand = await game.wait_hand(number, timeout=60)
        assert hand.game is PLO and all(len(hand.hole_cards(i)) == 4 for i in range(hand.n))
        await person_plays(game, alice, number, calls=True)
        await hand_over(game, number)
        await invariant_holds(game)
        assert sum(v.stack for v in live_table.table.seats()) == 6 * 1000
    bot_actions = [a for a in hand.actions if is_bot(live_table.player_of(a.player))]
    assert bot_actions  # the bots decided, and the engine took every answer
