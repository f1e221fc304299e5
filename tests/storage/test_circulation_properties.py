"""The circulation cap under random sequences (hypothesis): chips are refused where they enter
a server, never where they come back.

Each example runs, with the cap lowered so that sequences reach it often, a drawn sequence of
grants, removals, daily bonuses, transfers, buy-ins, cash hands (stacks shared out again),
leaving, table closing, tournament registrations, unregistrations, cancellations and prize
payouts. A small model predicts every wallet: a grant or a daily bonus is refused with
``circulation_full`` exactly when it would take the server past the cap (leaving every row as it
was), a new wallet opens with what room is left, and every credit that gives chips back (a
cash-out, a close, a refund, a prize, a hand's result) succeeds, always. After every step the
chip invariant holds (the circulation counter included), the circulation is the model's and
never above the cap, and so no wallet, seat or prize pool is either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from hypothesis import strategies as st

from bot.storage import Database, StorageError, economy, hands, invariant, tables, tournaments
from bot.storage.hands import HandSeat, PlayerResult
from bot.storage.tournaments import Placing
from tests.storage.conftest import deck_and_commitment, snapshot
from tests.storage.model_kit import on_both_backends

GUILD = 1_000_000_001
HOST = 500
USERS = (101, 102, 103, 104, 105)
CHANNEL = 9_001
CAP = 60_000
DAILY = 5_000

users = st.sampled_from(USERS)


@dataclass
class Tourney:
    tid: int
    buy_in: int
    status: str = "registering"
    paid: dict[int, int] = field(default_factory=dict)


class World:
    def __init__(self, db: Database, data: st.DataObject, start: int) -> None:
        self.db, self.data, self.start = db, data, start
        self.now = 1_000
        self.wallets: dict[int, int] = {}
        self.circulation = 0
        self.table_id = 0
        self.seats: dict[int, int] = {}  # user -> stack at the open table
        self.tourneys: list[Tourney] = []
        self.channel = CHANNEL + 1

    def draw(self, strategy: st.SearchStrategy[Any], label: str) -> Any:
        return self.data.draw(strategy, label=label)

    def opened(self, user: int) -> tuple[int, int]:
        """(his balance, the circulation) once his wallet is open (opening mints what fits)."""
        if user in self.wallets:
            return self.wallets[user], self.circulation
        starting = max(0, min(self.start, CAP - self.circulation))
        return starting, self.circulation + starting

    def open(self, user: int) -> None:
        self.wallets[user], self.circulation = self.opened(user)

    async def refused(self, code: str, call: Any) -> None:
        before = await snapshot(self.db)
        try:
            await call
        except StorageError as exc:
            assert exc.code == code, exc
        else:
            raise AssertionError(f"accepted, the model expected {code}")
        assert await snapshot(self.db) == before

    # -- chips entering and leaving -------------------------------------------------------

    async def grant(self) -> None:
        user = self.draw(users, "user")
        amount = self.draw(st.sampled_from([1, 500, 5_000, 20_000, 40_000]), "amount")
        _, circulation = self.opened(user)
        if circulation + amount > CAP:
            await self.refused("circulation_full", economy.grant(
                self.db, GUILD, user, amount, actor_id=HOST, now=self.now))
            return
        balance = await economy.grant(self.db, GUILD, user, amount, actor_id=HOST, now=self.now)
        self.open(user)
        self.wallets[user] += amount
        self.circulation += amount
        assert balance == self.wallets[user]

    async def claim_daily(self) -> None:
        user = self.draw(users, "user")
        self.now += 1  # no cooldown: only the cap can refuse it
        _, circulation = self.opened(user)
        if circulation + DAILY > CAP:
            await self.refused("circulation_full", economy.claim_daily(
                self.db, GUILD, user, now=self.now))
            return
        claim = await economy.claim_daily(self.db, GUILD, user, now=self.now)
        self.open(user)
        self.wallets[user] += DAILY
        self.circulation += DAILY
        assert claim.balance == self.wallets[user]

    async def remove(self) -> None:
        rich = [u for u, b in self.wallets.items() if b > 0]
        if not rich:
            return
        user = self.draw(st.sampled_from(rich), "user")
        amount = self.draw(st.integers(1, self.wallets[user]), "amount")
        assert await economy.remove(self.db, GUILD, user, amount, actor_id=HOST) == (
            self.wallets[user] - amount
        )
        self.wallets[user] -= amount
        self.circulation -= amount

    async def transfer(self) -> None:
        giver, taker = self.draw(users, "from"), self.draw(users, "to")
        if giver == taker:
            return
        for user in (giver, taker):  # opened first, each with what room is left
            expected, _ = self.opened(user)
            assert await economy.open_wallet(self.db, GUILD, user, now=self.now) == expected
            self.open(user)
        if self.wallets[giver] == 0:
            return
        amount = self.draw(st.integers(1, self.wallets[giver]), "amount")
        done = await economy.transfer(self.db, GUILD, giver, taker, amount, now=self.now)
        self.wallets[giver] -= amount
        self.wallets[taker] += amount
        assert (done.from_balance, done.to_balance) == (self.wallets[giver], self.wallets[taker])

    # -- a cash table ---------------------------------------------------------------------

    async def buy_in(self) -> None:
        user = self.draw(users, "user")
        balance, _ = self.opened(user)
        if user in self.seats or balance < 100:
            return
        amount = self.draw(st.integers(100, min(balance, 1_000)), "buy-in")
        await tables.buy_in(self.db, self.table_id, user, amount, now=self.now)
        self.open(user)
        self.wallets[user] -= amount
        self.seats[user] = amount

    async def play_hand(self) -> None:
        """A hand between every seated player with chips: the stacks shared out anew."""
        table = await tables.get_table(self.db, self.table_id)
        seated = [s for s in table.seats if s.stack > 0]
        if len(seated) < 2:
            return
        players = [HandSeat(i, s.seat_no, s.user_id, s.stack) for i, s in enumerate(seated)]
        total = sum(p.stack for p in players)
        cuts = sorted(self.draw(st.lists(st.integers(0, total), min_size=len(players) - 1,
                                         max_size=len(players) - 1), "cuts"))
        finals = [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]
        hand_id = await hands.start_hand(
            self.db, self.table_id, config={"stacks": [p.stack for p in players]},
            players=players, now=self.now, **deck_and_commitment(),  # type: ignore[arg-type]
        )
        await hands.record_hand_result(
            self.db, hand_id, {},
            [PlayerResult(p.player, final, 0, 0, vpip=False, pfr=False)
             for p, final in zip(players, finals, strict=True)],
            pot=0, now=self.now,
        )
        for p, final in zip(players, finals, strict=True):
            self.seats[p.user_id] = final

    async def leave_table(self) -> None:
        if not self.seats:
            return
        user = self.draw(st.sampled_from(sorted(self.seats)), "user")
        returned = await tables.leave_table(self.db, self.table_id, user, now=self.now)
        assert returned == self.seats[user]
        self.wallets[user] += self.seats.pop(user)

    async def close_table(self) -> None:
        returned = await tables.close_table(self.db, self.table_id, actor_id=HOST, now=self.now)
        assert returned == self.seats
        for user, stack in self.seats.items():
            self.wallets[user] += stack
        self.seats = {}
        await self.open_table()

    async def open_table(self) -> None:
        info = await tables.create_table(self.db, GUILD, CHANNEL, HOST, config={},
                                         min_buy_in=100, max_buy_in=1_000, now=self.now)
        self.table_id = info.table_id

    # -- tournaments ----------------------------------------------------------------------

    def tourney(self, *statuses: str) -> Tourney | None:
        found = [t for t in self.tourneys if t.status in statuses]
        return self.draw(st.sampled_from(found), "tournament") if found else None

    async def create_tournament(self) -> None:
        buy_in = self.draw(st.sampled_from([0, 100, 5_000]), "tournament buy-in")
        self.channel += 1
        info = await tournaments.create_tournament(
            self.db, GUILD, self.channel, HOST, name=f"T{self.channel}", kind="freeze_out",
            buy_in=buy_in, max_players=len(USERS), config={}, enforce_limits=False,
            now=self.now,
        )
        self.tourneys.append(Tourney(info.tournament_id, buy_in))

    async def register(self) -> None:
        t = self.tourney("registering")
        user = self.draw(users, "user")
        if t is None or user in t.paid or self.opened(user)[0] < t.buy_in:
            return
        done = await tournaments.register(self.db, t.tid, user, now=self.now)
        self.open(user)
        self.wallets[user] -= t.buy_in
        t.paid[user] = t.buy_in
        assert done.balance == self.wallets[user]

    async def unregister(self) -> None:
        t = self.tourney("registering")
        if t is None or not t.paid:
            return
        user = self.draw(st.sampled_from(sorted(t.paid)), "user")
        balance = await tournaments.unregister(self.db, t.tid, user, now=self.now)
        self.wallets[user] += t.paid.pop(user)
        assert balance == self.wallets[user]

    async def start_tournament(self) -> None:
        t = self.tourney("registering")
        if t is None or len(t.paid) < 2:
            return
        await tournaments.start_tournament(self.db, t.tid, state={}, now=self.now,
                                           enforce_limits=False)
        t.status = "running"

    async def cancel_tournament(self) -> None:
        t = self.tourney("registering", "running")
        if t is None:
            return
        refunds = await tournaments.cancel_tournament(self.db, t.tid, actor_id=HOST,
                                                      now=self.now)
        assert refunds == t.paid
        for user, paid in t.paid.items():
            self.wallets[user] += paid
        t.status = "cancelled"

    async def finish_tournament(self) -> None:
        t = self.tourney("running")
        if t is None:
            return
        entrants = sorted(t.paid)
        pool = sum(t.paid.values())
        # The whole pool, shared out at random (to one player, often).
        winner = self.draw(st.sampled_from(entrants), "winner")
        share = self.draw(st.integers(0, pool), "winner's share")
        second = next(u for u in entrants if u != winner)
        prizes = {u: 0 for u in entrants} | {winner: share, second: pool - share}
        placings = [Placing(u, place, 1, prizes[u]) for place, u in enumerate(entrants, 1)]
        await tournaments.finish_tournament(self.db, t.tid, placings, state={}, now=self.now)
        for user, prize in prizes.items():
            self.wallets[user] += prize
        t.status = "finished"

    # -- the invariant --------------------------------------------------------------------

    async def check(self) -> None:
        report = await invariant.check_invariant(self.db)
        assert report.ok, report
        (guild,) = report.guilds
        assert guild.circulation == guild.ledger_total == self.circulation <= CAP
        wallets = {
            int(row[0]): int(row[1])
            for row in await self.db.fetchall(
                "SELECT user_id, balance FROM wallets WHERE guild_id = ?", (GUILD,)
            )
        }
        assert wallets == self.wallets
        assert max([0, *wallets.values()]) <= CAP
        pools = {t.tid: sum(t.paid.values()) for t in self.tourneys if t.status in (
            "registering", "running")}
        assert guild.pools == sum(pools.values()) <= CAP



OPERATIONS = (
    ("grant",) * 3 + ("claim_daily",) * 2 + ("remove", "transfer") + ("buy_in",) * 3
    + ("play_hand",) * 2 + ("leave_table", "close_table", "create_tournament")
    + ("register",) * 3 + ("unregister", "start_tournament", "cancel_tournament")
    + ("finish_tournament",) * 2
)


async def run(data: st.DataObject, url: str) -> None:
    db = await Database.open(url)
    try:
        with mock.patch("bot.storage.ledger.MAX_CIRCULATION", CAP):
            await economy.ensure_guild(db, GUILD, now=0)
            start = data.draw(st.sampled_from([0, 1_000, 10_000, 25_000]), label="starting")
            await economy.update_settings(db, GUILD, starting_balance=start,
                                          daily_amount=DAILY, daily_cooldown=0)
            world = World(db, data, start)
            await world.open_table()
            for _ in range(data.draw(st.integers(1, 50), label="steps")):
                name = data.draw(st.sampled_from(OPERATIONS), label="operation")
                await getattr(world, name)()
                await world.check()
                world.now += 1
    finally:
        await db.close()


_TESTS = on_both_backends(run, examples=80, postgres_examples=25)
test_every_chip_that_comes_back_is_credited_and_none_passes_the_cap = _TESTS[0]
test_every_chip_that_comes_back_is_credited_and_none_passes_the_cap_on_postgresql = _TESTS[1]
