"""A table waiting for its storage (``bot.runtime.waiting.StorageWait``): it tells its players
once, only for an outage that lasts; it takes up again the moment the database takes writes;
a commit whose answer was lost has the table taken up from storage instead; a failure that is
not the database's is tried again quietly."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from bot.runtime import waiting
from bot.runtime.waiting import StorageWait
from bot.storage.errors import StorageError, StorageUnavailable
from bot.storage.health import StorageHealth
from tests.bot.table_kit import until

pytestmark = pytest.mark.timeout(20)


@dataclass
class Calls:
    resumed: int = 0
    reloaded: int = 0
    told: int = 0
    stopped: int = 0
    playing: bool = False
    resume_fails: list[BaseException] = field(default_factory=list)


def machine(health: StorageHealth, calls: Calls) -> StorageWait:
    async def resume() -> None:
        if calls.resume_fails:
            raise calls.resume_fails.pop(0)
        calls.resumed += 1

    def reload() -> None:
        calls.reloaded += 1

    def tell() -> None:
        calls.told += 1

    def stop() -> None:
        calls.stopped += 1

    return StorageWait(health, asyncio.Lock(), resume, reload, tell, stop,
                       lambda: calls.playing, name="7")


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(waiting, "TELL_AFTER", 0.1)


async def test_an_outage_is_told_once_and_play_takes_up_when_writes_work() -> None:
    health, calls = StorageHealth(), Calls()
    wait = machine(health, calls)
    fault = StorageUnavailable("connection_lost")
    health.went_down(fault)
    wait.failed(fault)
    wait.failed(health.refusal())  # a press meanwhile: still one wait
    await asyncio.sleep(0.3)
    assert wait.waiting and calls.told == 1 and calls.resumed == 0
    health.came_back()
    await until(lambda: calls.resumed == 1)
    assert not wait.waiting and calls.told == 1 and calls.reloaded == 0


async def test_a_blip_shorter_than_the_notice_delay_says_nothing() -> None:
    health, calls = StorageHealth(), Calls()
    wait = machine(health, calls)
    fault = StorageUnavailable("timeout")
    health.went_down(fault)
    wait.failed(fault)
    await asyncio.sleep(0.02)
    health.came_back()
    await until(lambda: calls.resumed == 1)
    assert calls.told == 0


async def test_a_commit_whose_answer_was_lost_has_the_table_taken_up_from_storage() -> None:
    health, calls = StorageHealth(), Calls()
    wait = machine(health, calls)
    fault = StorageUnavailable("connection_lost", maybe_stored=True)
    health.went_down(fault)
    wait.failed(fault)
    health.came_back()
    await until(lambda: calls.reloaded == 1)
    assert calls.resumed == 0  # never guessed from memory


async def test_storage_refusing_what_memory_holds_has_the_table_reloaded() -> None:
    health, calls = StorageHealth(), Calls()
    calls.resume_fails.append(StorageError("hand_not_running", hand_id=3, status="finished"))
    wait = machine(health, calls)
    wait.failed(StorageUnavailable("io_error"))
    await until(lambda: calls.reloaded == 1)
    assert calls.resumed == 0


async def test_an_outage_again_while_taking_up_waits_again() -> None:
    health, calls = StorageHealth(), Calls()
    calls.resume_fails.append(StorageUnavailable("connection_lost"))
    wait = machine(health, calls)
    wait.failed(StorageUnavailable("connection_lost"))
    await until(lambda: not calls.resume_fails)  # the first try met the database away again
    await until(lambda: calls.resumed == 1)


async def test_a_failure_of_the_bots_own_is_tried_again_quietly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    health, calls = StorageHealth(), Calls()
    calls.resume_fails.append(RuntimeError("a bug"))
    wait = machine(health, calls)
    wait.failed(RuntimeError("a bug"))  # storage is up: a backoff, not a wait for it
    await until(lambda: calls.resumed == 1, timeout=8)
    assert calls.told == 0
    wait.close()


async def test_a_hand_being_played_waits_the_moment_the_database_goes() -> None:
    health, calls = StorageHealth(), Calls(playing=True)
    wait = machine(health, calls)
    health.went_down(StorageUnavailable("unreachable"))
    assert wait.waiting and calls.stopped == 1  # its clock and bots stopped at once
    health.came_back()
    await until(lambda: calls.resumed == 1)
    idle, quiet_calls = StorageHealth(), Calls(playing=False)
    between = machine(idle, quiet_calls)
    idle.went_down(StorageUnavailable("unreachable"))
    assert not between.waiting and quiet_calls.stopped == 0  # it waits when it next deals
    between.close()
    idle.came_back()
    assert not between.waiting
