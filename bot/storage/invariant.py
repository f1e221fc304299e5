"""The chip invariant, checked from one consistent snapshot.

Per guild: ``sum(wallets) + sum(seat stacks) + sum(chips held by running hands) + sum(tournament
prize pools)`` must equal the ledger's total, ``minted - burned``. The per-account check is
stronger: every wallet, seat, hand and prize pool must hold exactly what the ledger says flowed
into it minus what flowed out, so a chip that moved without its ledger row (or the reverse) is
found even when totals agree. The guild's own count of its chips in circulation
(``guilds.circulation``, which caps what may be minted) must equal ``minted - burned`` too.

The house's wallet (``bot.storage.house``) is an ordinary wallet: both checks cover it, and the
chips minted into it to stake bots are minted like any other. Practice tables are left out:
their stacks are play chips, outside the economy, which no ledger row ever records, so their
seats are not counted (and a ledger row naming one shows up as an account the ledger says holds
chips it does not). Their hands hold ``chips = 0`` (the schema insists), like a tournament's,
so they add nothing.

The bot runs ``verify_invariant`` at start-up; it logs every discrepancy at CRITICAL and raises
``invariant_broken`` so the operator cannot miss it. With the metrics on it also runs
``circulation_mismatches``, the totals against the running count, every few minutes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.storage.db import Database, Tx
from bot.storage.errors import StorageError, check_id

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GuildBalance:
    guild_id: int
    wallets: int
    seats: int
    hands: int  # chips held by running hands
    minted: int
    burned: int
    pools: int = 0  # buy-ins held by tournaments not paid out yet
    circulation: int | None = None  # the guild's own count (None: the guild is not registered)

    @property
    def held(self) -> int:
        return self.wallets + self.seats + self.hands + self.pools

    @property
    def ledger_total(self) -> int:
        return self.minted - self.burned

    @property
    def ok(self) -> bool:
        counted = self.circulation is None or self.circulation == self.ledger_total
        return self.held == self.ledger_total and counted


@dataclass(frozen=True, slots=True)
class AccountMismatch:
    guild_id: int
    account: str  # "wallet:<user>", "seat:<table>:<seat>", "hand:<hand>", "tournament:<id>"
    ledger: int  # what the ledger says it holds
    actual: int  # what its balance column says


@dataclass(frozen=True, slots=True)
class InvariantReport:
    guilds: tuple[GuildBalance, ...]
    accounts: tuple[AccountMismatch, ...]  # empty when the per-account check was not asked

    @property
    def ok(self) -> bool:
        return all(g.ok for g in self.guilds) and not self.accounts


async def _sums(tx: Tx, sql: str, params: tuple[object, ...]) -> dict[int, int]:
    # SUM over big integers is a numeric in PostgreSQL: read it back as an int.
    return {int(row[0]): int(row[1] or 0) for row in await tx.fetchall(sql, params)}


async def _guild_balances(tx: Tx, guild_id: int | None) -> list[GuildBalance]:
    where, params = ("WHERE guild_id = ?", (guild_id,)) if guild_id is not None else ("", ())
    twhere = "WHERE t.practice = 0" + (" AND t.guild_id = ?" if guild_id is not None else "")
    circulation = await _sums(tx, f"SELECT guild_id, circulation FROM guilds {where}", params)
    guilds = list(circulation)
    wallets = await _sums(
        tx, f"SELECT guild_id, SUM(balance) FROM wallets {where} GROUP BY guild_id", params
    )
    seats = await _sums(
        tx,
        "SELECT t.guild_id, SUM(s.stack) FROM seats s JOIN poker_tables t USING (table_id)"
        f" {twhere} GROUP BY t.guild_id",
        params,
    )
    hand_where = f"{where} AND" if where else "WHERE"
    hands = await _sums(
        tx,
        f"SELECT guild_id, SUM(chips) FROM hands {hand_where} status = 'running' GROUP BY guild_id",
        params,
    )
    pools = await _sums(
        tx, f"SELECT guild_id, SUM(pool) FROM tournaments {where} GROUP BY guild_id", params
    )
    minted = await _sums(
        tx,
        "SELECT guild_id, SUM(CASE WHEN source = 'mint' THEN amount ELSE 0 END)"
        f" FROM ledger {where} GROUP BY guild_id",
        params,
    )
    burned = await _sums(
        tx,
        "SELECT guild_id, SUM(CASE WHEN dest = 'burn' THEN amount ELSE 0 END)"
        f" FROM ledger {where} GROUP BY guild_id",
        params,
    )
    # Chips found under a guild that is not registered are reported too, never ignored.
    every = sorted(set(guilds) | set(wallets) | set(seats) | set(hands) | set(pools) | set(minted))
    return [
        GuildBalance(
            g,
            wallets.get(g, 0),
            seats.get(g, 0),
            hands.get(g, 0),
            minted.get(g, 0),
            burned.get(g, 0),
            pools.get(g, 0),
            circulation.get(g),
        )
        for g in every
    ]


# Ledger flows count positive, actual balances negative: an account whose sum is not zero
# holds something other than what the ledger says.
_ACCOUNTS = """
SELECT guild_id, account, CAST(SUM(ledger) AS BIGINT), CAST(SUM(actual) AS BIGINT) FROM (
    SELECT guild_id, dest AS account, amount AS ledger, 0 AS actual
        FROM ledger WHERE dest <> 'burn' {and_guild}
    UNION ALL
    SELECT guild_id, source, -amount, 0 FROM ledger WHERE source <> 'mint' {and_guild}
    UNION ALL
    SELECT guild_id, 'wallet:' || CAST(user_id AS TEXT), 0, balance
        FROM wallets WHERE TRUE {and_guild}
    UNION ALL
    SELECT t.guild_id, 'seat:' || CAST(s.table_id AS TEXT) || ':' || CAST(s.seat_no AS TEXT),
        0, s.stack
        FROM seats s JOIN poker_tables t USING (table_id) WHERE t.practice = 0 {and_t_guild}
    UNION ALL
    SELECT guild_id, 'hand:' || CAST(hand_id AS TEXT), 0, chips
        FROM hands WHERE chips <> 0 {and_guild}
    UNION ALL
    SELECT guild_id, 'tournament:' || CAST(tournament_id AS TEXT), 0, pool
        FROM tournaments WHERE pool <> 0 {and_guild}
) AS flows
GROUP BY guild_id, account
HAVING SUM(ledger) <> SUM(actual)
ORDER BY guild_id, account
"""


async def _account_mismatches(tx: Tx, guild_id: int | None) -> list[AccountMismatch]:
    if guild_id is None:
        sql = _ACCOUNTS.format(and_guild="", and_t_guild="")
        params: tuple[object, ...] = ()
    else:
        sql = _ACCOUNTS.format(and_guild="AND guild_id = ?", and_t_guild="AND t.guild_id = ?")
        params = (guild_id,) * 6
    return [AccountMismatch(*row) for row in await tx.fetchall(sql, params)]


async def check_invariant(
    db: Database, *, guild_id: int | None = None, per_account: bool = True
) -> InvariantReport:
    """Compute the invariant for every guild (or one) from a single snapshot.

    ``per_account`` adds the stronger check; it reads the whole ledger, so it is the slow part
    on a very large database.
    """
    if guild_id is not None:
        check_id(guild_id, "guild_id")
    async with db.read() as tx:
        guilds = await _guild_balances(tx, guild_id)
        accounts = await _account_mismatches(tx, guild_id) if per_account else []
    return InvariantReport(tuple(guilds), tuple(accounts))


async def circulation_mismatches(db: Database) -> list[tuple[int, int, int]]:
    """Every guild whose chips held (wallets, seats, running hands, prize pools) differ from
    its own count of chips in circulation, as ``(guild, held, circulation)``; empty when all
    agree. The count is the ledger's running total, so no ledger row is read: cheap enough to
    run every few minutes on a large database (``check_invariant`` is the full check)."""
    async with db.read() as tx:
        counted = await _sums(tx, "SELECT guild_id, circulation FROM guilds", ())
        held: dict[int, int] = {}
        for sql in (
            "SELECT guild_id, SUM(balance) FROM wallets GROUP BY guild_id",
            "SELECT t.guild_id, SUM(s.stack) FROM seats s JOIN poker_tables t USING (table_id)"
            " WHERE t.practice = 0 GROUP BY t.guild_id",
            "SELECT guild_id, SUM(chips) FROM hands WHERE status = 'running' GROUP BY guild_id",
            "SELECT guild_id, SUM(pool) FROM tournaments GROUP BY guild_id",
        ):
            for guild_id, chips in (await _sums(tx, sql, ())).items():
                held[guild_id] = held.get(guild_id, 0) + chips
    return [
        (guild_id, held.get(guild_id, 0), counted.get(guild_id, 0))
        for guild_id in sorted(set(counted) | set(held))
        if held.get(guild_id, 0) != counted.get(guild_id, 0)
    ]


async def verify_invariant(db: Database, *, per_account: bool = True) -> InvariantReport:
    """``check_invariant`` that logs loudly and raises ``invariant_broken`` when it fails."""
    report = await check_invariant(db, per_account=per_account)
    if report.ok:
        log.info("chip invariant holds for %d guild(s)", len(report.guilds))
        return report
    for g in report.guilds:
        if not g.ok:
            log.critical(
                "CHIP INVARIANT BROKEN in guild %d: wallets %d + seats %d + hands %d"
                " + prize pools %d = %d, ledger says %d (minted %d - burned %d),"
                " circulation counted %s",
                g.guild_id,
                g.wallets,
                g.seats,
                g.hands,
                g.pools,
                g.held,
                g.ledger_total,
                g.minted,
                g.burned,
                g.circulation,
            )
    for a in report.accounts:
        log.critical(
            "CHIP INVARIANT BROKEN in guild %d: account %s holds %d, ledger says %d",
            a.guild_id,
            a.account,
            a.actual,
            a.ledger,
        )
    bad = [g.guild_id for g in report.guilds if not g.ok]
    raise StorageError(
        "invariant_broken",
        guilds=sorted(set(bad) | {a.guild_id for a in report.accounts}),
        accounts=len(report.accounts),
    )
