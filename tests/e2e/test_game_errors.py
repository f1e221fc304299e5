"""Bad input of every kind: each gets a private sentence from the catalog, never a traceback,
and leaves the table exactly as it was."""

from __future__ import annotations

import pytest

from bot.i18n import t
from tests.e2e.game_kit import STARTING_BALANCE, Game, button_id, total_chips
from tests.fakediscord import FakeUser

pytestmark = pytest.mark.timeout(60)


async def refused(game: Game, who: FakeUser, name: str, subcommand: str | None = None,
                  *, expected: str, **options: object) -> None:
    """The command is refused with ``expected``, privately, and nothing changed."""
    live_table = game.runtime.registry.cash_tables() and game.live_table()
    hand = live_table.hand if live_table else None
    before = (len(hand.actions), hand.state_key()) if hand is not None else None
    chips_before = await total_chips(game.db, game.world.guild.id)
    reply = await game.slash(who, name, subcommand, **options)
    assert reply.ephemeral, reply
    assert reply.content == expected, (name, subcommand, options, reply.content)
    assert "Traceback" not in reply.content
    hand = live_table.hand if live_table else None
    after = (len(hand.actions), hand.state_key()) if hand is not None else None
    assert after == before
    assert await total_chips(game.db, game.world.guild.id) == chips_before


async def test_every_kind_of_bad_input_is_refused_privately(game: Game) -> None:
    world = game.world
    alice, bob, carol = world.alice, world.bob, world.carol
    lobby = world.guild.channel("lobby")

    # No table here yet.
    await refused(game, alice, "fold", expected=t("error.no_table"))
    await refused(game, alice, "poker", "join", expected=t("error.no_table"))

    # Creating: bad options, then a second table in the same channel.
    await refused(game, alice, "poker", "create", seats=11,
                  expected=t("error.out_of_range", option=t("label.seats"), minimum=2, maximum=10))
    await refused(game, alice, "poker", "create", small_blind=20, big_blind=10,
                  expected=t("error.blinds_out_of_order"))
    await refused(game, alice, "poker", "create", big_blind=-10,
                  expected=t("error.amount_not_positive", option=t("label.big_blind")))
    await refused(game, alice, "poker", "create", timer=0,
                  expected=t("error.out_of_range", option=t("label.timer"), minimum=1, maximum=300))
    await refused(game, alice, "poker", "create", ante="big_blind",
                  expected=t("error.ante_missing"))
    await refused(game, alice, "poker", "create", reopen="sometimes",
                  expected=t("error.bad_option", option=t("label.reopen")))
    await game.ok(alice, "poker", "create", small_blind=5, big_blind=10, min_buy_in=100,
                  max_buy_in=20_000)
    await refused(game, bob, "poker", "create", expected=t("error.channel_has_table"))

    # Joining: amounts of every wrong shape, a seat that does not exist, a wallet too small.
    for amount, key, params in (
        (-5, "error.amount_not_positive", {"option": t("label.buy_in")}),
        (0, "error.amount_not_positive", {"option": t("label.buy_in")}),
        (150.5, "error.amount_not_whole", {"option": t("label.buy_in")}),
        (10**13, "error.amount_too_large",
         {"option": t("label.buy_in"), "maximum": "1,000,000,000,000"}),
        (50, "error.buy_in_out_of_range", {"amount": 50, "minimum": 100, "maximum": "20,000"}),
        (15_000, "error.insufficient_funds", {"balance": "10,000", "amount": "15,000"}),
    ):
        await refused(game, alice, "poker", "join", buy_in=amount, expected=t(key, **params))
    await refused(game, alice, "poker", "join", buy_in=500, seat=12,
                  expected=t("error.out_of_range", option=t("label.seat"), minimum=1, maximum=9))
    await game.ok(alice, "poker", "join", buy_in=1000, seat=1)
    await refused(game, alice, "poker", "join", buy_in=1000,
                  expected=t("error.already_seated"))
    await refused(game, bob, "poker", "join", buy_in=1000, seat=1,
                  expected=t("error.seat_taken", seat=1))
    await game.ok(bob, "poker", "join", buy_in=1000, seat=2)

    # Nothing to play yet; host commands by a guest.
    await refused(game, alice, "call", expected=t("error.no_hand"))
    await refused(game, bob, "poker", "void", expected=t("error.not_host"))
    await refused(game, bob, "poker", "kick", user=alice, expected=t("error.not_host"))
    await refused(game, bob, "chips", "grant", user=bob, amount=100,
                  expected=t("error.missing_permissions", permissions="Manage Server"))

    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    turn = await game.wait_turn()
    other = bob if turn is alice else alice
    legal = game.hand.legal()  # type: ignore[union-attr]
    assert legal is not None and legal.to_call == 5

    # Out of turn, not seated, in another channel.
    await refused(game, other, "call", expected=t("error.not_your_turn"))
    await refused(game, carol, "call", expected=t("error.not_in_hand"))
    await refused(game, turn, "call", channel=lobby, expected=t("error.no_table"))
    await refused(game, carol, "poker", "cards", expected=t("error.no_cards"))
    # Amounts: negative, zero, fractional, too big, below the minimum raise, a check owed.
    await refused(game, turn, "raise", to=-20,
                  expected=t("error.amount_not_positive", option=t("label.amount")))
    await refused(game, turn, "raise", to=0,
                  expected=t("error.amount_not_positive", option=t("label.amount")))
    await refused(game, turn, "raise", to=25.5,
                  expected=t("error.amount_not_whole", option=t("label.amount")))
    await refused(game, turn, "raise", to=5000,
                  expected=t("error.amount_above_stack", amount=5000, maximum="1,000"))
    await refused(game, turn, "raise", to=15,
                  expected=t("error.amount_below_minimum", amount=15, minimum=20))
    await refused(game, turn, "bet", amount=10**15,
                  expected=t("error.amount_too_large", option=t("label.amount"),
                             maximum="1,000,000,000,000"))
    await refused(game, turn, "check", expected=t("error.cannot_check", to_call=5))
    await refused(game, turn, "poker", "rebuy", amount=100, expected=t("error.rebuy_in_hand"))
    # A pre-selection is for players waiting, not for the one to act.
    live_table = game.live_table()
    tid = live_table.table_id
    await game.wait_idle()
    message = game.fake.message(live_table.message_id)  # type: ignore[arg-type]
    press = await game.fake.click(turn, message, button_id(message, "pre_call_any"))
    reply = await press.response()
    assert reply.ephemeral and reply.content == t("error.preselect_on_turn")
    # The raise form is only for the player to act, and checks what is typed.
    raise_form = button_id(message, "raise_modal")
    opener = await (await game.fake.click(other, message, raise_form)).response()
    assert opener.ephemeral and opener.content == t("error.not_your_turn")
    opener = await (await game.fake.click(turn, message, raise_form)).response()
    assert opener.is_modal and opener.custom_id == f"raise:{tid}:{turn.id}:1.0"
    for typed, expected in (
        ("lots", t("error.amount_not_whole", option=t("label.amount"))),
        ("-30", t("error.amount_not_positive", option=t("label.amount"))),
        ("12.5", t("error.amount_not_whole", option=t("label.amount"))),
        ("15", t("error.amount_below_minimum", amount=15, minimum=20)),
    ):
        submit = await game.fake.submit_modal(turn, opener.custom_id, {"amount": typed})
        answer = await submit.response()
        assert answer.ephemeral and answer.content == expected, (typed, answer.content)

    # After all that, the hand is intact and plays on.
    assert len(game.hand.actions) == 0  # type: ignore[union-attr]
    await game.ok(turn, "call")
    wallets, seats, in_hands = await total_chips(game.db, world.guild.id)
    assert wallets + seats + in_hands == 2 * STARTING_BALANCE


async def test_commands_outside_a_server_are_refused(game: Game) -> None:
    dm = game.fake.dm_channel(game.world.bob)
    reply = await game.slash(game.world.bob, "fold", channel=dm)
    assert reply.ephemeral and reply.content == t("error.guild_only")


async def test_a_table_never_holds_more_chips_than_a_hand_can_carry(game: Game) -> None:
    """Two full buy-ins of 10**12 would make an all-in's winner hold 2 * 10**12, a stack no
    hand can be dealt or stored with: the table froze, and nobody could leave or close it.
    The chips that come to a table are limited instead, and such a hand plays out."""
    alice, bob = game.world.alice, game.world.bob
    for user in (alice, bob):
        await game.ok(alice, "chips", "grant", user=user, amount=10**12)
    await game.ok(alice, "poker", "create", small_blind=5 * 10**9, big_blind=10**10)
    await game.ok(alice, "poker", "join", buy_in=6 * 10**11)
    await refused(game, bob, "poker", "join", buy_in=6 * 10**11,
                  expected=t("error.table_chips_full", amount="600,000,000,000",
                             maximum="1,000,000,000,000", room="400,000,000,000"))
    assert game.live_table().table.player(bob.id) is None
    await game.ok(bob, "poker", "join", buy_in=4 * 10**11)
    await refused(game, alice, "poker", "rebuy", amount=10**10,
                  expected=t("error.table_chips_full", amount="10,000,000,000",
                             maximum="1,000,000,000,000", room="0"))
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    await game.ok(await game.wait_turn(), "allin")
    await game.ok(await game.wait_turn(), "call")
    await game.wait_result(1)
    live_table = game.live_table()
    assert live_table.hand is None and live_table.table.chips_on_table == 10**12
    # Everybody can go home, and the host can close: every chip back where it came from.
    for user in (alice, bob):
        if live_table.table.player(user.id) is not None:
            await game.ok(user, "poker", "leave")
    await game.ok(alice, "poker", "close")
    assert await game.balance(alice) + await game.balance(bob) == 2 * (STARTING_BALANCE + 10**12)
