"""Cash tables: configuration, channel, host, table message, seats and their stacks.

A tournament's tables are rows here too (``tournament_id`` set, see
``bot.storage.tournaments``) for what every table has — a channel, a table message, numbered
hands — but they have no seats and hold no chip: everything below about seats and buy-ins is for
cash tables only, and the queries a cash table's life runs on (restoring open tables, the
server's table limits) leave tournament tables out.

A seat's chips move in from its player's wallet (buy-in, top-up, rebuy) and back out (leaving,
closing the table), each move one transaction with its ledger row. While a hand runs, the
stacks of the players dealt in are held by the hand (``bot.storage.hands``): the seat shows
stack 0 and ``hand_id``, and refuses top-ups and leaving until the hand is over. A player who
was not dealt in keeps his stack at the seat and may top up or leave at any time.

A computer player (``engine.bots.ids.is_bot``) has no wallet: at a table of the server's
economy his chips come from the house's wallet and go back to it (``bot.storage.house``; the
ledger rows name the bot), and only where a server manager allowed bots (``bots_not_allowed``).
The house itself never sits down.

A practice table (``practice``) plays for play chips: the same seats, buy-in range and hands,
but a buy-in or top-up takes nothing from any wallet, standing up or closing gives nothing
back, and no ledger row is written, whoever the player. It counts against the server's table
limits like any table: it takes a channel and the bot's time all the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.storage.db import Database, Row, Tx, unix_now
from bot.storage.errors import (
    StorageError,
    check_amount,
    check_id,
    check_setting,
    from_json_text,
    to_json_text,
)
from bot.storage.house import HOUSE_WALLET, check_bots_allowed, stake, take_back
from bot.storage.ledger import (
    Reason,
    credit_wallet,
    debit_wallet,
    record,
    require_guild,
    seat_account,
    wallet_account,
)
from bot.storage.sessions import end_session_in
from engine.bots.ids import HOUSE_ID, is_bot
from engine.limits import MAX_CHIPS, MAX_SEATS

MAX_STATE = 32


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat_no: int
    user_id: int
    stack: int  # chips at the seat, outside any hand
    state: str  # runtime's own label ("active", "sitting_out", ...), stored as given
    hand_id: int | None  # the running hand holding his chips, if he was dealt in
    in_hand: int  # his starting stack in that hand, 0 otherwise

    @property
    def chips(self) -> int:
        """Everything he has at the table: at the seat plus at risk in the running hand."""
        return self.stack + self.in_hand


@dataclass(frozen=True, slots=True)
class TableInfo:
    table_id: int
    guild_id: int
    channel_id: int
    host_id: int
    config: Any
    min_buy_in: int
    max_buy_in: int
    chip_unit: int
    max_seats: int
    message_id: int | None
    status: str
    hand_count: int
    created_at: int
    seats: tuple[SeatInfo, ...]
    tournament_id: int | None = None  # a tournament's table (no seats: see the module)
    practice: bool = False  # plays for play chips (see the module)

    def seat_of(self, user_id: int) -> SeatInfo | None:
        return next((s for s in self.seats if s.user_id == user_id), None)


_TABLE_COLUMNS = (
    "table_id, guild_id, channel_id, host_id, config, min_buy_in, max_buy_in, chip_unit,"
    " max_seats, message_id, status, hand_count, created_at, tournament_id, practice"
)
# The tables a cash game runs on: a tournament's tables are restored by their tournament.
CASH = "tournament_id IS NULL"
_SEAT_QUERY = (
    "SELECT s.seat_no, s.user_id, s.stack, s.state, s.hand_id, COALESCE(hp.starting_stack, 0)"
    " FROM seats s LEFT JOIN hand_players hp ON hp.hand_id = s.hand_id AND hp.user_id = s.user_id"
    " WHERE s.table_id = ? ORDER BY s.seat_no"
)


async def _load_table(tx: Tx, row: Row) -> TableInfo:
    seats = tuple(SeatInfo(*seat) for seat in await tx.fetchall(_SEAT_QUERY, (row[0],)))
    return TableInfo(
        table_id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        host_id=row[3],
        config=from_json_text(row[4]),
        min_buy_in=row[5],
        max_buy_in=row[6],
        chip_unit=row[7],
        max_seats=row[8],
        message_id=row[9],
        status=row[10],
        hand_count=row[11],
        created_at=row[12],
        seats=seats,
        tournament_id=row[13],
        practice=bool(row[14]),
    )


async def _table_row(tx: Tx, table_id: int, *, must_be_open: bool) -> Row:
    row = await tx.fetchone(
        f"SELECT {_TABLE_COLUMNS} FROM poker_tables WHERE table_id = ?", (table_id,)
    )
    if row is None:
        raise StorageError("unknown_table", table_id=table_id)
    if must_be_open and row["status"] != "open":
        raise StorageError("table_closed", table_id=table_id)
    return row


async def _cash_table_row(tx: Tx, table_id: int) -> Row:
    """An open cash table: a tournament's table takes no buy-in and keeps no chips."""
    row = await _table_row(tx, table_id, must_be_open=True)
    if row["tournament_id"] is not None:
        raise StorageError("not_in_tournament", table_id=table_id)
    return row


def _check_buy_in_range(min_buy_in: object, max_buy_in: object, chip_unit: object) -> None:
    check_amount(min_buy_in, "min_buy_in")
    check_amount(max_buy_in, "max_buy_in")
    unit = check_setting(chip_unit, "chip_unit", 1, MAX_CHIPS)
    assert isinstance(min_buy_in, int) and isinstance(max_buy_in, int)
    if min_buy_in > max_buy_in:
        raise StorageError("bad_setting", name="max_buy_in", value=max_buy_in, minimum=min_buy_in)
    for name, value in (("min_buy_in", min_buy_in), ("max_buy_in", max_buy_in)):
        if value % unit:
            raise StorageError("amount_not_multiple", name=name, value=value, chip_unit=unit)


@dataclass(frozen=True, slots=True)
class TableSave:
    """The table's own state (the runtime's JSON and the buy-in range storage enforces), stored
    in the same transaction as the chip move it goes with, so a crash never splits the two."""

    config: object  # a JSON value, or an object with ``to_json()``
    min_buy_in: int
    max_buy_in: int


@dataclass(frozen=True, slots=True)
class _CheckedSave:
    config_text: str
    min_buy_in: int
    max_buy_in: int


def check_save(save: TableSave | None) -> _CheckedSave | None:
    """Validate a save before its transaction opens (the chip unit is checked inside it)."""
    if save is None:
        return None
    if not isinstance(save, TableSave):
        raise StorageError("bad_json", field="save", detail=repr(save)[:50])
    check_amount(save.min_buy_in, "min_buy_in")
    check_amount(save.max_buy_in, "max_buy_in")
    return _CheckedSave(to_json_text(save.config, "config"), save.min_buy_in, save.max_buy_in)


async def write_save(tx: Tx, table_id: int, save: _CheckedSave | None) -> None:
    """Store a checked save in the open transaction ``tx`` (refuses a closed table)."""
    if save is None:
        return
    row = await _table_row(tx, table_id, must_be_open=True)
    _check_buy_in_range(save.min_buy_in, save.max_buy_in, row["chip_unit"])
    await tx.execute(
        "UPDATE poker_tables SET config = ?, min_buy_in = ?, max_buy_in = ? WHERE table_id = ?",
        (save.config_text, save.min_buy_in, save.max_buy_in, table_id),
    )


def _check_player(user_id: object) -> int:
    """A person or a bot: the house stakes players, it never plays."""
    checked = check_id(user_id, "user_id")
    if checked == HOUSE_ID:
        raise StorageError("bad_id", field="user_id", value=repr(user_id), reason="house")
    return checked


async def _pay_in(
    tx: Tx, table: Row, user_id: int, seat_no: int, amount: int, reason: Reason, now: int
) -> None:
    """Chips onto a seat from where they come: a person's wallet, the house's for a bot,
    nowhere at a practice table."""
    await _move_stack(tx, table, seat_no, user_id, amount, into_seat=True, reason=reason,
                      actor_id=None, now=now)


async def _move_stack(
    tx: Tx,
    table: Row,
    seat_no: int,
    user_id: int,
    amount: int,
    *,
    into_seat: bool,
    reason: Reason,
    actor_id: int | None,
    now: int,
) -> None:
    """Chips between a seat and their owner's account, one way or the other, with its ledger
    row: a person's wallet, the house's for a bot (which must be allowed to sit down), and
    nothing at all at a practice table, whose chips are play chips."""
    if amount <= 0 or table["practice"]:
        return
    guild_id, table_id = table["guild_id"], table["table_id"]
    if is_bot(user_id):
        owner = HOUSE_WALLET
        if into_seat:
            await check_bots_allowed(tx, guild_id)
            await stake(tx, guild_id, table_id, amount, now=now)
        else:
            await take_back(tx, guild_id, amount, now=now)
    else:
        owner = wallet_account(user_id)
        if into_seat:
            await debit_wallet(tx, guild_id, user_id, amount, now=now, create=True)
        else:
            await credit_wallet(tx, guild_id, user_id, amount, now=now, create=False)
    seat = seat_account(table_id, seat_no)
    await record(
        tx,
        guild_id=guild_id,
        amount=amount,
        source=owner if into_seat else seat,
        dest=seat if into_seat else owner,
        reason=reason,
        user_id=user_id,
        table_id=table_id,
        actor_id=actor_id,
        now=now,
    )


def _check_state(state: object) -> str:
    if not isinstance(state, str) or not 1 <= len(state) <= MAX_STATE:
        raise StorageError("bad_state", value=repr(state)[:50])
    return state


async def create_table(
    db: Database,
    guild_id: int,
    channel_id: int,
    host_id: int,
    *,
    config: object,
    min_buy_in: int,
    max_buy_in: int,
    max_seats: int = 10,
    chip_unit: int = 1,
    enforce_limits: bool = False,
    practice: bool = False,
    now: int | None = None,
) -> TableInfo:
    """Open a table in a channel (one open table per channel); ``practice``: for play chips.

    ``enforce_limits``: refuse beyond the server's ``max_tables`` open tables, or the host's
    ``max_tables_per_host`` (counted in this transaction, so two at once cannot both pass;
    tournaments and practice tables count too, see :class:`TableUsage`).
    """
    check_id(guild_id, "guild_id")
    check_id(channel_id, "channel_id")
    check_id(host_id, "host_id")
    _check_buy_in_range(min_buy_in, max_buy_in, chip_unit)
    check_setting(max_seats, "max_seats", 2, MAX_SEATS)
    if not isinstance(practice, bool):
        raise StorageError("bad_setting", name="practice", value=repr(practice)[:50])
    config_text = to_json_text(config, "config")
    async with db.write() as tx:
        await require_guild(tx, guild_id)
        existing = await tx.fetchone(
            "SELECT table_id, tournament_id FROM poker_tables"
            " WHERE channel_id = ? AND status = 'open'",
            (channel_id,),
        )
        if existing is not None and existing[1] is not None:
            raise StorageError("channel_has_tournament", channel_id=channel_id,
                               tournament_id=existing[1])
        if existing is not None:
            raise StorageError("channel_has_table", channel_id=channel_id, table_id=existing[0])
        # A tournament still registering has no table yet, but the channel is its.
        tournament = await tx.scalar(
            "SELECT tournament_id FROM tournaments WHERE channel_id = ?"
            " AND status IN ('registering', 'running')",
            (channel_id,),
        )
        if tournament is not None:
            raise StorageError("channel_has_tournament", channel_id=channel_id,
                               tournament_id=tournament)
        if enforce_limits:
            await check_table_limits(tx, guild_id, host_id)
        table_id = await tx.insert(
            "INSERT INTO poker_tables (guild_id, channel_id, host_id, config, min_buy_in,"
            " max_buy_in, chip_unit, max_seats, created_at, practice)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING table_id",
            (
                guild_id,
                channel_id,
                host_id,
                config_text,
                min_buy_in,
                max_buy_in,
                chip_unit,
                max_seats,
                unix_now() if now is None else now,
                int(practice),
            ),
        )
        return await _load_table(tx, await _table_row(tx, table_id, must_be_open=True))


@dataclass(frozen=True, slots=True)
class TableUsage:
    """A server's tables against its limits, counted in one transaction.

    ``open``: tables open in the server (cash and practice tables, every open table of a
    running tournament) plus one for each tournament still registering (it will need a table);
    ``hosted``: the host's open cash and practice tables plus his open tournaments (registering or
    running: one each, however many tables it plays at).
    """

    open: int
    hosted: int
    max_tables: int
    max_per_host: int


async def table_usage(tx: Tx, guild_id: int, host_id: int) -> TableUsage:
    """How many tables the server and the host use now (see :class:`TableUsage`); the guild
    must exist (``require_guild`` ran in ``tx``)."""
    limits = await tx.fetchone(
        "SELECT max_tables, max_tables_per_host FROM guilds WHERE guild_id = ?", (guild_id,)
    )
    assert limits is not None  # require_guild ran first
    tables = await tx.fetchone(
        "SELECT COUNT(*),"
        f" COALESCE(SUM(CASE WHEN host_id = ? AND {CASH} THEN 1 ELSE 0 END), 0)"
        " FROM poker_tables WHERE guild_id = ? AND status = 'open'",
        (host_id, guild_id),
    )
    tournaments = await tx.fetchone(
        "SELECT COALESCE(SUM(CASE WHEN status = 'registering' THEN 1 ELSE 0 END), 0),"
        " COALESCE(SUM(CASE WHEN host_id = ? THEN 1 ELSE 0 END), 0)"
        " FROM tournaments WHERE guild_id = ? AND status IN ('registering', 'running')",
        (host_id, guild_id),
    )
    assert tables is not None and tournaments is not None
    return TableUsage(
        open=int(tables[0]) + int(tournaments[0]),
        hosted=int(tables[1]) + int(tournaments[1]),
        max_tables=int(limits[0]),
        max_per_host=int(limits[1]),
    )


async def check_table_limits(tx: Tx, guild_id: int, host_id: int) -> None:
    """Refuse one more table (or tournament) of ``host_id``: ``too_many_tables`` when the
    server has ``max_tables`` in use, ``too_many_hosted`` when he has ``max_tables_per_host``."""
    usage = await table_usage(tx, guild_id, host_id)
    if usage.open >= usage.max_tables:
        raise StorageError("too_many_tables", maximum=usage.max_tables)
    if usage.hosted >= usage.max_per_host:
        raise StorageError("too_many_hosted", maximum=usage.max_per_host)


async def closed_with_message(db: Database) -> list[tuple[int, int, int, int, str | None]]:
    """Closed tables whose last message may not show it yet: (guild, table, channel, message,
    locale). The runtime clears ``message_id`` once that message is up to date."""
    async with db.read() as tx:
        rows = await tx.fetchall(
            "SELECT guild_id, table_id, channel_id, message_id, config FROM poker_tables"
            " WHERE status = 'closed' AND message_id IS NOT NULL ORDER BY table_id"
        )
    found = []
    for guild_id, table_id, channel_id, message_id, config in rows:
        try:
            locale = from_json_text(config).get("locale")
        except (ValueError, AttributeError):
            locale = None
        tag = locale if isinstance(locale, str) else None
        found.append((guild_id, table_id, channel_id, message_id, tag))
    return found


async def get_table(db: Database, table_id: int) -> TableInfo:
    check_id(table_id, "table_id")
    async with db.read() as tx:
        return await _load_table(tx, await _table_row(tx, table_id, must_be_open=False))


async def table_in_channel(db: Database, channel_id: int) -> TableInfo | None:
    """The open table of a channel, if any."""
    check_id(channel_id, "channel_id")
    async with db.read() as tx:
        row = await tx.fetchone(
            f"SELECT {_TABLE_COLUMNS} FROM poker_tables WHERE channel_id = ? AND status = 'open'",
            (channel_id,),
        )
        return None if row is None else await _load_table(tx, row)


async def open_table_guilds(db: Database) -> dict[int, int]:
    """Every open table's server (table id -> guild id): cheap enough to ask every few
    seconds, for the tables a process should take over."""
    rows = await db.fetchall(
        f"SELECT table_id, guild_id FROM poker_tables WHERE status = 'open' AND {CASH}"
        " ORDER BY table_id"
    )
    return {int(table_id): int(guild_id) for table_id, guild_id in rows}


async def open_tables(db: Database, guild_id: int | None = None) -> list[TableInfo]:
    """Every open table (of one guild, or of all): what the bot restores at start-up."""
    async with db.read() as tx:
        if guild_id is None:
            rows = await tx.fetchall(
                f"SELECT {_TABLE_COLUMNS} FROM poker_tables WHERE status = 'open' AND {CASH}"
                " ORDER BY table_id"
            )
        else:
            check_id(guild_id, "guild_id")
            rows = await tx.fetchall(
                f"SELECT {_TABLE_COLUMNS} FROM poker_tables WHERE guild_id = ? AND status = 'open'"
                f" AND {CASH} ORDER BY table_id",
                (guild_id,),
            )
        return [await _load_table(tx, row) for row in rows]


async def set_table_message(db: Database, table_id: int, message_id: int | None) -> None:
    """Remember the message that shows the table (None: it must be posted again)."""
    check_id(table_id, "table_id")
    if message_id is not None:
        check_id(message_id, "message_id")
    async with db.write() as tx:
        changed = await tx.execute(
            "UPDATE poker_tables SET message_id = ? WHERE table_id = ?", (message_id, table_id)
        )
        if changed != 1:
            raise StorageError("unknown_table", table_id=table_id)


async def update_table(
    db: Database, table_id: int, save: TableSave, *, host_id: int | None = None
) -> TableInfo:
    """Store the table's own state (options, clock, names, the engine's table) or a new host."""
    check_id(table_id, "table_id")
    if host_id is not None:
        check_id(host_id, "host_id")
    checked = check_save(save)
    async with db.write() as tx:
        await write_save(tx, table_id, checked)
        if host_id is not None:
            await tx.execute(
                "UPDATE poker_tables SET host_id = ? WHERE table_id = ?", (host_id, table_id)
            )
        return await _load_table(tx, await _table_row(tx, table_id, must_be_open=True))


async def set_seat_state(db: Database, table_id: int, user_id: int, state: str) -> None:
    check_id(table_id, "table_id")
    check_id(user_id, "user_id")
    _check_state(state)
    async with db.write() as tx:
        await _table_row(tx, table_id, must_be_open=True)
        changed = await tx.execute(
            "UPDATE seats SET state = ? WHERE table_id = ? AND user_id = ?",
            (state, table_id, user_id),
        )
        if changed != 1:
            raise StorageError("not_seated", table_id=table_id, user_id=user_id)


async def buy_in(
    db: Database,
    table_id: int,
    user_id: int,
    amount: int,
    *,
    seat_no: int | None = None,
    state: str = "active",
    save: TableSave | None = None,
    now: int | None = None,
) -> SeatInfo:
    """Sit down with ``amount`` chips from the wallet (opened if needed; a bot's from the house,
    nothing at a practice table), in one transaction with ``save``.

    ``seat_no`` None takes the lowest free seat.
    """
    check_id(table_id, "table_id")
    _check_player(user_id)
    check_amount(amount)
    _check_state(state)
    if seat_no is not None and (
        isinstance(seat_no, bool) or not isinstance(seat_no, int) or seat_no < 1
    ):
        raise StorageError("bad_seat", seat=repr(seat_no), seats=MAX_SEATS)
    checked = check_save(save)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        table = await _cash_table_row(tx, table_id)
        if not table["min_buy_in"] <= amount <= table["max_buy_in"]:
            raise StorageError(
                "buy_in_out_of_range",
                amount=amount,
                minimum=table["min_buy_in"],
                maximum=table["max_buy_in"],
            )
        if amount % table["chip_unit"]:
            raise StorageError("amount_not_multiple", value=amount, chip_unit=table["chip_unit"])
        taken = {
            row[0]: row[1]
            for row in await tx.fetchall(
                "SELECT seat_no, user_id FROM seats WHERE table_id = ?", (table_id,)
            )
        }
        for taken_seat, taken_user in taken.items():
            if taken_user == user_id:
                raise StorageError("already_seated", table_id=table_id, seat_no=taken_seat)
        max_seats = table["max_seats"]
        if seat_no is None:
            seat_no = next((n for n in range(1, max_seats + 1) if n not in taken), None)
            if seat_no is None:
                raise StorageError("table_full", table_id=table_id, max_seats=max_seats)
        elif seat_no > max_seats:
            raise StorageError("bad_seat", seat=seat_no, seats=max_seats)
        elif seat_no in taken:
            raise StorageError("seat_taken", table_id=table_id, seat=seat_no)
        await _pay_in(tx, table, user_id, seat_no, amount, Reason.BUY_IN, now)
        await tx.execute(
            "INSERT INTO seats (table_id, seat_no, user_id, stack, state, joined_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (table_id, seat_no, user_id, amount, state, now),
        )
        await write_save(tx, table_id, checked)
        return SeatInfo(seat_no, user_id, amount, state, None, 0)


async def top_up(
    db: Database,
    table_id: int,
    user_id: int,
    amount: int,
    *,
    save: TableSave | None = None,
    now: int | None = None,
) -> SeatInfo:
    """Add chips from the wallet (a bot's from the house, nothing at a practice table) to a
    seated player's stack (a rebuy when he is broke), in one transaction with ``save``.

    The new stack must lie within the table's buy-in range; not while his chips are in a hand.
    """
    check_id(table_id, "table_id")
    _check_player(user_id)
    check_amount(amount)
    checked = check_save(save)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        table = await _cash_table_row(tx, table_id)
        if amount % table["chip_unit"]:
            raise StorageError("amount_not_multiple", value=amount, chip_unit=table["chip_unit"])
        seat = await tx.fetchone(
            "SELECT seat_no, stack, hand_id, state FROM seats WHERE table_id = ? AND user_id = ?",
            (table_id, user_id),
        )
        if seat is None:
            raise StorageError("not_seated", table_id=table_id, user_id=user_id)
        if seat["hand_id"] is not None:
            raise StorageError("seat_in_hand", table_id=table_id, hand_id=seat["hand_id"])
        stack = seat["stack"]
        if stack >= table["max_buy_in"]:
            raise StorageError("stack_above_max", stack=stack, maximum=table["max_buy_in"])
        if not table["min_buy_in"] <= stack + amount <= table["max_buy_in"]:
            raise StorageError(
                "buy_in_out_of_range",
                amount=amount,
                minimum=max(table["min_buy_in"] - stack, table["chip_unit"]),
                maximum=table["max_buy_in"] - stack,
            )
        await _pay_in(tx, table, user_id, seat["seat_no"], amount, Reason.TOP_UP, now)
        row = await tx.fetchone(
            "UPDATE seats SET stack = stack + ? WHERE table_id = ? AND user_id = ?"
            " AND hand_id IS NULL AND stack + ? <= ? RETURNING seat_no, stack",
            (amount, table_id, user_id, amount, table["max_buy_in"]),
        )
        if row is None:  # pragma: no cover - the reads above ran in this same transaction
            raise StorageError("stack_above_max", stack=stack, maximum=table["max_buy_in"])
        await write_save(tx, table_id, checked)
        return SeatInfo(row[0], user_id, row[1], seat["state"], None, 0)


async def _unseat(
    tx: Tx,
    *,
    table: Row,
    seat_no: int,
    user_id: int,
    stack: int,
    reason: Reason,
    actor_id: int | None,
    now: int,
) -> None:
    """A stack back where it came from (nothing at a practice table: play chips just go)."""
    await _move_stack(tx, table, seat_no, user_id, stack, into_seat=False, reason=reason,
                      actor_id=actor_id, now=now)


async def unseat(
    tx: Tx,
    table_id: int,
    user_id: int,
    *,
    actor_id: int | None,
    now: int,
    reason: Reason = Reason.LEAVE,
) -> int:
    """In the open transaction ``tx``: the player stands up and his stack goes back to his
    wallet (a bot's to the house, nowhere at a practice table); the chips he stood up with.
    Refused while his chips are in a running hand."""
    table = await _table_row(tx, table_id, must_be_open=False)
    row = await tx.fetchone(
        "DELETE FROM seats WHERE table_id = ? AND user_id = ? AND hand_id IS NULL"
        " RETURNING seat_no, stack",
        (table_id, user_id),
    )
    if row is None:
        hand_id = await tx.scalar(
            "SELECT hand_id FROM seats WHERE table_id = ? AND user_id = ?",
            (table_id, user_id),
        )
        if hand_id is not None:
            raise StorageError("seat_in_hand", table_id=table_id, hand_id=hand_id)
        raise StorageError("not_seated", table_id=table_id, user_id=user_id)
    await _unseat(
        tx,
        table=table,
        seat_no=row[0],
        user_id=user_id,
        stack=row[1],
        reason=reason,
        actor_id=actor_id,
        now=now,
    )
    return int(row[1])


async def leave_table(
    db: Database,
    table_id: int,
    user_id: int,
    *,
    actor_id: int | None = None,
    save: TableSave | None = None,
    now: int | None = None,
) -> int:
    """Stand up (``actor_id``: removed by a host): the stack goes back to the wallet (see
    ``unseat``), in one transaction with ``save``; the chips he stood up with."""
    check_id(table_id, "table_id")
    check_id(user_id, "user_id")
    if actor_id is not None:
        check_id(actor_id, "actor_id")
    checked = check_save(save)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        returned = await unseat(tx, table_id, user_id, actor_id=actor_id, now=now)
        await write_save(tx, table_id, checked)
        return returned


async def close_in(
    tx: Tx, table_id: int, *, actor_id: int | None, now: int, recap: bool = True
) -> dict[int, int]:
    """In the open transaction ``tx``: close the table and send every stack home (see
    ``unseat``), which ends its session (stored for its recap, posted unless ``recap`` is
    off); {user id: chips he stood up with}. Refused while a hand runs (void it first, in the
    same transaction)."""
    table = await _cash_table_row(tx, table_id)
    running = await tx.scalar(
        "SELECT hand_id FROM hands WHERE table_id = ? AND status = 'running'", (table_id,)
    )
    if running is not None:
        raise StorageError("hand_in_progress", table_id=table_id, hand_id=running)
    returned: dict[int, int] = {}
    for seat_no, user_id, stack in await tx.fetchall(
        "DELETE FROM seats WHERE table_id = ? RETURNING seat_no, user_id, stack", (table_id,)
    ):
        await _unseat(
            tx,
            table=table,
            seat_no=seat_no,
            user_id=user_id,
            stack=stack,
            reason=Reason.TABLE_CLOSE,
            actor_id=actor_id,
            now=now,
        )
        returned[user_id] = stack
    await tx.execute(
        "UPDATE poker_tables SET status = 'closed', closed_at = ? WHERE table_id = ?",
        (now, table_id),
    )
    await end_session_in(tx, table_id, last_hand=int(table["hand_count"]), recap=recap, now=now)
    return returned


async def close_table(
    db: Database,
    table_id: int,
    *,
    actor_id: int | None = None,
    recap: bool = True,
    now: int | None = None,
) -> dict[int, int]:
    """Close the table and send every stack home; {user id: chips returned}.

    Refused while a hand runs (``hands.close_table`` voids it in the same transaction).
    """
    check_id(table_id, "table_id")
    if actor_id is not None:
        check_id(actor_id, "actor_id")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        return await close_in(tx, table_id, actor_id=actor_id, now=now, recap=recap)
