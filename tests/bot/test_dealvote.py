"""The deal vote at a final table, on a fake clock: who may propose and answer, one proposal
at a time, a proposer turned down waits a level, a player going away or the time running out
is a rejection, and only everybody's acceptance makes the deal (once)."""

from __future__ import annotations

import asyncio

import pytest

from bot.errors import BotError
from bot.runtime.dealvote import DealOffer, DealVoting, figures
from engine.icm import icm_values

PLAYERS = (11, 22, 33, 44)
STACKS = {11: 5_000, 22: 3_000, 33: 1_500, 44: 500}
PRIZES = [500, 300, 200]


class FakeClock:
    """Unix seconds that move only when the test says; sleepers wake when their time comes."""

    def __init__(self) -> None:
        self.now = 1_000_000.0
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, future))
        await future

    async def advance(self, seconds: float) -> None:
        self.now += seconds
        for wake, future in list(self._sleepers):
            if wake <= self.now and not future.done():
                future.set_result(None)
        for _ in range(5):
            await asyncio.sleep(0)


class Harness:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.made: list[DealOffer] = []
        self.off: list[tuple[int, int | None]] = []
        self.vote = DealVoting(120, asyncio.Lock(), self._decide, self._off, name="t",
                               clock=self.clock, sleep=self.clock.sleep)

    async def _decide(self, offer: DealOffer) -> None:
        self.made.append(offer)

    def _off(self, offer: DealOffer, by: int | None) -> None:
        self.off.append((offer.number, by))

    def propose(self, user: int, level: int = 3, kind: str = "icm",
                players: tuple[int, ...] = PLAYERS, agreed: tuple[int, ...] = ()) -> DealOffer:
        self.vote.check_proposal(user, players, level, 4, kind)
        stacks = {p: STACKS[p] for p in players}
        offer = DealOffer(self.vote.next_number(), kind, user, stacks,
                          figures(kind, stacks, PRIZES), level, self.clock() + 120)
        self.vote.open(offer, agreed)
        return offer


def code(error: pytest.ExceptionInfo[BotError]) -> str:
    return error.value.code


async def test_only_everybody_accepting_makes_the_deal_once() -> None:
    h = Harness()
    offer = h.propose(11)
    assert h.vote.holds and sum(offer.prizes.values()) == sum(PRIZES)
    for user in PLAYERS[:-1]:
        assert await h.vote.answer(user, offer.number, True) is False
    assert h.made == [] and h.vote.holds
    assert await h.vote.answer(44, offer.number, True) is True
    assert h.made == [offer] and not h.vote.holds
    with pytest.raises(BotError) as late:  # a second press on the same button
        await h.vote.answer(44, offer.number, True)
    assert code(late) == "no_deal_vote" and h.made == [offer]


async def test_a_bystander_or_a_busted_player_may_not_propose() -> None:
    h = Harness()
    for outsider in (99, 55):  # 55 busted: no longer among the players still in
        with pytest.raises(BotError) as refused:
            h.vote.check_proposal(outsider, PLAYERS, 3, 4, "icm")
        assert code(refused) == "deal_not_in"
    assert not h.vote.holds


async def test_too_many_players_left_or_an_unknown_kind_is_refused() -> None:
    h = Harness()
    with pytest.raises(BotError) as refused:
        h.vote.check_proposal(11, (*PLAYERS, 55), 3, 4, "icm")
    assert code(refused) == "deal_too_many" and refused.value.params["left"] == 5
    with pytest.raises(BotError) as refused:
        h.vote.check_proposal(11, PLAYERS, 3, 4, "everything_to_me")
    assert code(refused) == "bad_option"


async def test_proposal_spam_one_at_a_time() -> None:
    h = Harness()
    h.propose(11)
    for user in PLAYERS:
        with pytest.raises(BotError) as refused:
            h.propose(user)
        assert code(refused) == "deal_open"
    h.vote.close()
    h.vote.hold(22, "chips")  # held during a hand: still one at a time
    with pytest.raises(BotError) as refused:
        h.propose(33)
    assert code(refused) == "deal_open"


async def test_an_accept_from_someone_not_in_the_deal_counts_for_nothing() -> None:
    h = Harness()
    offer = h.propose(11, players=(11, 22, 33))
    for stranger in (44, 99):
        with pytest.raises(BotError) as refused:
            await h.vote.answer(stranger, offer.number, True)
        assert code(refused) == "not_in_deal"
    with pytest.raises(BotError) as refused:  # nor may he reject it for them
        await h.vote.answer(99, offer.number, False)
    assert code(refused) == "not_in_deal"
    assert h.vote.accepted() == frozenset() and h.off == [] and h.vote.holds


async def test_a_button_of_an_older_offer_acts_on_nothing() -> None:
    h = Harness()
    first = h.propose(11)
    await h.vote.answer(22, first.number, False)
    second = h.propose(33)
    with pytest.raises(BotError) as refused:
        await h.vote.answer(44, first.number, True)
    assert code(refused) == "no_deal_vote" and h.vote.accepted() == frozenset()
    with pytest.raises(BotError) as twice:
        await h.vote.answer(44, second.number, True)
        await h.vote.answer(44, second.number, True)
    assert code(twice) == "already_voted"


async def test_a_rejection_ends_the_vote_and_the_proposer_waits_a_level() -> None:
    h = Harness()
    offer = h.propose(11, level=3)
    await h.vote.answer(11, offer.number, True)
    assert await h.vote.answer(33, offer.number, False) is False
    assert h.off == [(offer.number, 33)] and not h.vote.holds and h.made == []
    with pytest.raises(BotError) as wait:
        h.propose(11, level=3)
    assert code(wait) == "deal_wait" and wait.value.params["level"] == 4
    h.propose(22, level=3)  # the others may propose at once
    h.vote.close()
    h.propose(11, level=4)  # and he, from the next level


async def test_a_player_going_away_mid_vote_is_a_rejection() -> None:
    h = Harness()
    offer = h.propose(11)
    await h.vote.answer(22, offer.number, True)
    assert h.vote.withdraw(99) is False and h.vote.holds  # not in the deal: nothing happens
    assert h.vote.withdraw(44) is True
    assert h.off == [(offer.number, 44)] and not h.vote.holds and h.made == []


async def test_no_answer_in_time_is_a_rejection_and_the_timer_is_the_deadline() -> None:
    h = Harness()
    offer = h.propose(11, agreed=(22, 33, 44))  # computer players accept at once
    assert h.vote.accepted() == frozenset({22, 33, 44})
    await h.clock.advance(119)
    assert h.vote.holds and h.off == []
    await h.clock.advance(1)
    assert h.off == [(offer.number, None)] and not h.vote.holds and h.made == []
    with pytest.raises(BotError) as late:
        await h.vote.answer(11, offer.number, True)
    assert code(late) == "no_deal_vote" and h.made == []


async def test_a_deal_made_stops_its_timer() -> None:
    h = Harness()
    offer = h.propose(11, agreed=(22, 33, 44))
    assert await h.vote.answer(11, offer.number, True)
    await h.clock.advance(200)
    assert h.off == [] and h.made == [offer]


async def test_a_failed_decision_leaves_no_vote_open() -> None:
    h = Harness()

    async def refuse(offer: DealOffer) -> None:
        raise BotError("tournament_over")

    h.vote._decide = refuse
    offer = h.propose(11, agreed=(22, 33, 44))
    with pytest.raises(BotError):
        await h.vote.answer(11, offer.number, True)
    assert not h.vote.holds


def test_the_figures_are_the_engine_deals() -> None:
    stacks = {7: 5_000, 8: 3_000, 9: 2_000}
    assert figures("icm", stacks, [5_000, 3_000, 2_000]) == {7: 3840, 8: 3275, 9: 2885}
    assert figures("chips", stacks, [5_000, 3_000, 2_000]) == {7: 4000, 8: 3200, 9: 2800}


def test_t7_a_four_player_deal() -> None:
    """docs/rules.md T7: 4,000 / 3,000 / 2,000 / 1,000 chips, unpaid prizes 500 / 300 / 200."""
    stacks = {1: 4_000, 2: 3_000, 3: 2_000, 4: 1_000}
    assert [round(v, 2) for v in icm_values(list(stacks.values()), [500, 300, 200])] == [
        336.03, 294.88, 235.87, 133.21]
    assert figures("icm", stacks, [500, 300, 200]) == {1: 337, 2: 295, 3: 235, 4: 133}
    assert figures("chips", stacks, [500, 300, 200]) == {1: 400, 2: 300, 3: 200, 4: 100}
