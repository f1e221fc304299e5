"""The economy of each Discord server (guild): settings, wallets, daily bonus, grants, transfers.

A guild is registered once with ``ensure_guild`` (the bot calls it when it joins a server and
for every server at start-up); any other call for an unregistered guild raises
``unknown_guild``. A wallet is created on first use with the guild's starting balance, which is
minted in the ledger like every other chip that enters the economy.

Chips enter a server only here (starting balances, daily bonuses, grants), each counted into
the server's circulation, which may not pass ``MAX_CIRCULATION`` (``circulation_full``): that
one cap keeps every wallet, seat, hand and prize pool within its column, so chips going back to
their owner are never refused (``bot.storage.ledger``).

Wallets here are people's: the house and its bots are refused (``bad_id``) by every call that
names a user; the house's wallet moves only through ``bot.storage.house``. What the house holds,
floated and won is read here (``house_report``, ``house_net``).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.db import Database, Tx, unix_now
from bot.storage.errors import (
    MAX_ID,
    StorageError,
    check_amount,
    check_id,
    check_setting,
)
from bot.storage.ledger import (
    BURN,
    LEDGER_COLUMNS,
    MINT,
    LedgerEntry,
    Reason,
    burn,
    check_person,
    credit_wallet,
    debit_wallet,
    ensure_wallet,
    mint,
    record,
    require_guild,
    wallet_account,
)
from engine.bots.ids import BOT_FLOOR, HOUSE_ID
from engine.limits import MAX_CHIPS, MAX_DAYS_AHEAD

DEFAULT_STARTING_BALANCE = 10_000
DEFAULT_DAILY_AMOUNT = 1_000
DEFAULT_DAILY_COOLDOWN = 24 * 3600
MAX_COOLDOWN = MAX_DAYS_AHEAD * 24 * 3600
MAX_TABLES = 500  # per server, in all and per host
MAX_IDLE_CLOSE = 7 * 24 * 3600
MAX_NOTE = 200
# The channel language a server may choose; "auto" follows the server's preferred locale.
LANGUAGES = ("auto", "en", "zh-TW", "zh-CN")
# What the house may lose in a day before its bots stop. Chips the house loses were minted for
# the players who beat it, so this is how fast bots may inflate a server: five default starting
# balances, or fifty default daily bonuses, a day; 50 full buy-ins at blinds 5/10 (100 big
# blinds), so an ordinary run of bad cards at ordinary stakes never reaches it, while a server
# whose members farm the bots is stopped within the day.
DEFAULT_HOUSE_LOSS_CAP = 50_000


@dataclass(frozen=True, slots=True)
class GuildSettings:
    guild_id: int
    starting_balance: int
    daily_amount: int
    daily_cooldown: int  # seconds between two daily bonuses
    max_tables: int = 10  # tables open at once in the server
    max_tables_per_host: int = 2  # tables one member may host at once
    idle_close: int = 1800  # seconds a table with nobody seated stays open (0: forever)
    language: str = "auto"  # of the channel messages: "auto" or a catalog's tag
    bots_allowed: bool = False  # computer players may sit at the economy's tables
    house_loss_cap: int = DEFAULT_HOUSE_LOSS_CAP  # chips the house may lose in a day


@dataclass(frozen=True, slots=True)
class DailyClaim:
    amount: int
    balance: int
    next_claim_at: int  # Unix seconds; show it as <t:...:R>


@dataclass(frozen=True, slots=True)
class Transfer:
    from_balance: int
    to_balance: int
    entry_id: int


def _note(note: object) -> str | None:
    if note is None:
        return None
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise StorageError("bad_setting", name="note", value=repr(note)[:50], maximum=MAX_NOTE)
    return note


async def _settings(tx: Tx, guild_id: int) -> GuildSettings:
    row = await tx.fetchone(
        "SELECT starting_balance, daily_amount, daily_cooldown, max_tables,"
        " max_tables_per_host, idle_close, language, bots_allowed, house_loss_cap"
        " FROM guilds WHERE guild_id = ?",
        (guild_id,),
    )
    if row is None:
        raise StorageError("unknown_guild", guild_id=guild_id)
    return GuildSettings(
        guild_id,
        starting_balance=row[0],
        daily_amount=row[1],
        daily_cooldown=row[2],
        max_tables=row[3],
        max_tables_per_host=row[4],
        idle_close=row[5],
        language=row[6],
        bots_allowed=bool(row[7]),
        house_loss_cap=int(row[8]),
    )


async def ensure_guild(db: Database, guild_id: int, *, now: int | None = None) -> GuildSettings:
    """Register the guild with default settings unless it is known; its settings."""
    check_id(guild_id, "guild_id")
    async with db.write() as tx:
        await tx.execute(
            "INSERT INTO guilds (guild_id, starting_balance, daily_amount, daily_cooldown,"
            " created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                guild_id,
                DEFAULT_STARTING_BALANCE,
                DEFAULT_DAILY_AMOUNT,
                DEFAULT_DAILY_COOLDOWN,
                unix_now() if now is None else now,
            ),
        )
        return await _settings(tx, guild_id)


async def get_settings(db: Database, guild_id: int) -> GuildSettings:
    check_id(guild_id, "guild_id")
    async with db.read() as tx:
        return await _settings(tx, guild_id)


async def update_settings(
    db: Database,
    guild_id: int,
    *,
    starting_balance: int | None = None,
    daily_amount: int | None = None,
    daily_cooldown: int | None = None,
    max_tables: int | None = None,
    max_tables_per_host: int | None = None,
    idle_close: int | None = None,
    language: str | None = None,
    bots_allowed: bool | None = None,
    house_loss_cap: int | None = None,
) -> GuildSettings:
    """Change some settings; a new starting balance applies to wallets opened from now on,
    new table limits to tables opened from now on. Bots no longer allowed keep their seats
    (and stand up when the runtime tells them to), but buy in and top up no more."""
    check_id(guild_id, "guild_id")
    changes: list[tuple[str, int | str]] = []
    if bots_allowed is not None:
        if not isinstance(bots_allowed, bool):
            raise StorageError("bad_setting", name="bots_allowed", value=repr(bots_allowed)[:50])
        changes.append(("bots_allowed", int(bots_allowed)))
    if language is not None:
        if language not in LANGUAGES:
            raise StorageError("bad_setting", name="language", value=repr(language)[:50])
        changes.append(("language", language))
    if starting_balance is not None:
        changes.append(
            ("starting_balance", check_setting(starting_balance, "starting_balance", 0, MAX_CHIPS))
        )
    if daily_amount is not None:
        changes.append(("daily_amount", check_setting(daily_amount, "daily_amount", 0, MAX_CHIPS)))
    if daily_cooldown is not None:
        changes.append(
            ("daily_cooldown", check_setting(daily_cooldown, "daily_cooldown", 0, MAX_COOLDOWN))
        )
    for column, limit, low, high in (
        ("max_tables", max_tables, 1, MAX_TABLES),
        ("max_tables_per_host", max_tables_per_host, 1, MAX_TABLES),
        ("idle_close", idle_close, 0, MAX_IDLE_CLOSE),
        ("house_loss_cap", house_loss_cap, 0, MAX_CHIPS),
    ):
        if limit is not None:
            changes.append((column, check_setting(limit, column, low, high)))
    async with db.write() as tx:
        await require_guild(tx, guild_id)
        for column, value in changes:
            # Column names come from the fixed list above, never from the caller.
            await tx.execute(
                f"UPDATE guilds SET {column} = ? WHERE guild_id = ?", (value, guild_id)
            )
        return await _settings(tx, guild_id)


async def open_wallet(db: Database, guild_id: int, user_id: int, *, now: int | None = None) -> int:
    """The user's balance, creating the wallet (starting balance) on first use."""
    check_id(guild_id, "guild_id")
    check_person(user_id, "user_id")
    async with db.write() as tx:
        await ensure_wallet(tx, guild_id, user_id, unix_now() if now is None else now)
        value = await tx.scalar(
            "SELECT balance FROM wallets WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
        )
        return int(value)


async def balance(
    db: Database, guild_id: int, user_id: int, *, create: bool = True, now: int | None = None
) -> int:
    """The wallet's balance. A missing wallet is opened (``create``) or is ``unknown_user``."""
    check_id(guild_id, "guild_id")
    check_person(user_id, "user_id")
    row = await db.fetchone(
        "SELECT balance FROM wallets WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    )
    if row is not None:
        return int(row[0])
    if not create:
        async with db.read() as tx:
            await require_guild(tx, guild_id)
        raise StorageError("unknown_user", guild_id=guild_id, user_id=user_id)
    return await open_wallet(db, guild_id, user_id, now=now)


async def claim_daily(
    db: Database, guild_id: int, user_id: int, *, now: int | None = None
) -> DailyClaim:
    """Pay the daily bonus, or raise ``daily_cooldown`` with ``retry_at``."""
    check_id(guild_id, "guild_id")
    check_person(user_id, "user_id")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        settings = await _settings(tx, guild_id)
        if settings.daily_amount == 0:
            raise StorageError("daily_disabled", guild_id=guild_id)
        await ensure_wallet(tx, guild_id, user_id, now)
        amount, cooldown = settings.daily_amount, settings.daily_cooldown
        last = await tx.scalar(
            "SELECT last_daily FROM wallets WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
        if last is not None and last + cooldown > now:
            raise StorageError("daily_cooldown", retry_at=last + cooldown)
        await mint(tx, guild_id, amount)
        # The cooldown again in the update itself: another process may have just paid it.
        row = await tx.fetchone(
            "UPDATE wallets SET balance = balance + ?, last_daily = ?"
            " WHERE guild_id = ? AND user_id = ?"
            " AND (last_daily IS NULL OR last_daily + ? <= ?) RETURNING balance",
            (amount, now, guild_id, user_id, cooldown, now),
        )
        if row is None:
            last = await tx.scalar(
                "SELECT last_daily FROM wallets WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            )
            raise StorageError("daily_cooldown", retry_at=int(last) + cooldown)
        await record(
            tx,
            guild_id=guild_id,
            amount=amount,
            source=MINT,
            dest=wallet_account(user_id),
            reason=Reason.DAILY,
            user_id=user_id,
            now=now,
        )
        return DailyClaim(amount, int(row[0]), now + cooldown)


async def grant(
    db: Database,
    guild_id: int,
    user_id: int,
    amount: int,
    *,
    actor_id: int,
    note: str | None = None,
    now: int | None = None,
) -> int:
    """An admin creates chips in the user's wallet (opened if needed); the new balance.

    Refused (``circulation_full``) when the server's chips in circulation would pass
    ``MAX_CIRCULATION``."""
    check_id(guild_id, "guild_id")
    check_person(user_id, "user_id")
    check_id(actor_id, "actor_id")
    check_amount(amount)
    note = _note(note)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        await ensure_wallet(tx, guild_id, user_id, now)
        await mint(tx, guild_id, amount)
        new_balance = await credit_wallet(tx, guild_id, user_id, amount, now=now, create=False)
        await record(
            tx,
            guild_id=guild_id,
            amount=amount,
            source=MINT,
            dest=wallet_account(user_id),
            reason=Reason.GRANT,
            user_id=user_id,
            actor_id=actor_id,
            note=note,
            now=now,
        )
        return new_balance


async def remove(
    db: Database,
    guild_id: int,
    user_id: int,
    amount: int,
    *,
    actor_id: int,
    note: str | None = None,
    now: int | None = None,
) -> int:
    """An admin destroys chips from the user's wallet; all or nothing. The new balance."""
    check_id(guild_id, "guild_id")
    check_person(user_id, "user_id")
    check_id(actor_id, "actor_id")
    check_amount(amount)
    note = _note(note)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        new_balance = await debit_wallet(tx, guild_id, user_id, amount, now=now, create=False)
        await burn(tx, guild_id, amount)
        await record(
            tx,
            guild_id=guild_id,
            amount=amount,
            source=wallet_account(user_id),
            dest=BURN,
            reason=Reason.REMOVAL,
            user_id=user_id,
            actor_id=actor_id,
            note=note,
            now=now,
        )
        return new_balance


async def transfer(
    db: Database,
    guild_id: int,
    from_user: int,
    to_user: int,
    amount: int,
    *,
    note: str | None = None,
    now: int | None = None,
) -> Transfer:
    """Move chips from one wallet to another in the same guild (both opened if needed)."""
    check_id(guild_id, "guild_id")
    check_person(from_user, "from_user")
    check_person(to_user, "to_user")
    check_amount(amount)
    note = _note(note)
    if from_user == to_user:
        raise StorageError("self_transfer", user_id=from_user)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        from_balance = await debit_wallet(tx, guild_id, from_user, amount, now=now, create=True)
        to_balance = await credit_wallet(tx, guild_id, to_user, amount, now=now, create=True)
        entry_id = await record(
            tx,
            guild_id=guild_id,
            amount=amount,
            source=wallet_account(from_user),
            dest=wallet_account(to_user),
            reason=Reason.TRANSFER,
            user_id=from_user,
            counterparty_id=to_user,
            note=note,
            now=now,
        )
        return Transfer(from_balance, to_balance, entry_id)


async def ledger_entries(
    db: Database, guild_id: int, *, user_id: int | None = None, limit: int = 50
) -> list[LedgerEntry]:
    """The latest movements of the guild, or of one user's chips, newest first."""
    check_id(guild_id, "guild_id")
    limit = check_setting(limit, "limit", 1, 1000)
    if user_id is None:
        rows = await db.fetchall(
            f"SELECT {LEDGER_COLUMNS} FROM ledger WHERE guild_id = ?"
            " ORDER BY entry_id DESC LIMIT ?",
            (guild_id, limit),
        )
    else:
        check_id(user_id, "user_id")
        # Two indexed lookups: his own chips, and transfers he received.
        rows = await db.fetchall(
            f"SELECT {LEDGER_COLUMNS} FROM ledger WHERE guild_id = ? AND user_id = ?"
            f" UNION ALL SELECT {LEDGER_COLUMNS} FROM ledger"
            " WHERE guild_id = ? AND counterparty_id = ? AND counterparty_id IS NOT NULL"
            " ORDER BY entry_id DESC LIMIT ?",
            (guild_id, user_id, guild_id, user_id, limit),
        )
    return [LedgerEntry(*row) for row in rows]


# --- the house -----------------------------------------------------------------------------------

# The hands the house's result counts: finished hands of the economy (not a tournament's, whose
# stacks are tournament chips; not a practice table's, whose are play chips).
_ECONOMY_FINISHED = "h.status = 'finished' AND h.tournament_id IS NULL AND h.practice = 0"


def _int(value: object) -> int:
    # PostgreSQL sums BIGINTs into NUMERIC (asyncpg: Decimal); an empty sum is NULL.
    return 0 if value is None else int(value)  # type: ignore[call-overload]


@dataclass(frozen=True, slots=True)
class HouseReport:
    """The house of a server, from one snapshot.

    ``balance``: its wallet now (0 before its first bot sat down). ``at_tables``: chips its bots
    hold at the server's economy tables, at their seats plus what they were dealt into a
    running hand with. ``floated``: every chip ever minted into its wallet. ``net``: what the
    house has won (positive) or lost since its first bot sat down, see ``bot.storage.house``.
    """

    guild_id: int
    balance: int
    at_tables: int
    floated: int

    @property
    def net(self) -> int:
        """
        >>> HouseReport(1, balance=300, at_tables=1_000, floated=2_000).net
        -700
        """
        return self.balance + self.at_tables - self.floated


async def house_net(db: Database, guild_id: int, *, since: int) -> int:
    """The bots' net result in the guild's economy hands that ended at or after ``since`` (Unix
    seconds): the sum of their finishing minus starting stacks; negative when the house lost."""
    check_id(guild_id, "guild_id")
    check_setting(since, "since", 0, MAX_ID)
    async with db.read() as tx:
        await require_guild(tx, guild_id)
        value = await tx.scalar(
            "SELECT SUM(hp.final_stack - hp.starting_stack)"
            " FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id"
            f" WHERE hp.guild_id = ? AND hp.user_id >= ? AND {_ECONOMY_FINISHED}"
            " AND h.ended_at >= ?",
            (guild_id, BOT_FLOOR, since),
        )
    return _int(value)


async def house_report(db: Database, guild_id: int) -> HouseReport:
    """The house's wallet, its bots' chips at the tables and what was floated (see
    :class:`HouseReport`), for ``/chips`` to show."""
    check_id(guild_id, "guild_id")
    async with db.read() as tx:
        await require_guild(tx, guild_id)
        balance = await tx.scalar(
            "SELECT balance FROM wallets WHERE guild_id = ? AND user_id = ?",
            (guild_id, HOUSE_ID),
        )
        at_tables = await tx.scalar(
            "SELECT SUM(s.stack + COALESCE(hp.starting_stack, 0))"
            " FROM seats s JOIN poker_tables t ON t.table_id = s.table_id"
            " LEFT JOIN hand_players hp ON hp.hand_id = s.hand_id AND hp.user_id = s.user_id"
            " WHERE t.guild_id = ? AND t.practice = 0 AND s.user_id >= ?",
            (guild_id, BOT_FLOOR),
        )
        floated = await tx.scalar(
            "SELECT SUM(amount) FROM ledger WHERE guild_id = ? AND user_id = ? AND source = ?"
            " AND reason = ?",
            (guild_id, HOUSE_ID, MINT, Reason.HOUSE_FLOAT.value),
        )
    return HouseReport(guild_id, _int(balance), _int(at_tables), _int(floated))
