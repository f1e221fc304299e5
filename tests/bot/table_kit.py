"""What a table's unit tests run it on, with no Discord: services over a temporary database, a
messenger that records what the table would say (and tells the clock the moment a message
naming a player "went out"), and direct messages that record instead of sending."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord

from bot.presenter import ButtonSpec, TableMessage
from bot.render import Labels, TableView
from bot.runtime.clock import Reach
from bot.runtime.config import RuntimeOptions
from bot.runtime.direct import HoleCardsLetter
from bot.runtime.messenger import PromptHook, TableMessenger
from bot.runtime.registry import Registry
from bot.runtime.table import LiveTable, TableServices
from bot.storage import Database

QUICK = RuntimeOptions(next_hand_delay=0.01, bot_pause=(0.0, 0.0), prompt_grace=0.05,
                       runout_pause=0.0, run_twice_vote=0.2, calm_edit_interval=0.0)


@dataclass
class Said:
    """Everything a table asked its messenger to say, in order."""

    shown: list[TableMessage] = field(default_factory=list)
    posted: list[str] = field(default_factory=list)
    buttons: list[tuple[ButtonSpec, ...]] = field(default_factory=list)


class RecordingMessenger(TableMessenger):
    """A messenger whose every message "goes out" at once: recorded, and a table message that
    names a player starts his time, as a real send does."""

    def __init__(self, client: discord.Client, options: RuntimeOptions,
                 on_prompt: PromptHook) -> None:
        async def posted(message_id: int) -> None:
            return None

        super().__init__(client, 1, 1, options, lambda table_id, buttons: None, posted,
                         on_prompt=on_prompt)
        self.said = Said()

    def show(self, message: TableMessage, labels: Labels, *, new: bool = False,
             urgent: bool = True) -> None:
        self.said.shown.append(message)
        if message.prompt is not None and self.on_prompt is not None:
            self.on_prompt(message.prompt.marker, sending=True)
            self.on_prompt(message.prompt.marker)

    def post(self, content: str, labels: Labels, *, view: TableView | None = None,
             buttons: Sequence[ButtonSpec] = ()) -> None:
        self.said.posted.append(content)
        self.said.buttons.append(tuple(buttons))

    def pause(self, seconds: float) -> None:
        return None

    def then(self, callback: Callable[[], None]) -> None:
        callback()

    def prompt_queued(self, marker: tuple[int, int]) -> Reach:
        return Reach.TOLD

    async def drain(self, timeout: float) -> None:
        return None


class RecordingDirect:
    """Direct messages, recorded; background work still runs."""

    def __init__(self) -> None:
        self.dealt: list[list[HoleCardsLetter]] = []
        self.notices: list[tuple[int, str]] = []
        self.tasks: set[asyncio.Task[Any]] = set()

    def deal(self, letters: list[HoleCardsLetter]) -> None:
        self.dealt.append(letters)

    def notify(self, user_id: int, text: str) -> None:
        self.notices.append((user_id, text))

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def close(self, drain: float = 0.0) -> None:
        for task in list(self.tasks):
            task.cancel()


async def services(tmp_path: Path, options: RuntimeOptions = QUICK) -> TableServices:
    db = await Database.open(f"sqlite:///{tmp_path / 'tables.db'}")

    async def no_locales(user_ids: Sequence[int]) -> dict[int, str]:
        return {}

    return TableServices(
        db=db, options=options, client=discord.Client(intents=discord.Intents.none()),
        view_factory=lambda table_id, buttons: None, rng=random.Random(7),
        locales=no_locales, registry=Registry(lambda venue: None),
    )


def quiet(table: LiveTable[Any]) -> RecordingDirect:
    """Give ``table`` recorded direct messages (its DMs never reach Discord)."""
    direct = RecordingDirect()
    table.direct = direct  # type: ignore[assignment]
    return direct


async def until(check: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait for ``check`` (the table's own tasks run meanwhile)."""
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.01)

