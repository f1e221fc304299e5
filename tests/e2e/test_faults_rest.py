"""Discord's REST API on a bad day, at a cash table: each fault comes in the middle of a hand
while alice and bob play as people do (reading the table message, pressing its buttons, typing
its commands), and every promise of the fault suite is checked afterwards (``fault_kit``).

The faults: 500, 502, 503 and 504 on the table's edits, on its new messages (the next hand's
table, a result), on interaction answers, on followups and on the hole cards' DMs; answers
lost after the request took effect (a second message, or 40060 on the retried answer);
connections cut in the middle of an answer; every answer 1 to 3 s late; and, with no fault
at all, the same checks, which must hold.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.fault_kit import Place, Scene, cash_scene, table_messages
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord
from tests.fakediscord.faults import ANY, CALLBACK, STATUS_FAULTS, WEBHOOK, FaultRule, in_channel

pytestmark = pytest.mark.timeout(120)

Arm = Callable[[FakeDiscord, Place], FaultRule]  # a fault for the table at a place


async def test_without_a_fault_every_promise_holds(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """The control: the same players and checks, and no fault."""
    async with cash_scene(fake, world, tmp_path) as scene:
        hand = await scene.mid_hand()
        await scene.finish(hand)
        assert fake.faults == []
        assert len(scene.crowd.presses) >= 4


async def _one_fault(scene: Scene, arm: Arm, way: str | None = None) -> None:
    await scene.finish(await scene.fault_on_a_press(arm, way=way))


# The table's edits: a typed command is answered privately and the table edited; a press is
# answered by the table's own update. So a fault on an edit comes after a typed command, and the
# players then press the buttons they see, as people do (a press on a decision already made is
# refused: it cannot hide a stale table by acting on a later decision).
PRESSING = ("button",)


@pytest.mark.parametrize("status", STATUS_FAULTS)
async def test_a_table_edit_refused_with_a_server_error(
    fake: FakeDiscord, world: World, tmp_path: Path, status: int
) -> None:
    """The edit that names the next player fails once (503 is not retried by discord.py)."""
    async with cash_scene(fake, world, tmp_path, ways=PRESSING) as scene:
        await _one_fault(scene, lambda f, p: f.fail(status, p.edits, method="PATCH"), "slash")


@pytest.mark.parametrize("status", STATUS_FAULTS)
async def test_a_new_table_message_refused_with_a_server_error(
    fake: FakeDiscord, world: World, tmp_path: Path, status: int
) -> None:
    """The next new message of the table (the next hand's table, or a result) fails once."""
    async with cash_scene(fake, world, tmp_path) as scene:
        await _one_fault(scene, lambda f, p: f.fail(status, p.posts))


@pytest.mark.parametrize("status", STATUS_FAULTS)
async def test_an_interaction_answer_refused_with_a_server_error(
    fake: FakeDiscord, world: World, tmp_path: Path, status: int
) -> None:
    async with cash_scene(fake, world, tmp_path) as scene:
        await _one_fault(scene, lambda f, p: f.fail(status, CALLBACK), "button")


async def test_followups_refused_with_server_errors(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """A player asks for his cards (a deferred reply, then a followup) while followups fail."""
    async with cash_scene(fake, world, tmp_path) as scene:
        hand = await scene.mid_hand()
        rule = fake.fail(503, WEBHOOK, count=2)
        reply = await scene.game.slash(world.bob, "poker", "cards")
        await scene.served(rule)
        assert reply.content.startswith("Your cards"), (
            f"bob asked for his cards while a followup failed and got {reply.content!r}")
        await scene.finish(hand)


async def test_a_new_table_message_whose_answer_was_lost(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """The message was created, its answer lost: a retry must not post the table twice."""
    async with cash_scene(fake, world, tmp_path) as scene:
        await _one_fault(scene, lambda f, p: f.lose_answers(p.posts))


async def test_a_table_edit_whose_answer_was_lost(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with cash_scene(fake, world, tmp_path, ways=PRESSING) as scene:
        await _one_fault(scene, lambda f, p: f.lose_answers(p.edits, method="PATCH"), "slash")


@pytest.mark.parametrize("way", ["button", "slash"])
async def test_an_interaction_answer_that_was_lost(
    fake: FakeDiscord, world: World, tmp_path: Path, way: str
) -> None:
    """The answer reached the player (the table's update for a press, a private line for a
    typed command), the bot got 502 and its retry met 40060."""
    async with cash_scene(fake, world, tmp_path) as scene:
        await _one_fault(scene, lambda f, p: f.lose_answers(CALLBACK), way)


@pytest.mark.parametrize("route", ["edit", "post", "answer"])
async def test_a_connection_cut_in_the_middle_of_an_answer(
    fake: FakeDiscord, world: World, tmp_path: Path, route: str
) -> None:
    patterns: dict[str, Callable[[Place], str]] = {
        "edit": lambda p: p.edits, "post": lambda p: p.posts, "answer": lambda p: CALLBACK}
    ways = PRESSING if route == "edit" else ("button", "slash")
    async with cash_scene(fake, world, tmp_path, ways=ways) as scene:
        await _one_fault(scene, lambda f, p: f.reset_connections(patterns[route](p)),
                         "slash" if route == "edit" else "button")


@pytest.mark.parametrize("fault", ["503", "lost", "reset"])
async def test_a_hole_card_dm_that_fails(
    fake: FakeDiscord, world: World, tmp_path: Path, fault: str
) -> None:
    """Bob's cards of the next hand do not reach him (he can still ask for them)."""
    dm = in_channel(fake.dm_channel(world.bob).id, "")
    async with cash_scene(fake, world, tmp_path) as scene:
        await _one_fault(scene, lambda f, p: (
            f.fail(503, dm) if fault == "503" else f.lose_answers(dm) if fault == "lost"
            else f.reset_connections(dm)))


async def test_every_answer_one_to_three_seconds_late(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with cash_scene(fake, world, tmp_path) as scene:
        hand = await scene.mid_hand()
        rule = fake.delay(ANY, by=(1.0, 3.0), for_seconds=12)
        await scene.until(lambda: not rule.active, 20, "the slow spell to end")
        scene.back_now()
        await scene.finish(hand)


@pytest.mark.parametrize("fault", ["503 opening", "503", "lost", "reset"])
async def test_the_raise_form_through_a_fault(
    fake: FakeDiscord, world: World, tmp_path: Path, fault: str
) -> None:
    """Bets are made through the raise form; its opening (an answer to the button) or the
    answer to the form itself fails once."""
    arms: dict[str, Arm] = {
        "503 opening": lambda f, p: f.fail(503, CALLBACK, answering="button"),
        "503": lambda f, p: f.fail(503, CALLBACK, answering="form"),
        "lost": lambda f, p: f.lose_answers(CALLBACK, answering="form"),
        "reset": lambda f, p: f.reset_connections(CALLBACK, answering="form"),
    }
    async with cash_scene(fake, world, tmp_path, ways=("form", "button")) as scene:
        await _one_fault(scene, arms[fault])
        assert any(p.how == "form" and p.action == "raise" for p in scene.crowd.presses)


async def test_a_table_paused_for_hours_shows_itself_on_a_fresh_message(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """The host pauses; hours later bob leaves and the host resumes. Discord refuses edits of
    the table's hour-old message (30046): the table must show itself on a new one."""
    alice, bob = world.alice, world.bob
    async with cash_scene(fake, world, tmp_path) as scene:
        hand = await scene.mid_hand()
        await scene.game.ok(alice, "poker", "pause")
        place = scene.places[0]
        await scene.until(lambda: scene.game.live_table().hand is None, 30, "the hand to end")
        await scene.agreed()
        old = table_messages(fake, place)[-1]
        fake.advance_clock(3 * 3600)
        scene.back_now()
        await scene.game.ok(bob, "poker", "leave")
        await scene.game.ok(alice, "poker", "resume")
        await scene.finish(hand, deals=False, reposts=True)
        assert table_messages(fake, place)[-1].id != old.id, (
            "the table went on showing itself on its hours-old message")
