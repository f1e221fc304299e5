"""Minimal reproductions of what the attack machine found, one test per distinct failure.

Each test states the promise the machine checks (its number in ``tests/attack/machine.py``);
each failed on the code the machine was first run against (981c402), and passes since it was
fixed. Check 7's test is the exception: what it first found (a kicked player cancelled his
fold) stopped being a bug when RULES 8 let a removed player play his hand out, so it now
guards that rule as the live_table implements it.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.i18n import t
from engine.cards import parse_cards
from engine.hand import ActionKind, PreAction, deck_from_cards
from tests.attack.kit import AttackWorld, HandRecorder, LogTrap, find_leaks
from tests.e2e.game_kit import (
    STARTING_BALANCE,
    Game,
    StackedDeck,
    button_id,
    press_answer,
    until,
)
from tests.fakediscord import FakeUser

pytestmark = pytest.mark.timeout(60)


async def heads_up(game: Game, world: AttackWorld) -> tuple[FakeUser, FakeUser]:
    """alice (host) and bob seated with 1,000 each and hand #1 dealt; (first to act, other)."""
    alice, bob = world.members[:2]
    await game.ok(alice, "poker", "create", small_blind=5, big_blind=10)
    for user in (alice, bob):
        await game.ok(user, "poker", "join", buy_in=1000)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    first = await game.wait_turn()
    return first, bob if first is alice else alice


def logged(trap: LogTrap) -> list[str]:
    return [LogTrap.describe(record) for record in trap.records]


async def test_check_4_an_odd_raise_typed_in_the_form_is_refused_politely(
    game: Game, world: AttackWorld, trap: LogTrap
) -> None:
    """The raise form's text goes through ``whole_chips``: "²" and "①" pass ``str.isdigit``
    but not ``int()``, so the player gets "Something went wrong" and a traceback is logged."""
    turn, _ = await heads_up(game, world)
    await game.wait_idle()
    message = await game.table_message()
    opener = await game.fake.click(turn, message, button_id(message, "raise_modal"))
    form = (await opener.response()).custom_id
    assert form is not None and form.startswith("raise:"), form
    for typed in ("²", "①"):
        submit = await game.fake.submit_modal(turn, form, {"amount": typed})
        answer = await submit.response()
        assert answer.content == t("error.amount_not_whole", option="amount"), (typed, answer)
    assert not logged(trap)


async def test_check_2_the_shuffle_check_does_not_show_folded_hands(
    game: Game, world: AttackWorld, recorder: HandRecorder
) -> None:
    """``/history verify`` prints the whole deck in deal order, so anyone can read the hole cards
    of players who folded and never showed (deck[i], deck[i + n])."""
    alice, bob, carol = world.members[:3]
    await game.ok(alice, "poker", "create")
    for user in (alice, bob, carol):
        await game.ok(user, "poker", "join", buy_in=1000)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    for _ in range(2):  # two folds: the last player wins without a showdown
        await game.ok(await game.wait_turn(), "fold")
    await game.wait_result(1)
    mark = game.fake.mark()
    reply = await game.slash(bob, "history", "verify", hand=1)
    assert reply.ephemeral
    shown = recorder.shown_now()
    leaks = [
        leak
        for event in game.fake.events[mark:]
        for leak in find_leaks(game.fake, event.message, recorder.dealt, shown)
    ]
    names = {u.id: u.name for u in world.users}
    assert not leaks, [leak.describe(names) for leak in leaks]


async def test_check_6_a_double_click_acts_once(
    game: Game, world: AttackWorld, recorder: HandRecorder
) -> None:
    """Heads-up, the big blind closes the preflop action by checking and is first to act on
    the flop: both presses of one double click are taken, the second one on the flop (the
    table message is edited, not replaced, so the stale-message guard lets it through)."""
    small_blind, big_blind = await heads_up(game, world)
    await game.ok(small_blind, "call")
    message = await game.turn_message(big_blind, 1)
    custom = button_id(message, "check")
    handles = await asyncio.gather(
        game.fake.click(big_blind, message, custom), game.fake.click(big_blind, message, custom)
    )
    answers = [await press_answer(h) for h in handles]
    await game.wait_idle()
    (dealt,) = recorder.dealt
    index = dealt.players.index(big_blind.id)
    checks = [a for a in dealt.hand.actions if a.player == index and a.kind is ActionKind.CHECK]
    assert len(checks) == 1, (answers, dealt.hand.street)


async def test_check_4_huge_blinds_do_not_freeze_the_table(
    game: Game, world: AttackWorld, trap: LogTrap
) -> None:
    """``/poker settings big_blind:1000000000000`` is accepted (the blinds are in range), but
    the default buy-ins become 20x and 100x it, which storage refuses: every deal then fails
    ("dealing failed", logged) and the table never deals again."""
    turn, _ = await heads_up(game, world)
    alice = world.members[0]
    reply = await game.slash(alice, "poker", "settings", big_blind=10**12)
    accepted = reply.content in (t("reply.settings_next_hand"), t("reply.settings"))
    await game.ok(turn, "fold")
    await game.wait_result(1)
    if accepted:
        await until(lambda: game.live_table().table.hand_number == 2 or trap.records,
                    timeout=3, what="hand #2 or an error")
        await asyncio.sleep(0.3)
    assert not logged(trap)
    assert not accepted or game.live_table().table.hand_number == 2


async def test_check_4_a_long_result_is_posted(
    game: Game, world: AttackWorld, deck: StackedDeck, trap: LogTrap
) -> None:
    """Ten players with long names all in and the board a royal flush: every pot is split
    between all its players, one line per share, and the result (over 2,000 characters) is
    refused by Discord and dropped: nobody sees who won."""
    players = world.members
    deck.push(deck_from_cards(len(players), [], parse_cards("AsKsQsJsTs")))
    await game.ok(players[0], "poker", "create", small_blind=1, big_blind=2, seats=10)
    for n, user in enumerate(players):
        await game.ok(user, "poker", "join", buy_in=100 + 7 * n)
    await game.ok(players[0], "poker", "start")
    hand = await game.wait_hand(1)
    while not hand.is_over:
        await game.ok(await game.wait_turn(), "allin")
    await game.wait_idle()
    results = [m for m in game.fake.messages_in(game.channel)
               if m.content.startswith("**Hand #1: result**")]
    assert results, logged(trap)
    assert not logged(trap)


async def test_check_4_no_table_where_the_bot_cannot_post(
    game: Game, world: AttackWorld, trap: LogTrap
) -> None:
    """The bot may read but not write in #readonly; ``/poker create`` there still opens a
    table, whose messages Discord then refuses (403 Missing Permissions): players sit at a
    table they cannot see. It should refuse, as it does for other missing permissions."""
    alice = world.members[0]
    readonly = world.channel("readonly")
    await game.slash(alice, "poker", "create", channel=readonly)
    await asyncio.sleep(0.3)
    for live_table in game.runtime.registry.cash_tables():
        await live_table.messenger.flush(5)
    assert not logged(trap)
    refused = [r for r in game.fake.requests if r.status == 403 and str(readonly.id) in r.path]
    assert not refused, refused


async def test_check_7_a_kicked_player_plays_the_hand_out_and_is_gone_after_it(
    game: Game, world: AttackWorld, recorder: HandRecorder
) -> None:
    """RULES 8: a player the host removes during a hand leaves once that hand ends. He may
    play it out (here he pre-selects "Call any" after the kick), but he is not seated when it
    is over, is dealt no later hand, and his stack goes back to his wallet."""
    alice, bob, carol, dave = world.members[:4]
    await game.ok(alice, "poker", "create")
    for user in (bob, carol, dave):
        await game.ok(user, "poker", "join", buy_in=1000)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    first = await game.wait_turn()
    victim = next(u for u in (bob, carol, dave) if u is not first)
    reply = await game.slash(alice, "poker", "kick", user=victim)
    assert reply.content.endswith("will be removed when this hand ends."), reply
    await game.wait_idle()
    message = await game.table_message()
    pressed = await game.fake.click(victim, message, button_id(message, "pre_call_any"))
    assert await press_answer(pressed) == t("preselect.call_any")
    await game.passive_round(1)
    await game.wait_hand(2)
    live_table = game.live_table()
    assert live_table.table.player(victim.id) is None
    assert victim.id not in {int(p) for p in live_table.table.hand_players}
    (removal,) = recorder.removals
    result = removal.dealt.hand.result
    assert result is not None
    final_stack = result.stacks[removal.index]
    assert await game.balance(victim) == STARTING_BALANCE - 1000 + final_stack


# Found by the machine on 2251709: a double click on a toggle button acted twice, turning it
# on and straight back off. Fixed by taking a player's second press of a toggle within
# ``play.DOUBLE_CLICK`` as the same click; a deliberate second press, later, still undoes it
# (tests/e2e/test_game_extras.py).
async def test_check_6_a_double_click_on_straddle_always_asks_once(
    game: Game, world: AttackWorld
) -> None:
    """``straddle_always`` carries no decision (``bot.ui._NEEDS_REF``) and
    ``CashTable.straddle`` toggles: both presses of one double click are taken, the player
    is told "You'll straddle every hand" and then "You no longer straddle every hand"."""
    alice, bob, carol = world.members[:3]
    await game.open_table(alice, bob, carol, straddle="utg")
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    await game.wait_idle()
    message = await game.table_message()
    custom = button_id(message, "straddle_always")
    handles = await asyncio.gather(
        game.fake.click(carol, message, custom), game.fake.click(carol, message, custom)
    )
    answers = [await press_answer(h) for h in handles]
    assert carol.id in game.live_table().config.straddle_always, answers


async def test_check_6_a_double_click_on_call_any_sets_it_once(
    game: Game, world: AttackWorld
) -> None:
    """A pre-selection's button names its hand only (``@<hand>.0``) and pressing it again
    cancels it (``CashTable.preselect``): a double click on "Call any" sets it and cancels
    it, and the player who waits for his turn to call does not call."""
    alice, bob, carol = world.members[:3]
    await game.open_table(alice, bob, carol)
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    first = await game.wait_turn()
    waiting = next(u for u in (alice, bob, carol) if u is not first)
    await game.wait_idle()
    message = await game.table_message()
    custom = button_id(message, "pre_call_any")
    handles = await asyncio.gather(
        game.fake.click(waiting, message, custom), game.fake.click(waiting, message, custom)
    )
    answers = [await press_answer(h) for h in handles]
    index = game.live_table().table.hand_index(waiting.id)
    assert index is not None
    chosen = hand.preselected.get(index)
    assert chosen is not None and chosen[0] is PreAction.CALL_ANY, answers
