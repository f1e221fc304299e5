"""The economy with computer players under random sequences (hypothesis).

Each example runs, with the circulation cap lowered so that sequences reach it often, a drawn
sequence of people's and bots' buy-ins and top-ups, hands dealt and later finished (the stacks
shared out anew, any way that keeps the total) or voided, players leaving, tables closing (a
running hand voided first), grants and removals, at a table of the server's economy and at a
practice table side by side. A small model predicts every outcome: a person pays from his
wallet; a bot from the house, which floats (mints) exactly what it lacks or, past the cap, is
refused with ``circulation_full`` leaving every row as it was; chips coming back are never
refused; a practice table touches no wallet, no ledger row and no circulation. After every step
the chip invariant holds (per account too), every wallet and the circulation are the model's,
no bot has a wallet, and the house's report and net equal what the model says: its balance,
its bots' chips at the table, what it floated, and a net equal to what its bots won minus what
they lost in finished hands of the economy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from hypothesis import strategies as st

from bot.storage import Database, StorageError, economy, hands, invariant, tables
from bot.storage.hands import HandSeat, PlayerResult
from engine.bots.ids import HOUSE_ID, bot_id, is_bot
from tests.storage.conftest import deck_and_commitment, snapshot
from tests.storage.model_kit import on_both_backends

GUILD = 1_000_000_001
HOST = 500
PEOPLE = (101, 102, 103, 104)
BOTS = tuple(
    bot_id(serial, level) for serial, level in enumerate(("beginner", "regular", "strong"))
)
CAPS = (4_000, 12_000, 60_000)
LOW, HIGH = 100, 2_000
CHANNELS = {False: 9_001, True: 9_002}  # economy, practice

players = st.sampled_from(PEOPLE + BOTS)


@dataclass
class TableModel:
    practice: bool
    table_id: int = 0
    seats: dict[int, int] = field(default_factory=dict)  # user -> stack at the seat
    hand_id: int | None = None
    dealt: dict[int, int] = field(default_factory=dict)  # user -> stack dealt into the hand

    def chips(self, user: int) -> int:
        return self.seats.get(user, 0) + self.dealt.get(user, 0)


class World:
    def __init__(self, db: Database, data: st.DataObject, start: int, cap: int) -> None:
        self.db, self.data, self.start, self.cap = db, data, start, cap
        self.now = 1_000
        self.wallets: dict[int, int] = {}
        self.circulation = 0
        self.house: int | None = None  # the house's wallet, once opened
        self.floated = 0
        self.bots_won = 0  # by the bots, in finished hands of the economy
        self.tables = {practice: TableModel(practice) for practice in (False, True)}

    def draw(self, strategy: st.SearchStrategy[Any], label: str) -> Any:
        return self.data.draw(strategy, label=label)

    def table(self) -> TableModel:
        return self.tables[self.draw(st.booleans(), "practice")]

    def opened(self, user: int) -> tuple[int, int]:
        """(his balance, the circulation) once his wallet is open (opening mints what fits)."""
        if user in self.wallets:
            return self.wallets[user], self.circulation
        starting = max(0, min(self.start, self.cap - self.circulation))
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

    def amount(self, user: int, low: int, high: int, label: str) -> int:
        """Any amount in range, often the very most a bot's float may be, or one chip more."""
        edge = (self.house or 0) + self.cap - self.circulation
        edges = [a for a in (edge, edge + 1) if low <= a <= high and is_bot(user)]
        if edges and self.draw(st.booleans(), f"{label} at the cap"):
            return int(self.draw(st.sampled_from(edges), label))
        return int(self.draw(st.integers(low, high), label))

    def can_pay(self, table: TableModel, user: int, amount: int) -> str | None:
        """Why paying ``amount`` onto ``table`` is refused, per the model (None: it is not)."""
        if table.practice:
            return None
        if is_bot(user):
            lack = max(0, amount - (self.house or 0))
            return "circulation_full" if self.circulation + lack > self.cap else None
        balance, _ = self.opened(user)
        return "insufficient_funds" if balance < amount else None

    def pay(self, table: TableModel, user: int, amount: int) -> None:
        if table.practice:
            return
        if is_bot(user):
            lack = max(0, amount - (self.house or 0))
            self.house = (self.house or 0) + lack - amount
            self.floated += lack
            self.circulation += lack
        else:
            self.open(user)
            self.wallets[user] -= amount

    def give_back(self, table: TableModel, user: int, stack: int) -> None:
        if table.practice:
            return
        if is_bot(user):
            self.house = (self.house or 0) + stack
        else:
            self.wallets[user] += stack

    # -- seats ----------------------------------------------------------------------------

    async def buy_in(self) -> None:
        table, user = self.table(), self.draw(players, "player")
        if user in table.seats or len(table.seats) == 10:
            return
        amount = self.amount(user, LOW, HIGH, "buy-in")
        refusal = self.can_pay(table, user, amount)
        if refusal is not None:
            await self.refused(
                refusal, tables.buy_in(self.db, table.table_id, user, amount, now=self.now)
            )
            return
        seat = await tables.buy_in(self.db, table.table_id, user, amount, now=self.now)
        assert seat.stack == amount
        self.pay(table, user, amount)
        table.seats[user] = amount

    async def top_up(self) -> None:
        table = self.table()
        free = sorted(
            u for u, stack in table.seats.items() if u not in table.dealt and stack < HIGH
        )
        if not free:
            return
        user = self.draw(st.sampled_from(free), "player")
        stack = table.seats[user]
        amount = self.amount(user, max(1, LOW - stack), HIGH - stack, "top-up")
        refusal = self.can_pay(table, user, amount)
        if refusal is not None:
            await self.refused(
                refusal, tables.top_up(self.db, table.table_id, user, amount, now=self.now)
            )
            return
        seat = await tables.top_up(self.db, table.table_id, user, amount, now=self.now)
        self.pay(table, user, amount)
        table.seats[user] += amount
        assert seat.stack == table.seats[user]

    async def leave(self) -> None:
        table = self.table()
        free = sorted(u for u in table.seats if u not in table.dealt)
        if not free:
            return
        user = self.draw(st.sampled_from(free), "player")
        assert (
            await tables.leave_table(self.db, table.table_id, user, now=self.now)
            == (table.seats[user])
        )
        self.give_back(table, user, table.seats.pop(user))

    async def close(self) -> None:
        table = self.table()
        returned = await hands.close_table(
            self.db, table.table_id, actor_id=HOST, hand_id=table.hand_id, now=self.now
        )
        everyone = {u: table.chips(u) for u in table.seats}
        assert returned == everyone
        for user, chips in everyone.items():
            self.give_back(table, user, chips)
        await self.open_table(table.practice)

    async def open_table(self, practice: bool) -> None:
        info = await tables.create_table(
            self.db,
            GUILD,
            CHANNELS[practice],
            HOST,
            config={},
            min_buy_in=LOW,
            max_buy_in=HIGH,
            practice=practice,
            now=self.now,
        )
        self.tables[practice] = TableModel(practice, info.table_id)

    # -- hands ----------------------------------------------------------------------------

    async def deal(self) -> None:
        table = self.table()
        if table.hand_id is not None:
            return
        info = await tables.get_table(self.db, table.table_id)
        seated = [s for s in info.seats if s.stack > 0]
        if len(seated) < 2:
            return
        players = [HandSeat(i, s.seat_no, s.user_id, s.stack) for i, s in enumerate(seated)]
        table.hand_id = await hands.start_hand(
            self.db,
            table.table_id,
            config={"stacks": [p.stack for p in players]},
            players=players,
            now=self.now,
            **deck_and_commitment(),  # type: ignore[arg-type]
        )
        for p in players:
            table.dealt[p.user_id] = table.seats[p.user_id]
            table.seats[p.user_id] = 0

    async def finish(self) -> None:
        table = self.table()
        if table.hand_id is None:
            return
        stored = await hands.load_hand(self.db, table.hand_id)
        total = sum(p.starting_stack for p in stored.players)
        count = len(stored.players)
        cuts = sorted(
            self.draw(
                st.lists(st.integers(0, total), min_size=count - 1, max_size=count - 1), "cuts"
            )
        )
        finals = [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]
        await hands.record_hand_result(
            self.db,
            table.hand_id,
            {},
            [
                PlayerResult(p.player, final, 0, 0, vpip=False, pfr=False)
                for p, final in zip(stored.players, finals, strict=True)
            ],
            pot=0,
            now=self.now,
        )
        for p, final in zip(stored.players, finals, strict=True):
            if is_bot(p.user_id) and not table.practice:
                self.bots_won += final - p.starting_stack
            table.seats[p.user_id] = final
        table.hand_id, table.dealt = None, {}

    async def void(self) -> None:
        table = self.table()
        if table.hand_id is None:
            return
        refunds = await hands.void_hand(self.db, table.hand_id, reason="test", now=self.now)
        assert refunds == table.dealt
        table.seats.update(table.dealt)
        table.hand_id, table.dealt = None, {}

    # -- chips entering and leaving the server ----------------------------------------------

    async def grant(self) -> None:
        user = self.draw(st.sampled_from(PEOPLE), "person")
        amount = self.draw(st.sampled_from([500, 5_000, 20_000]), "amount")
        _, circulation = self.opened(user)
        if circulation + amount > self.cap:
            await self.refused(
                "circulation_full",
                economy.grant(self.db, GUILD, user, amount, actor_id=HOST, now=self.now),
            )
            return
        await economy.grant(self.db, GUILD, user, amount, actor_id=HOST, now=self.now)
        self.open(user)
        self.wallets[user] += amount
        self.circulation += amount

    async def remove(self) -> None:
        rich = sorted(u for u, b in self.wallets.items() if b > 0)
        if not rich:
            return
        user = self.draw(st.sampled_from(rich), "person")
        amount = self.draw(st.integers(1, self.wallets[user]), "amount")
        await economy.remove(self.db, GUILD, user, amount, actor_id=HOST, now=self.now)
        self.wallets[user] -= amount
        self.circulation -= amount

    # -- what must hold after every step --------------------------------------------------

    async def check(self) -> None:
        report = await invariant.check_invariant(self.db)
        assert report.ok, report
        assert await invariant.circulation_mismatches(self.db) == []
        (guild,) = report.guilds
        assert guild.circulation == guild.ledger_total == self.circulation <= self.cap
        wallets = {
            int(row[0]): int(row[1])
            for row in await self.db.fetchall(
                "SELECT user_id, balance FROM wallets WHERE guild_id = ?", (GUILD,)
            )
        }
        expected = dict(self.wallets)
        if self.house is not None:
            expected[HOUSE_ID] = self.house
        assert wallets == expected
        economy_table = self.tables[False]
        at_tables = sum(economy_table.chips(b) for b in BOTS)
        assert await economy.house_report(self.db, GUILD) == economy.HouseReport(
            GUILD, self.house or 0, at_tables, self.floated
        )
        assert (self.house or 0) + at_tables - self.floated == self.bots_won
        assert await economy.house_net(self.db, GUILD, since=0) == self.bots_won
        practice_rows = await self.db.fetchall(
            "SELECT l.entry_id FROM ledger l JOIN poker_tables t ON t.table_id = l.table_id"
            " WHERE t.practice = 1"
        )
        assert practice_rows == []
        for practice, model in self.tables.items():
            info = await tables.get_table(self.db, model.table_id)
            assert info.practice == practice
            assert {s.user_id: s.chips for s in info.seats} == {
                u: model.chips(u) for u in model.seats
            }



OPERATIONS = (
    ("buy_in",) * 5
    + ("top_up",) * 2
    + ("leave",) * 2
    + ("close",)
    + ("deal",) * 3
    + ("finish",) * 3
    + ("void",)
    + ("grant", "remove")
)


async def run(data: st.DataObject, url: str) -> None:
    db = await Database.open(url)
    try:
        cap = data.draw(st.sampled_from(CAPS), label="cap")
        with mock.patch("bot.storage.ledger.MAX_CIRCULATION", cap):
            await economy.ensure_guild(db, GUILD, now=0)
            start = data.draw(st.sampled_from([0, 1_000, 10_000]), label="starting")
            await economy.update_settings(db, GUILD, starting_balance=start, bots_allowed=True)
            world = World(db, data, start, cap)
            for practice in (False, True):
                await world.open_table(practice)
            for _ in range(data.draw(st.integers(1, 50), label="steps")):
                name = data.draw(st.sampled_from(OPERATIONS), label="operation")
                await getattr(world, name)()
                await world.check()
                world.now += 1
    finally:
        await db.close()


_TESTS = on_both_backends(run, examples=80, postgres_examples=20)
test_the_house_and_practice_tables_keep_every_chip_accounted_for = _TESTS[0]
test_the_house_and_practice_tables_keep_every_chip_accounted_for_on_postgresql = _TESTS[1]
