"""The defect as players met it, with the real discord.py client: a single 503 on the edit that
names the next player (discord.py does not retry a 503) used to be dropped, and the channel
kept showing the previous player to act until the clock moved the hand. The edit is owed and
sent again: the next player is shown, named and timed from then."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from tests.e2e.game_kit import Game, until
from tests.fakediscord.state import ApiError
from tests.timing import scaled

pytestmark = pytest.mark.timeout(90)

DEADLINE = re.compile(r"<t:(\d+):R>")


async def test_a_503_on_the_edit_naming_the_next_player_is_sent_again(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob, timer=30)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    first = await game.wait_turn()
    second = bob if first == alice else alice
    await game.wait_idle()
    edit = game.fake.state.edit_message
    refused: list[str] = []

    def failing_once(current: Any, data: Mapping[str, Any], files: Sequence[Any],
                     **kwargs: Any) -> Any:
        content = str(data.get("content") or "")
        if not refused and f"{second.mention} to act" in content:
            refused.append(content)
            raise ApiError(503, 0, "Service Unavailable")
        return edit(current, data, files, **kwargs)

    monkeypatch.setattr(game.fake.state, "edit_message", failing_once)
    called_at = time.monotonic()
    await game.ok(first, "call")
    shown = await game.turn_message(second, 1)
    # Within seconds, and still before the flop: not the clock moving the hand 30 s later.
    assert time.monotonic() - called_at < scaled(10.0)
    assert refused, "the fault was never met"
    hand = game.hand
    assert hand is not None and not hand.board
    assert second.id in shown.mentioned_user_ids
    match = DEADLINE.search(shown.content)
    assert match is not None
    live_table = game.live_table()
    # His time runs from the edit that told him, with the deadline it shows.
    await until(lambda: live_table.decision is not None
                and live_table.decision.deadline == int(match[1]),
                what="his time started with the deadline shown")
    await game.ok(second, "check")  # and the hand goes on
