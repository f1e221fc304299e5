"""Tournament money under random sequences of operations (hypothesis), on both backends.

Each example opens a fresh database and runs a drawn sequence of tournament creations (free and
paid, in a few channels under a few names), registrations (late ones too, some above the wallet,
some past the last seat, some twice), unregistrations, starts, cancels and finishes (with the
engine's payout table over a random order of places, and now and then a wrong result list), plus
wallet transfers between the players. A small model predicts every outcome: a refusal must
raise the predicted code and leave every row as it was. After every step the chip invariant holds
(per account too: every prize pool holds exactly its buy-ins), every wallet and pool matches the
model, and every finished tournament paid out exactly its pool.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

from bot.storage import Database, StorageError, economy, invariant, tournaments
from bot.storage.tournaments import Placing
from engine.tournament import DEFAULT_PAYOUTS
from tests.storage.model_kit import on_both_backends

from .conftest import snapshot

GUILD = 1_000_000_001
HOST = 500
USERS = (101, 102, 103, 104, 105)
CHANNELS = (9_001, 9_002, 9_003)
NAMES = ("Monday", "Friday", "Sunday")
UNKNOWN = 424_242


@dataclass
class Model:
    tid: int
    channel: int
    name: str
    buy_in: int
    max_players: int
    status: str = "registering"
    paid: dict[int, int] = field(default_factory=dict)

    @property
    def pool(self) -> int:
        return sum(self.paid.values()) if self.status in ("registering", "running") else 0


class World:
    def __init__(self, db: Database, data: st.DataObject, start: int) -> None:
        self.db = db
        self.data = data
        self.start = start
        self.wallets: dict[int, int] = {}
        self.tournaments: dict[int, Model] = {}
        self.now = 1_000

    def draw(self, strategy: st.SearchStrategy[object], label: str) -> object:
        return self.data.draw(strategy, label=label)

    def balance(self, user: int) -> int:
        return self.wallets.get(user, self.start)

    def pick(self) -> int:
        ids = [*self.tournaments, UNKNOWN]
        return int(self.draw(st.sampled_from(ids), "tournament"))  # type: ignore[call-overload]

    async def expect(self, code: str | None, call: object) -> object:
        if code is None:
            return await call  # type: ignore[misc]
        before = await snapshot(self.db)
        try:
            await call  # type: ignore[misc]
        except StorageError as exc:
            assert exc.code == code, (exc, code)
        else:
            raise AssertionError(f"expected {code}")
        assert await snapshot(self.db) == before
        return None

    # -- operations ---------------------------------------------------------------------

    async def create(self) -> None:
        channel = int(self.draw(st.sampled_from(CHANNELS), "channel"))  # type: ignore[call-overload]
        name = str(self.draw(st.sampled_from(NAMES), "name"))
        buy_in = int(self.draw(  # type: ignore[call-overload]
            st.sampled_from([0, 1, 37, 250, self.start, self.start + 1]), "buy-in"
        ))
        max_players = int(self.draw(st.integers(2, 4), "max players"))  # type: ignore[call-overload]
        open_ = [m for m in self.tournaments.values() if m.status in ("registering", "running")]
        code = None
        if any(m.channel == channel for m in open_):
            code = "channel_has_tournament"
        elif any(m.name == name for m in open_):
            code = "tournament_name_taken"
        info = await self.expect(code, tournaments.create_tournament(
            self.db, GUILD, channel, HOST, name=name, kind="freeze_out", buy_in=buy_in,
            # The chips are what this machine checks; the table limits have their own tests.
            max_players=max_players, config={}, enforce_limits=False, now=self.now,
        ))
        if code is None:
            assert isinstance(info, tournaments.TournamentInfo)
            self.tournaments[info.tournament_id] = Model(info.tournament_id, channel, name,
                                                         buy_in, max_players)

    async def register(self) -> None:
        tid = self.pick()
        user = int(self.draw(st.sampled_from(USERS), "user"))  # type: ignore[call-overload]
        late = bool(self.draw(st.booleans(), "late"))
        m = self.tournaments.get(tid)
        code = None
        if m is None:
            code = "unknown_tournament"
        elif m.status not in (("registering", "running") if late else ("registering",)):
            code = "registration_closed"
        elif user in m.paid:
            code = "already_registered"
        elif len(m.paid) >= m.max_players:
            code = "tournament_full"
        elif self.balance(user) < m.buy_in:
            code = "insufficient_funds"
        await self.expect(code, tournaments.register(self.db, tid, user, late=late,
                                                     state={"n": 1}, now=self.now))
        if code is None:
            assert m is not None
            self.wallets[user] = self.balance(user) - m.buy_in
            m.paid[user] = m.buy_in

    async def unregister(self) -> None:
        tid = self.pick()
        user = int(self.draw(st.sampled_from(USERS), "user"))  # type: ignore[call-overload]
        m = self.tournaments.get(tid)
        code = None
        if m is None:
            code = "unknown_tournament"
        elif m.status != "registering":
            code = "registration_closed"
        elif user not in m.paid:
            code = "not_registered"
        await self.expect(code, tournaments.unregister(self.db, tid, user, now=self.now))
        if code is None:
            assert m is not None
            self.wallets[user] = self.balance(user) + m.paid.pop(user)

    async def start_tournament(self) -> None:
        tid = self.pick()
        m = self.tournaments.get(tid)
        code = None
        if m is None:
            code = "unknown_tournament"
        elif m.status == "running":
            code = "already_started"
        elif m.status != "registering":
            code = "tournament_over"
        elif len(m.paid) < 2:
            code = "not_enough_players"
        await self.expect(code, tournaments.start_tournament(self.db, tid, state={"s": 1},
                                                                enforce_limits=False))
        if code is None:
            assert m is not None
            m.status = "running"

    async def cancel(self) -> None:
        tid = self.pick()
        m = self.tournaments.get(tid)
        code = None
        if m is None:
            code = "unknown_tournament"
        elif m.status not in ("registering", "running"):
            code = "tournament_over"
        refunds = await self.expect(code, tournaments.cancel_tournament(
            self.db, tid, actor_id=HOST, now=self.now
        ))
        if code is None:
            assert m is not None and refunds == m.paid
            for user, paid in m.paid.items():
                self.wallets[user] = self.balance(user) + paid
            m.status = "cancelled"

    async def finish(self) -> None:
        tid = self.pick()
        m = self.tournaments.get(tid)
        order = list(m.paid) if m is not None else list(USERS[:2])
        order = list(self.draw(st.permutations(order), "finishing order"))  # type: ignore[call-overload]
        pool = m.pool if m is not None else 0
        prizes = DEFAULT_PAYOUTS.prizes(pool, len(order)) if order else ()
        placings = [
            Placing(user, place, 1, prizes[place - 1] if place <= len(prizes) else 0)
            for place, user in enumerate(order, start=1)
        ]
        fault = self.draw(st.sampled_from(["none", "none", "missing", "extra chip", "twice"]),
                          "fault")
        if fault == "missing" and placings:
            placings = placings[:-1]
        elif fault == "extra chip" and placings:
            first = placings[0]
            placings[0] = Placing(first.user_id, 1, 1, first.prize + 1)
        elif fault == "twice" and placings:
            placings.append(placings[0])
        else:
            fault = "none"
        code = None
        if m is None:
            code = "unknown_tournament"
        elif m.status == "registering":
            code = "not_running"
        elif m.status != "running":
            code = "tournament_over"
        elif fault in ("missing", "twice"):
            code = "results_mismatch"
        elif fault == "extra chip":
            code = "prizes_mismatch"
        info = await self.expect(code, tournaments.finish_tournament(
            self.db, tid, placings, state={"f": 1}, now=self.now
        ))
        if code is None:
            assert m is not None and isinstance(info, tournaments.TournamentInfo)
            assert sum(p.prize for p in placings) == m.pool == sum(e.prize or 0
                                                                   for e in info.entries)
            for p in placings:
                self.wallets[p.user_id] = self.balance(p.user_id) + p.prize
            m.status = "finished"

    async def transfer(self) -> None:
        a, b = self.draw(st.permutations(USERS), "users")[:2]  # type: ignore[index]
        amount = int(self.draw(st.integers(1, 500), "amount"))  # type: ignore[call-overload]
        code = "insufficient_funds" if self.balance(a) < amount else None
        await self.expect(code, economy.transfer(self.db, GUILD, a, b, amount, now=self.now))
        if code is None:
            self.wallets[a] = self.balance(a) - amount
            self.wallets[b] = self.balance(b) + amount

    # -- checks -------------------------------------------------------------------------

    async def check(self) -> None:
        report = await invariant.check_invariant(self.db)
        assert report.ok, report
        (guild,) = report.guilds
        assert guild.pools == sum(m.pool for m in self.tournaments.values())
        for user, balance in self.wallets.items():
            assert await economy.balance(self.db, GUILD, user) == balance
        for tid, m in self.tournaments.items():
            info = await tournaments.get_tournament(self.db, tid)
            assert (info.status, info.pool, info.entrants) == (m.status, m.pool, len(m.paid))


OPERATIONS = (
    ("create",) * 2
    + ("register",) * 6
    + ("unregister", "start_tournament", "start_tournament", "cancel", "finish", "finish")
    + ("transfer",)
)


async def run(data: st.DataObject, url: str) -> None:
    db = await Database.open(url)
    try:
        await economy.ensure_guild(db, GUILD, now=0)
        start = int(data.draw(st.sampled_from([0, 100, 1_000]), label="starting balance"))
        await economy.update_settings(db, GUILD, starting_balance=start)
        world = World(db, data, start)
        await world.create()
        for _ in range(data.draw(st.integers(1, 50), label="steps")):
            name = data.draw(st.sampled_from(OPERATIONS), label="operation")
            await getattr(world, name)()
            await world.check()
            world.now += 1
    finally:
        await db.close()


_TESTS = on_both_backends(run, examples=100, postgres_examples=25)
test_any_sequence_keeps_every_chip_and_pays_exactly_the_pool = _TESTS[0]
test_any_sequence_keeps_every_chip_and_pays_exactly_the_pool_on_postgresql = _TESTS[1]
