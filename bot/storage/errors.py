"""The one exception type the storage layer raises for bad input, and the checks that raise it.

Like the engine's ``EngineError``, a ``StorageError`` carries a stable ``code`` and the
``params`` a localized message needs, so the bot can say "you have 120 chips, the buy-in is 200"
in the player's language. Every check runs before anything is written, or inside the
transaction that it guards, so an error never leaves a change behind.

Codes (stable): ``bad_id``, ``bad_amount``, ``amount_not_positive``, ``amount_too_large``,
``bad_setting``, ``bad_json``, ``bad_deck``, ``bad_players``, ``bad_state``, ``bad_database_url``,
``unknown_guild``, ``unknown_user``, ``unknown_table``, ``unknown_hand``,
``insufficient_funds``, ``circulation_full``, ``daily_cooldown``, ``daily_disabled``,
``self_transfer``, ``table_closed``, ``channel_has_table``, ``too_many_tables``,
``too_many_hosted``, ``tournament_needs_tables``, ``seat_taken``, ``bad_seat``,
``table_full``, ``already_seated``, ``not_seated``, ``seat_in_hand``, ``buy_in_out_of_range``,
``amount_not_multiple``, ``stack_above_max``, ``hand_in_progress``, ``hand_not_running``,
``hand_not_finished``,
``seat_mismatch``, ``action_out_of_order``, ``hand_chips_mismatch``, ``deck_commitment_mismatch``,
``hand_corrupt``, ``schema_too_new``, ``migration_failed``,
``invariant_broken``, ``database_missing``, ``bad_backup_path``, ``backup_failed``,
``sqlite_too_old``, ``schema_differs``, ``target_not_empty``, ``copy_incomplete``,
``unknown_tournament``, ``channel_has_tournament``, ``tournament_name_taken``,
``tournament_over``, ``registration_closed``, ``already_registered``, ``not_registered``,
``tournament_full``, ``already_started``, ``not_enough_players``, ``not_running``,
``results_mismatch``, ``prizes_mismatch``, ``pool_mismatch``, ``not_in_tournament`` (a cash
move at a tournament's table or hand), ``not_tournament_table``, ``not_playing``,
``bad_league_name``, ``league_name_taken``, ``too_many_leagues``, ``unknown_league``,
``league_closed``, ``league_has_open_tournaments``, ``league_over``, ``league_not_begun``,
``league_ends_before_start``, and a league's points refused as ``engine.league`` refuses them,
``bots_not_allowed`` (a bot's buy-in or top-up at an economy table of a server that does not
allow bots), ``storage_unavailable`` (a ``StorageUnavailable``: the database could not be
reached or could not write, for the reason its kind names).
"""

from __future__ import annotations

import json
from typing import Any

from engine.errors import CodedError
from engine.limits import MAX_CHIPS

# A wallet may hold more than any single move (many wins add up): the balance column's maximum
# (its CHECK), far below the 64-bit integer columns' 9.2e18.
MAX_BALANCE = 10**15
# The most chips a server may have in circulation (minted minus burned, wherever they are).
# Chips enter only below it (a grant, a daily bonus, a new wallet), so a wallet holding every
# chip of its server is still within MAX_BALANCE, and so are a seat, a hand and a prize pool:
# a credit that gives chips back (a cash-out, a refund, a prize) never meets a limit.
MAX_CIRCULATION = MAX_BALANCE
# Discord snowflakes and our own row ids are positive 64-bit integers.
MAX_ID = 2**63 - 1


# Codes that mean a bug or a damaged database rather than a user's mistake.
INTERNAL_CODES = frozenset(
    {
        "bad_id",
        "bad_json",
        "bad_deck",
        "bad_players",
        "bad_state",
        "seat_mismatch",
        "action_out_of_order",
        "hand_chips_mismatch",
        "deck_commitment_mismatch",
        "hand_corrupt",
        "schema_too_new",
        "migration_failed",
        "invariant_broken",
        "database_missing",
        "sqlite_too_old",
        "unknown_guild",
        "hand_not_running",
        "hand_not_finished",
        "bad_database_url",
        "bad_backup_path",
        "backup_failed",
        "schema_differs",
        "copy_incomplete",
        "results_mismatch",
        "prizes_mismatch",
        "pool_mismatch",
        "not_tournament_table",
        # A recap asked for by id is looked up by the runtime first (``no_such_recap``).
        "unknown_recap",
        # The engine's all-in EV and settlement refuse only what a bug would give them.
        "bad_all_in_ev",
        "bad_nets",
    }
)


class StorageError(CodedError):
    """Bad input or a refused chip move: a stable ``code`` plus the ``params`` a message needs.

    >>> e = StorageError("insufficient_funds", balance=120, amount=200)
    >>> e.code, e.params["balance"]
    ('insufficient_funds', 120)
    >>> str(e)
    'insufficient_funds: balance=120, amount=200'
    >>> StorageError("hand_corrupt", hand_id=3).internal
    True
    """

    @property
    def internal(self) -> bool:
        return self.code in INTERNAL_CODES


# Why the database could not take a transaction (``StorageUnavailable.kind``), stable:
FAULT_KINDS = (
    "unreachable",  # no connection can be opened: server stopped or starting, refused, no route
    "connection_lost",  # an open connection was cut: server restarted, connection terminated
    "timeout",  # the server cancelled a statement (statement_timeout, lock_timeout)
    "read_only",  # the server or file takes no writes (a standby; a read-only file)
    "disk_full",  # no space left for the database
    "io_error",  # the disk failed a read or a write
    "cannot_open",  # the database file (or its journal) cannot be opened
    "busy",  # another process held the database's write lock for too long
    "overloaded",  # the server is out of memory or connections
)


class StorageUnavailable(StorageError):
    """The database could not be reached or could not write: a fault of the database's, not of
    the input, that passes by itself (code ``storage_unavailable``; ``kind`` one of
    ``FAULT_KINDS``, ``detail`` the driver's words, for the log).

    Nothing of the transaction is stored, unless ``maybe_stored``: the fault cut off the answer
    to its COMMIT (or to a statement committed on its own), so it may have been stored. The
    database never runs such a transaction again by itself; the caller reads back what is
    stored once the database answers (``Database.health``).

    >>> e = StorageUnavailable("connection_lost", detail="server closed the connection")
    >>> isinstance(e, StorageError), e.code, e.kind, e.maybe_stored, e.internal
    (True, 'storage_unavailable', 'connection_lost', False, False)
    """

    def __init__(self, kind: str, *, detail: str = "", maybe_stored: bool = False) -> None:
        super().__init__("storage_unavailable", kind=kind)
        self.kind = kind
        self.detail = detail
        self.maybe_stored = maybe_stored
        # Set once the database has counted it (a batch's callers share one error).
        self.noted = False

    def __str__(self) -> str:
        stored = ", may be stored" if self.maybe_stored else ""
        return f"storage_unavailable: {self.kind}{stored}" + (
            f" ({self.detail})" if self.detail else ""
        )


def check_id(value: object, field: str) -> int:
    """A Discord snowflake or a row id: a positive int that fits in 64 bits (bool refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_ID:
        raise StorageError("bad_id", field=field, value=repr(value))
    return value


def check_amount(value: object, field: str = "amount") -> int:
    """A chip amount: an int from 1 to ``MAX_CHIPS``; bool and float are refused, not coerced."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise StorageError("bad_amount", field=field, value=repr(value))
    if value <= 0:
        raise StorageError("amount_not_positive", field=field, value=value)
    if value > MAX_CHIPS:
        raise StorageError("amount_too_large", field=field, value=value, maximum=MAX_CHIPS)
    return value


def check_setting(value: object, name: str, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise StorageError(
            "bad_setting", name=name, value=repr(value), minimum=minimum, maximum=maximum
        )
    return value


def to_json_text(value: object, field: str) -> str:
    """Serialize a JSON value, or an engine object through its ``to_json()``, strictly.

    Accepting objects with ``to_json`` lets the bot pass a ``HandConfig`` or an ``Action`` as is
    while this package never imports the engine at module level.
    """
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        value = to_json()
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"), sort_keys=False)
    except (TypeError, ValueError) as exc:
        raise StorageError("bad_json", field=field, detail=str(exc)) from None


def from_json_text(text: str) -> Any:
    return json.loads(text)
