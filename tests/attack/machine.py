"""The attack machine: random members (seated or not, host or not, manager or not) send every
command, press current, stale, doubled and forged buttons, and type odd raises, alone or at
once; after every step the bot's promises are checked (see ``_check``):

1. the ledger invariant holds (``bot.storage.invariant.check_invariant``);
2. nobody but X is ever shown X's hole cards while they are unshown (channel messages, their
   attachments' names, alt text and text files, ephemeral replies to others, DMs to others),
   and no log line names them, at any level (as the bot logs with ``LOG_LEVEL=DEBUG``);
3. every interaction is answered within the fake's 3 s deadline (a "thinking…" deferral, then
   by the answer itself);
4. no warning or error (and no traceback) is logged by the bot, no "Something went wrong" reply
   is sent, and Discord refuses none of the bot's requests;
5. chips change only through the ledger: new chips are minted only by a new wallet, a daily
   bonus claimed in the step or a manager's grant in the step, none are burned, and the
   engine's stacks match storage's seats;
6. a double press of one button acts at most once (a toggle is not turned on and back off);
7. a player a host removes during a hand leaves the table when that hand ends (RULES 8);
8. a refused interaction (bad input: the error handler's refusals) is answered privately, in
   a sentence of its own (not a generic one, no placeholder left), and, when it was the
   step's only interaction and the bot's clock moved nothing meanwhile, it changed nothing:
   no wallet, ledger entry, server setting, table state or table setting;
9. no table stalls, cash or tournament: one with a player to act has his clock running, a
   run-it-twice question has its deadline running, and one that can deal has a deal coming; a
   running tournament has its level clock running (and check 4 catches a clock that failed,
   "its clock failed", or a hand that "could not settle");
10. chips coming back (a cash-out, a close, a refund, a prize) are never refused
   (``balance_too_large`` was the refusal), and the server's chips never pass its cap
   (``MAX_CIRCULATION``, lowered for most runs so that /chips grant reaches it in a few
   steps);
11. no member has more open cash tables and tournaments than the server's per-host limit, and
   the server never more tables (a registering tournament counts one, a running one its
   tables) than its total, whenever the count grows (a lowered limit is no fault of a table
   already open);
12. statistics count cash chips only: every player's net is the same over the last week, the
   last month and all time (everything happened within the run), in /chips stats and in the
   leaderboards, and equals his net in the all-time totals, which never count a tournament.

One event loop, one fake Discord and one bot per machine run; every rule runs to completion
(the interactions answered, the tables' message queues flushed) before the checks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from unittest import mock

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from bot.i18n import has_message, t
from bot.presenter import decision_number
from bot.runtime import tourney as tourney_runtime
from bot.runtime.cash import CashTable
from bot.runtime.play import DOUBLE_CLICK
from bot.runtime.table import LiveTable
from bot.runtime.tourney import LiveTournament, TournamentTable
from bot.storage import economy, invariant, tables
from bot.storage import ledger as ledger_storage
from bot.storage import stats as stats_storage
from bot.storage.errors import MAX_BALANCE
from bot.ui import custom_id
from engine.cards import FULL_DECK, Card, parse_cards
from engine.errors import CodedError
from engine.hand import ActionKind, deck_from_cards
from engine.limits import MAX_CHIPS
from tests.attack.kit import (
    AttackFailure,
    AttackWorld,
    ChipsOutsideLedger,
    CreditRefused,
    DoubleAction,
    EngineStorageDrift,
    ErrorLogged,
    HandRecorder,
    HoleCardsLeaked,
    InteractionUnanswered,
    KickIgnored,
    LedgerInvariantBroken,
    LogTrap,
    Outcome,
    OverTableLimits,
    RefusalNotPrivate,
    RefusedInputChanged,
    RequestRefused,
    StatsCountTournamentChips,
    TableStalled,
    button_action,
    buttons_for,
    find_leaks,
    find_log_leaks,
    make_world,
    press,
    reply_text,
    submit_raw_modal,
)
from tests.e2e.game_kit import Game, StackedDeck, quick_options, running_game, settled
from tests.fakediscord import (
    FakeChannel,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    InteractionCallback,
    InteractionHandle,
)


@dataclass
class Stats:
    examples: int = 0
    steps: int = 0
    interactions: int = 0
    hands: int = 0
    seconds: float = 0.0  # spent in steps (start-up and teardown excluded)
    wall: float = 0.0  # everything, start-up included
    ignored: int = 0  # failures ATTACK_IGNORE matched
    tournaments: int = 0  # tournaments opened
    started: int = 0  # tournaments that started
    tournament_hands: int = 0  # hands finished at tournament tables
    levels: int = 0  # level changes the tournaments' clocks made

    def line(self) -> str:
        rate = self.steps / self.seconds if self.seconds else 0.0
        overall = self.steps / self.wall if self.wall else 0.0
        return (
            f"attack: {self.steps} steps in {self.examples} machine runs, "
            f"{self.interactions} interactions, {self.hands} hands dealt; "
            f"{rate:.1f} steps/s in steps, {overall:.1f} steps/s overall "
            f"({self.wall:.1f}s); {self.tournaments} tournaments opened, {self.started} "
            f"started, {self.tournament_hands} tournament hands finished, {self.levels} level "
            f"changes" + (f"; {self.ignored} known failures ignored" if self.ignored else "")
        )


STATS = Stats()
VERBOSE = os.environ.get("ATTACK_VERBOSE") == "1"
# Bugs found and not fixed yet, each with a strict xfail reproduction in test_repros.py
# (which fails once the bug is fixed: then remove its pattern here). ATTACK_KNOWN=1 reports
# them like any other failure.
KNOWN: tuple[str, ...] = ()
IGNORED = [
    *(KNOWN if os.environ.get("ATTACK_KNOWN") != "1" else ()),
    *(p for p in os.environ.get("ATTACK_IGNORE", "").split(";;") if p.strip()),
]

T = TypeVar("T")
INDEX = st.integers(0, 1 << 16)

# -- odd values ------------------------------------------------------------------------------

ODD_INTS = (
    0, -1, -10, 1, 2, 3, 5, 7, 10, 15, 20, 25, 50, 99, 100, 101, 250, 500, 999, 1000, 2000,
    5000, 9999, 10_000, 10_001, 10**6, MAX_CHIPS, MAX_CHIPS + 1, 10**15, 2**53, 2**53 + 1,
    2**63 - 1, 2**63, -(2**63),
)
HUGE = (10**9, 10**10, 5 * 10**10, 10**11, MAX_CHIPS // 2, MAX_CHIPS - 1, MAX_CHIPS)
ODD_FLOATS = (0.5, 2.5, 1e3, 99.99, 1e20)
AMOUNT = st.one_of(
    st.sampled_from(ODD_INTS), st.sampled_from(ODD_INTS), st.integers(-5, 3000),
    st.sampled_from(HUGE), st.sampled_from(ODD_FLOATS),
)
ANTES = ("none", "per_player", "big_blind", "", "NONE", "bb", "x" * 120, "per_player ", "💥")
REOPENS = ("tda", "strict", "half", "", "TDA", "full", "half\x00")
BOARDS = ("net", "biggest_pot", "hands_won", "", "NET", "'; drop table wallets; --")
# Characters str.isdigit() accepts but int() does not (superscripts, circled digits).
DIGIT_LOOKALIKES = ("²", "①", "³⁰", "¹⁰⁰", "⑤⓪", "⁴⁰", "2²")
RAISE_TEXTS = (
    "²", "①", "--5", "1e3", "0.99999999999999999", "2.5k", "1,000", " 40 ", "", " ",
    str(10**30), "٣٠", "-0", "+50", "0x40", "1_000", "50.0", "NaN", "inf", "4 0", "\u200b40",
    "40\n", "９０", "1" * 16, "1" * 17, "𝟒𝟎",
)
# The host's commands and the hand history are where the trouble is: drawn more often.
SUBCOMMANDS = (
    "create", "join", "leave", "start", "sitout", "sitin", "rebuy", "cards", "table",
    "history", "verify", "pause", "resume", "settings", "kick", "void", "close",
    "verify", "verify", "history", "settings", "settings", "kick", "kick", "void", "join",
    "bomb", "bomb", "ledger", "ledger", "rules", "sitout",
)
# The hands of a table are looked up under /history (the rest of SUBCOMMANDS is /poker's).
LOOKED_UP = {"history": ("history", "hand"), "verify": ("history", "verify")}
RUN_TWICE = ("off", "ask", "always", "", "ASK", "twice", "ask ")
STRADDLES = ("off", "utg", "button", "", "UTG", "always", "next")
NEW_PLAYERS = ("wait_for_bb", "post_bb", "deal_in", "", "WAIT_FOR_BB", "x" * 120)
RULE_TOPICS = ("hand_ranks", "blinds", "side_pots", "short_all_in", "showdown", "", "rules",
               "../etc/passwd", "{topic}")
# The home-game buttons: each is meant for some players only, at some moments only.
EXTRA_ACTIONS = frozenset(
    {"straddle_next", "straddle_always", "run_twice", "run_once", "rabbit", "show"}
)
BUTTON_ACTIONS = (
    "fold", "check", "call", "allin", "raise", "raise_modal", "pre_check_fold", "pre_call_any",
    "cards", "back", "show", "zzz", "void", "close", "join", "run_twice", "run_once",
    "straddle_next", "straddle_always", "rabbit", "fold_",
)
# Which (hand, decision) a forged press names, relative to the table's current one.
REFS = ("none", "current", "current", "last decision", "next decision", "last hand",
        "next hand", "huge")
# Buttons whose second press undoes the first.
TOGGLES = frozenset({"pre_check_fold", "pre_call_any", "straddle_next", "straddle_always"})


# A toggle pressed again within a double click of the press that last took effect: to the
# bot (play.Clicks) the new presses belong to that click, so check 6 does not judge
# them as a double click of their own.
BURST = object()


def toggle_before(live_table: CashTable, user_id: int, custom: str) -> object:
    """The toggle's state before a double click, or ``BURST`` when a press now would still
    belong to the player's last click of it."""
    action = button_action(custom) or ""
    name = {"pre_check_fold": "pre:check_fold", "pre_call_any": "pre:call_any"}.get(
        action, action)
    if live_table.clicks.recent(user_id, name, within=DOUBLE_CLICK + 0.2):
        return BURST
    return toggle_state(live_table, user_id, custom)


def toggle_state(live_table: CashTable, user_id: int, custom: str) -> object:
    """Where the toggle behind ``custom`` stands for ``user_id``."""
    action = button_action(custom)
    if action == "straddle_next":
        return user_id in live_table.config.straddle_once
    if action == "straddle_always":
        return user_id in live_table.config.straddle_always
    hand = live_table.table.hand
    index = live_table.table.hand_index(user_id)
    if hand is None or index is None:
        return None
    chosen = hand.preselected.get(index)
    return None if chosen is None else chosen[0]
VOTES = ("none", "all twice", "one says once", "all at once", "with a bystander")
PLAY_ACTIONS = ("fold", "check", "call", "allin", "bet", "raise")


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


def options_of(draws: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in draws.items() if v is not None}


# Hands dealt, and per table: (id, hand number, hand events, dealer task and whether done).
Progress = tuple[int, tuple[tuple[int, int, int, tuple[int, bool] | None], ...]]
FOLLOW_UP_WITHIN = 20.0  # seconds a deferred answer ("thinking…") may take, on a busy machine
SETTLE_WITHIN = 20.0  # seconds a step's messages may take to go out, every table together
STALL_GRACE = 2.5  # seconds a table may take to arm what moves it on (its lock, its messages)
# A refusal that still stores something, on purpose: /poker start with too few players
# switches dealing on, so that the table deals once enough are seated.
REFUSALS_THAT_STORE = frozenset({"waiting_for_players"})
GENERIC = frozenset(
    t(key)
    for key in ("error.internal", "error.timeout", "error.discord_unavailable",
                "error.bot_forbidden", "error.rate_limited")
)
# A credit of chips going back to a wallet refused (a grant or a daily bonus may be refused
# where chips enter: circulation_full).
CREDIT_REFUSALS = frozenset({"balance_too_large"})
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def refusal_problem(answer: InteractionCallback, error: BaseException) -> str | None:
    """What is wrong with the answer to a refused interaction (None: it is fine)."""
    if not answer.ephemeral:
        return f"the refusal was not private (callback type {answer.type}): {answer.content!r}"
    text = answer.content
    if not text.strip():
        return "the refusal says nothing"
    if text in GENERIC:
        return f"the refusal is generic: {text!r}"
    if isinstance(error, CodedError) and not has_message(f"error.{error.code}"):
        return f"the code {error.code!r} has no sentence of its own; the user read {text!r}"
    if _PLACEHOLDER.search(text):
        return f"a placeholder was left unfilled: {text!r}"
    return None


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two fingerprints (wallets opened since do not count)."""
    found = []
    for user_id, wallet in before["wallets"].items():
        if after["wallets"].get(user_id) != wallet:
            found.append(f"wallet {user_id}: {wallet} -> {after['wallets'].get(user_id)}")
    for key in ("ledger", "guild"):
        if before[key] != after[key]:
            found.append(f"{key}: {before[key]} -> {after[key]}")
    opened = sum(balance for user_id, (balance, _) in after["wallets"].items()
                 if user_id not in before["wallets"])
    if before["circulation"] is not None and (
        after["circulation"] != before["circulation"] + opened
    ):
        found.append(f"circulation: {before['circulation']} -> {after['circulation']}"
                     f" ({opened} opened in new wallets)")
    for table_id in before["tables"].keys() | after["tables"].keys():
        old, new = before["tables"].get(table_id), after["tables"].get(table_id)
        if old != new:
            parts = ("closed", "host", "engine table", "settings")
            what = [p for p, a, b in zip(parts, old or (None,) * 4, new or (None,) * 4,
                                         strict=True) if a != b]
            found.append(f"table {table_id}: {', '.join(what)}")
    return found


def stall_of(live_table: LiveTable[Any]) -> str | None:
    """Why the table, cash or tournament, under its lock, would not move on by itself (None: it
    would, or it is waiting for a person, or its tournament is paused)."""
    if live_table.closed:
        return None
    tournament = live_table.venue if isinstance(live_table, TournamentTable) else None
    if tournament is not None and (
        tournament.closed or not tournament.running or tournament.state.paused
        or live_table.number not in tournament.state.tables
    ):
        return None
    table = live_table.table
    hand = table.hand
    if hand is not None and hand.is_over:
        return "its hand is over and not settled"
    if hand is not None:
        if hand.run_choice_pending:
            if not live_table.run_vote.waiting:
                return "the run-it-twice question has no deadline running"
            return None
        if hand.to_act is None:
            return "nobody is to act in a hand that is not over"
        marker = (table.hand_number, decision_number(hand))
        decision = live_table.clock.decision
        if decision is None or decision.marker != marker:
            timed = None if decision is None else decision.marker
            return f"the clock times decision {timed}, the hand waits on {marker}"
        task = live_table.clock._task
        if task is None or task.done():
            return f"the clock of decision {marker} is not running"
        return None
    if isinstance(live_table, TournamentTable):
        return tournament_deal_stall(live_table)
    assert isinstance(live_table, CashTable)
    if not live_table.config.dealing or table.paused or live_table.messenger.blocked:
        return None
    if not live_table.messenger._idle.is_set():
        return None  # the next deal is scheduled once the result went out
    draft = live_table._draft()
    live_table._apply_pending(draft)
    live_table._sit_out_big_blinds(draft)
    if not draft.table.can_start():
        return None
    task = live_table._dealer_task
    if task is None or task.done():
        return "it can deal the next hand and no deal is coming"
    return None


def tournament_deal_stall(live_table: TournamentTable) -> str | None:
    """Why a tournament table that could deal (running, not paused, no break, two players with
    chips, its last result shown) has no deal coming (None: it has, or it cannot deal)."""
    state = live_table.tournament.state
    if live_table.messenger.blocked or not live_table.messenger._idle.is_set():
        return None
    if state.time_up or state.on_break_at(tourney_runtime.now()):
        return None
    if not state.can_start(live_table.number):
        return None
    task = live_table._dealer_task
    if task is None or task.done():
        return "it can deal the next hand and no deal is coming"
    return None


OPTION_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "small_blind": AMOUNT,
    "big_blind": AMOUNT,
    "min_buy_in": AMOUNT,
    "max_buy_in": AMOUNT,
    "timer": st.sampled_from([0, 1, 2, 5, 30, 299, 300, 301, 3600, 3601, 2**63, -1]),
    "ante": st.sampled_from(ANTES),
    "ante_amount": AMOUNT,
    "reopen": st.sampled_from(REOPENS),
    "run_it_twice": st.sampled_from(RUN_TWICE),
    "straddle": st.sampled_from(STRADDLES),
    "new_players": st.sampled_from(NEW_PLAYERS),
    "bomb_every": st.sampled_from([0, 1, 2, 3, 1000, 1001, -1, 2**63]),
    "bomb_amount": AMOUNT,
}
# One or two options (most often accepted, so the odd value reaches the table), or any mix.
TABLE_OPTIONS = st.one_of(
    st.dictionaries(st.sampled_from(sorted(OPTION_VALUES)), st.none(), min_size=1, max_size=2)
    .flatmap(lambda keys: st.fixed_dictionaries({k: OPTION_VALUES[k] for k in keys})),
    st.fixed_dictionaries({}, optional=OPTION_VALUES),
)

# -- tournaments --------------------------------------------------------------------------------

# Levels of six seconds (the clock's jumps move them faster still).
QUICK_LEVELS = "10/20 0.1, 20/40 0.1, 40/80 0.1, 80/160 0.1, 150/300 0.1, 300/600 0.1"
# A second level no table can play: its buy-in range (100 big blinds) passes the chip limit.
UNPLAYABLE = "1/2 0.1, 10000000000/20000000000 30"
STRUCTURES = (
    QUICK_LEVELS, QUICK_LEVELS, QUICK_LEVELS, UNPLAYABLE, UNPLAYABLE, "turbo", "deep", "regular",
    "5/10 0.1, 1/2 0.1", "", "x", "break 10", "1/2/2 0.1, 2/4/4 0.1",
    "10/20 0.1, break 0.1, 20/40 1",
    "1/2 0.1, " + str(MAX_CHIPS // 2) + "/" + str(MAX_CHIPS) + " 1",
)
TOURNAMENT_NAMES = ("Friday", "Friday", "Saturday", "Sunday", "x" * 100, "x" * 101, "  a   b  ",
                    "💥", "")
TOURNAMENT_KINDS = ("freeze_out", "freeze_out", "freeze_out", "freeze_out", "time_limited",
                    "sit_and_go")
TOURNAMENT_BUY_INS = (0, 0, 10, 100, 100, 1000, 10**6, 10**9, MAX_CHIPS // 100, MAX_CHIPS,
                      MAX_CHIPS + 1, -1)
STACKS = (1000, 1000, 1000, 10_000, 200, 2, 1, 0, 10**9, 10**10, MAX_CHIPS // 100, MAX_CHIPS // 2,
          MAX_CHIPS)
TOURNAMENT_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "name": st.sampled_from(TOURNAMENT_NAMES),
    "kind": st.sampled_from(TOURNAMENT_KINDS),
    "buy_in": st.sampled_from(TOURNAMENT_BUY_INS),
    "starting_stack": st.sampled_from(STACKS),
    "structure": st.sampled_from(STRUCTURES),
    "level_minutes": st.sampled_from([0.1, 0.1, 0.05, 1.0, 240.0, 241.0]),
    "max_players": st.sampled_from([2, 3, 4, 6, 9, 10, 1000, 1, 1001]),
    "seats_per_table": st.sampled_from([2, 3, 3, 6, 9, 10, 1]),
    "late_levels": st.sampled_from([0, 1, 2, 3, 100, 101]),
    "timer": st.sampled_from([1, 1, 2, 0]),
    "ante": st.sampled_from(["big_blind", "per_player", "none", "bogus"]),
    "payouts": st.sampled_from(["standard", "winner", "50/30/20", "x", "100"]),
}
# A tournament that opens (short levels, a small field over one to three tables)...
PLAIN_TOURNAMENT = st.fixed_dictionaries(
    {
        "name": st.sampled_from(TOURNAMENT_NAMES[:4]),
        "kind": st.just("freeze_out"),
        "buy_in": st.sampled_from([0, 10, 100, 1000]),
        "starting_stack": st.sampled_from([200, 1000, 1000, 10_000]),
        "structure": st.sampled_from([QUICK_LEVELS, QUICK_LEVELS, UNPLAYABLE, "turbo"]),
        "max_players": st.sampled_from([4, 6, 10]),
        "seats_per_table": st.sampled_from([2, 3, 6, 9]),
    },
    optional={"late_levels": st.sampled_from([0, 1, 2]), "timer": st.sampled_from([1, 2])},
)
# ... with one or two odd options, a preset with a deep stack, or anything at all.
ODD_TOURNAMENT_OPTIONS = st.dictionaries(
    st.sampled_from(sorted(TOURNAMENT_VALUES)), st.none(), min_size=1, max_size=2
).flatmap(lambda keys: st.fixed_dictionaries({k: TOURNAMENT_VALUES[k] for k in keys}))
DEEP_PRESET = st.fixed_dictionaries({
    "structure": st.sampled_from(["deep", "regular", "turbo"]),
    "starting_stack": st.sampled_from([10**8, 10**9, 10**10, 5 * 10**10, MAX_CHIPS // 10]),
    "max_players": st.sampled_from([2, 4, 10]),
})
TOURNAMENT_OPTIONS = st.one_of(
    PLAIN_TOURNAMENT,
    st.tuples(PLAIN_TOURNAMENT, ODD_TOURNAMENT_OPTIONS).map(lambda p: {**p[0], **p[1]}),
    st.tuples(PLAIN_TOURNAMENT, DEEP_PRESET).map(lambda p: {**p[0], **p[1]}),
    st.fixed_dictionaries(
        {k: TOURNAMENT_VALUES[k] for k in ("name", "kind", "buy_in", "starting_stack")},
        optional={k: v for k, v in TOURNAMENT_VALUES.items()
                  if k not in ("name", "kind", "buy_in", "starting_stack")},
    ),
)
TOURNAMENT_SUBCOMMANDS = (
    "register", "register", "register", "unregister", "start", "start", "pause", "resume",
    "cancel", "status", "list",
)
TOURNAMENT_HOST_COMMANDS = frozenset({"start", "pause", "resume", "cancel"})
# How far the tournaments' clock jumps (seconds): a level of 0.1 minutes, a few, a break.
CLOCK_JUMPS = (6.0, 6.0, 12.0, 30.0, 60.0, 600.0, 3600.0)
# A cap on the server's chips that /chips grant (at most MAX_CHIPS a grant) reaches in a few
# steps; None keeps the real one (10**15).
LOW_CAP = 3 * MAX_CHIPS
IDLE_SWEEPS = (0, 60, 1799, 1801, 3600, 10**6)


class AttackMachine(RuleBasedStateMachine):
    """See the module docstring."""

    def __init__(self) -> None:
        super().__init__()
        self.started = time.monotonic()
        STATS.examples += 1
        self.loop = asyncio.new_event_loop()
        self.tmp = tempfile.TemporaryDirectory(prefix="poker-attack-")
        self.trap = LogTrap()
        self.recorder = HandRecorder()
        self.world: AttackWorld = make_world()
        self.rng = random.Random(0)
        self.deck_plan: list[str] = ["random"]
        self.decks_dealt = 0
        self.stack = contextlib.AsyncExitStack()
        self.history: list[Outcome] = []
        self.shown_at: dict[int, tuple[frozenset[int], ...]] = {}
        self.event_cursor = 0
        self.log_cursor = 0
        self.log_line_cursor = 0
        self.request_cursor = 0
        self.ledger_cursor = 0
        self.wallets: set[int] = set()
        self.starting_balance = 0
        self.starting_before = 0
        self.allowed_mints: list[tuple[str, int, int | None, int | None]] = []
        # The tournaments' clock runs ``skew`` seconds ahead of the wall clock (a jump is time
        # passing); the cap on the server's chips may be lowered (see ``bootstrap``).
        self.skew = 0.0
        self.held = 0
        self.cap = MAX_BALANCE
        self.limit_counts: dict[str, int] = {}
        self.levels_seen: dict[int, int] = {}
        self.patches: list[Any] = [
            mock.patch.object(tourney_runtime, "now", lambda: time.time() + self.skew)
        ]
        for patch in self.patches:
            patch.start()
        self.trap.shown = self.recorder.shown_now
        self.trap.install()
        self.recorder.install()
        try:
            self.game = self.loop.run_until_complete(self._start())
        except BaseException:
            self._close()
            raise

    # -- the machine's own life ------------------------------------------------------------

    def _deck(self) -> tuple[Card, ...]:
        """The next deck, from the machine's seeded generator; the run's deck plan (drawn at
        set-up) stacks some: a royal flush on the board (every pot split between all its
        players), or two players holding the same ace-king (a chop)."""
        deck = list(FULL_DECK)
        self.rng.shuffle(deck)
        # Drawn per deck, and a plan always holds a random deck: taken in turn, two tables
        # dealing one after the other each met the same stacked deck every hand, and a
        # tournament's heads-up tables all in at the deal split their pots for ever.
        kind = self.rng.choice(self.deck_plan)
        self.decks_dealt += 1
        players = self._players_being_dealt()
        if kind == "random" or players is None or players < 2:
            return tuple(deck)
        if kind == "board plays":
            suit = "cdhs"[self.decks_dealt % 4]
            board = parse_cards("".join(rank + suit for rank in "AKQJT"))
            return deck_from_cards(players, [], board, filler=deck)
        holes = [parse_cards("AcKd"), parse_cards("AhKs")]
        return deck_from_cards(players, holes, (), filler=deck)

    def _players_being_dealt(self) -> int | None:
        """How many players the table dealing now (its lock held, no hand yet) deals in."""
        for live_table in self.cash_tables():
            if live_table.lock.locked() and live_table.table.hand is None:
                try:
                    return len(live_table.table.next_plan().seats)
                except Exception:
                    return None
        return None

    async def _start(self) -> Game:
        world = self.world
        fake = await self.stack.enter_async_context(
            FakeDiscord(guilds=[world.guild], users=world.users)
        )
        record = fake.state._record_event

        def recording(kind: str, message: FakeMessage) -> None:
            record(kind, message)
            self.shown_at[len(fake.events) - 1] = self.recorder.shown_now()

        fake.state._record_event = recording  # type: ignore[method-assign]
        deck = StackedDeck()
        # Edits that change nobody's turn wait calm_edit_interval: short, for more steps a second.
        # The run-it-twice question expires within a few steps, so hands go on.
        options = quick_options(
            deck, deck_factory=self._deck, calm_edit_interval=0.01, run_twice_vote=1.0,
            tournament_heartbeat=0.25,
        )
        game = await self.stack.enter_async_context(
            running_game(fake, world, Path(self.tmp.name), deck=deck, options=options)
        )
        game.runtime.rng = self.rng
        await game.runtime.ensure_guild(world.guild.id)
        await self._ledger_baseline(game)
        return game

    async def _ledger_baseline(self, game: Game) -> None:
        db = game.db
        row = await db.fetchone("SELECT COALESCE(MAX(entry_id), 0) FROM ledger")
        self.ledger_cursor = int(row[0]) if row is not None else 0
        rows = await db.fetchall(
            "SELECT user_id FROM wallets WHERE guild_id = ?", (self.world.guild.id,)
        )
        self.wallets = {int(r[0]) for r in rows}
        self.starting_balance = await self._starting_balance(game)

    async def _starting_balance(self, game: Game) -> int:
        row = await game.db.fetchone(
            "SELECT starting_balance FROM guilds WHERE guild_id = ?", (self.world.guild.id,)
        )
        return int(row[0]) if row is not None else 0

    def teardown(self) -> None:
        self._close()

    def _close(self) -> None:
        loop = self.loop
        try:
            with contextlib.suppress(Exception):
                loop.run_until_complete(asyncio.wait_for(self._count_tournament_hands(), 5))
            with contextlib.suppress(Exception):
                loop.run_until_complete(asyncio.wait_for(self.stack.aclose(), 20))
            pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
            for task in pending:
                task.cancel()
            if pending:
                with contextlib.suppress(Exception):
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()
            for patch in reversed(self.patches):
                with contextlib.suppress(RuntimeError):
                    patch.stop()
            self.recorder.uninstall()
            self.trap.uninstall()
            self.tmp.cleanup()
            STATS.wall += time.monotonic() - self.started
            STATS.hands += len(self.recorder.dealt)

    async def _count_tournament_hands(self) -> None:
        row = await self.game.db.fetchone(
            "SELECT COUNT(*) FROM hands WHERE tournament_id IS NOT NULL AND status = 'finished'"
        )
        STATS.tournament_hands += int(row[0]) if row is not None else 0
        row = await self.game.db.fetchone(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN started_at IS NOT NULL THEN 1 ELSE 0 END),"
            " 0) FROM tournaments"
        )
        if row is not None:
            STATS.tournaments += int(row[0])
            STATS.started += int(row[1])

    def lower_cap(self, cap: int) -> None:
        """Lower the server's chip cap to ``cap`` for this run: where the code keeps it
        (``MAX_CIRCULATION``, checked where chips enter), or, on code that limits each wallet
        instead (``MAX_BALANCE``, checked on every credit), there."""
        self.cap = cap
        for module in (ledger_storage, economy):
            for name in ("MAX_CIRCULATION", "MAX_BALANCE"):
                if hasattr(module, name):
                    patch = mock.patch.object(module, name, cap)
                    patch.start()
                    self.patches.append(patch)

    # -- shortcuts ---------------------------------------------------------------------------

    @property
    def fake(self) -> FakeDiscord:
        return self.game.fake

    @property
    def members(self) -> list[FakeUser]:
        return self.world.members

    def names(self) -> dict[int, str]:
        return {u.id: u.global_name or u.name for u in self.world.users}

    def cash_table_in(self, channel: FakeChannel) -> CashTable | None:
        found = self.game.runtime.registry.find_in(channel.id)
        return found if isinstance(found, CashTable) else None

    def cash_tables(self) -> list[CashTable]:
        return list(self.game.runtime.registry.cash_tables())

    def cash_table(self, table_id: int) -> CashTable | None:
        found = self.game.runtime.registry.find(table_id)
        return found if isinstance(found, CashTable) else None

    def live_tables(self) -> list[LiveTable[Any]]:
        """Every live table, cash or tournament."""
        return list(self.game.runtime.registry.tables())

    def tournaments(self) -> list[LiveTournament]:
        return sorted(self.game.runtime.registry.tournaments(), key=lambda t: t.tournament_id)

    def to_act(self, live_table: LiveTable[Any]) -> FakeUser | None:
        hand = live_table.hand
        if hand is None or hand.to_act is None:
            return None
        return self.fake.users.get(live_table.player_of(hand.to_act))

    def turns(self) -> list[tuple[LiveTable[Any], FakeUser]]:
        """Who is to act where, at every table (cash tables first, then tournament tables)."""
        found = []
        for live_table in sorted(self.live_tables(),
                             key=lambda r: (isinstance(r, TournamentTable), r.table_id)):
            user = self.to_act(live_table)
            if user is not None:
                found.append((live_table, user))
        return found

    def channel_of(self, live_table: LiveTable[Any]) -> FakeChannel:
        return self.fake.channels[live_table.channel_id]

    def current_message(self, live_table: LiveTable[Any]) -> FakeMessage | None:
        message_id = live_table.message_id
        if message_id is None or message_id not in self.fake.messages:
            return None
        message = self.fake.message(message_id)
        return None if message.deleted else message

    def guild_channels(self) -> list[FakeChannel]:
        return list(self.world.guild.channels)

    # -- running a step --------------------------------------------------------------------

    def step(self, description: str, action: Callable[[], Awaitable[None]]) -> None:
        STATS.steps += 1
        outcome = Outcome(f"#{len(self.history) + 1} {description}")
        self.history.append(outcome)
        started = time.monotonic()
        try:
            self.loop.run_until_complete(self._run_step(outcome, action))
        finally:
            STATS.seconds += time.monotonic() - started
            if VERBOSE:
                print(f"[{time.monotonic() - started:5.2f}s] {outcome}", file=sys.__stderr__)

    async def _run_step(self, outcome: Outcome, action: Callable[[], Awaitable[None]]) -> None:
        mark = len(self.fake.interactions)
        self.allowed_mints = []
        self.starting_before = self.starting_balance
        before, progress = await self._fingerprint()
        await action()
        handles = self.fake.interactions[mark:]
        STATS.interactions += len(handles)
        late = await self._answers(handles)
        outcome.replies = [await self._reply_seen(h) for h in handles]
        await self._settle()
        if late:
            self.fail(InteractionUnanswered, "; ".join(late))
        await self._check_refusals(handles, before, progress)
        await self._check()

    async def _answers(self, handles: list[InteractionHandle]) -> list[str]:
        """Wait for every answer; what was not answered in time. The fake refuses an answer
        after its 3 s deadline (the handle is then ``expired``), and a "thinking…" deferral
        must be followed by the real answer."""
        deadline = self.fake.interaction_deadline + 0.75
        late = []
        for handle in handles:
            remaining = max(0.05, handle.created_at + deadline - time.time())
            with contextlib.suppress(TimeoutError):
                await self.fake.wait_for(
                    lambda h=handle: h.callback is not None or h.expired,  # type: ignore[misc]
                    timeout=remaining,
                    what="an answer",
                )
            if handle.callback is None:
                late.append(f"no answer within the deadline to {self._describe_handle(handle)}")
            elif await self._visible_answer(handle) is None:
                late.append(f"'thinking…' and nothing after it: {self._describe_handle(handle)}")
        return late

    async def _reply_seen(self, handle: InteractionHandle) -> str:
        """The step history's note of an answer: the message that replaced a deferral."""
        callback = handle.callback
        if callback is not None and callback.type == 5 and callback.content == "":
            answer = await self._visible_answer(handle)
            if answer is not None:
                text = answer.content.replace("\n", " | ")
                return repr(text if len(text) <= 160 else text[:157] + "...")
        return reply_text(handle)

    @staticmethod
    async def _visible_answer(handle: InteractionHandle) -> InteractionCallback | None:
        """What the user ended up seeing (the message that replaced a deferral)."""
        try:
            return await settled(handle, FOLLOW_UP_WITHIN)
        except TimeoutError:
            return None

    # -- check 8: a refusal is private, specific, and changes nothing ----------------------

    async def _fingerprint(
        self,
    ) -> tuple[dict[str, Any], Progress]:
        """What a refused interaction must leave as it was (wallets, the ledger, the server's
        economy settings, every table: its engine state and settings; the display names it
        remembers and the wallets a first contact opens are not changes), and the progress
        of the bot's own clock, both read with every table's lock held: between transitions."""
        async with contextlib.AsyncExitStack() as locks:
            for live_table in sorted(self.cash_tables(), key=lambda r: r.table_id):
                await locks.enter_async_context(live_table.lock)
            return await self._read_fingerprint(), self._progress()

    async def _read_fingerprint(self) -> dict[str, Any]:
        db = self.game.db
        guild_id = self.world.guild.id
        wallets = await db.fetchall(
            "SELECT user_id, balance, last_daily FROM wallets WHERE guild_id = ?", (guild_id,)
        )
        ledger = await db.fetchone(
            "SELECT COALESCE(MAX(entry_id), 0) FROM ledger"
            " WHERE guild_id = ? AND reason <> 'wallet_open'",
            (guild_id,),
        )
        # The server's settings, and apart from them its chips in circulation: a wallet that
        # a first contact opens mints its opening balance, which is no change.
        guild = await db.fetchone(
            "SELECT starting_balance, daily_amount, daily_cooldown, max_tables,"
            " max_tables_per_host, idle_close, language, bots_allowed, house_loss_cap,"
            " circulation FROM guilds WHERE guild_id = ?",
            (guild_id,),
        )
        tables = {}
        for live_table in self.cash_tables():
            config = live_table.config.to_json()
            for volatile in ("names", "state"):
                config.pop(volatile, None)
            tables[live_table.table_id] = (
                live_table.closed,
                live_table.host_id,
                json.dumps(live_table.table.to_json(), sort_keys=True, default=str),
                json.dumps(config, sort_keys=True, default=str),
            )
        return {
            "wallets": {int(r[0]): (int(r[1]), r[2]) for r in wallets},
            "ledger": None if ledger is None else int(ledger[0]),
            "guild": None if guild is None else tuple(guild[:-1]),
            "circulation": None if guild is None else int(guild[-1]),
            "tables": tables,
        }

    def _progress(self) -> Progress:
        """What the bot moves by itself: hands dealt, each table's hand events, and its
        dealer (which, failing to deal, still applies the settings that waited for the next
        hand)."""
        return len(self.recorder.dealt), tuple(
            (
                r.table_id,
                r.table.hand_number,
                len(r.table.hand.events) if r.table.hand else -1,
                None if r._dealer_task is None else (id(r._dealer_task), r._dealer_task.done()),
            )
            for r in self.cash_tables()
        )

    async def _check_refusals(
        self,
        handles: list[InteractionHandle],
        before: dict[str, Any],
        progress: Progress,
    ) -> None:
        refused = [(h, self.trap.refusals[h.id]) for h in handles if h.id in self.trap.refusals]
        for handle, error in refused:
            if (isinstance(error, CodedError) and error.code in CREDIT_REFUSALS
                    and not self._describe_handle(handle).split(": ", 1)[-1].startswith(
                        ("/chips grant", "/chips daily"))):
                self.fail(
                    CreditRefused,
                    f"{self._describe_handle(handle)} was refused ({error!r}): chips coming "
                    "back to a wallet were refused",
                )
            answer = await self._visible_answer(handle)
            if answer is None:
                continue  # check 3 says so
            problem = refusal_problem(answer, error)
            if problem is not None:
                self.fail(
                    RefusalNotPrivate,
                    f"{self._describe_handle(handle)} was refused ({error!r}): {problem}",
                )
        if len(handles) != 1 or not refused:
            return
        handle, error = refused[0]
        if isinstance(error, CodedError) and error.code in REFUSALS_THAT_STORE:
            return
        after, progress_after = await self._fingerprint()
        if progress_after != progress:
            return  # the clock or the dealer moved too: no telling what changed what
        changed = changes(before, after)
        if changed:
            self.fail(
                RefusedInputChanged,
                f"{self._describe_handle(handle)} was refused ({error!r}) and yet changed "
                + "; ".join(changed),
            )

    # -- check 9: no table stalls -----------------------------------------------------------

    async def _check_stalls(self) -> None:
        """A table that should move on by itself (a clock running for the player to act, a
        vote's deadline, the next deal) has what will move it; given a moment to get there."""
        deadline = time.monotonic() + STALL_GRACE
        while True:
            problems = []
            for live_table in self.live_tables():
                async with live_table.lock:
                    problem = stall_of(live_table)
                if problem is not None:
                    kind = ("tournament table" if isinstance(live_table, TournamentTable)
                            else "table")
                    number = live_table.table.hand_number
                    problems.append(f"{kind} {live_table.table_id} (hand #{number}): {problem}")
            for live in self.tournaments():
                ticker = live._ticker
                if not live.closed and live.running and (ticker is None or ticker.done()):
                    problems.append(f"tournament {live.tournament_id}: its clock is not running")
            if not problems:
                return
            if time.monotonic() > deadline:
                self.fail(TableStalled, "; ".join(problems))
                return
            await asyncio.sleep(0.1)

    async def _settle(self) -> None:
        """Let every table say what the step changed, within SETTLE_WITHIN in all: a table
        that never falls quiet (a tournament's heads-up table dealing hand after hand to
        players who are away, each acted for at once) may not hold the machine up. Ten
        seconds a table, five rounds over, once made one step outlast the test's limit."""
        deadline = time.monotonic() + SETTLE_WITHIN

        def left() -> float:
            return max(0.0, deadline - time.monotonic())

        for _ in range(5):
            seen = len(self.fake.events)
            for live_table in self.live_tables():
                await live_table.messenger.flush(left())
                tasks = list(live_table.direct._tasks)
                if tasks and left():
                    await asyncio.wait(tasks, timeout=left())
            for live in self.tournaments():
                await live.flush(left())
                tasks = list(live.direct._tasks)
                if tasks and left():
                    await asyncio.wait(tasks, timeout=left())
            await asyncio.sleep(0.005)
            if len(self.fake.events) == seen or not left():
                break

    def _describe_handle(self, handle: InteractionHandle) -> str:
        data = handle.data
        if handle.type == 2:
            sub = data.get("options") or []
            name = data.get("name")
            if sub and sub[0].get("type") in (1, 2):
                name = f"{name} {sub[0]['name']}"
                sub = sub[0].get("options") or []
            args = " ".join(f"{o['name']}={o.get('value')!r}" for o in sub)
            what = f"/{name} {args}".strip()
        elif handle.type == 3:
            what = f"button {data.get('custom_id')!r}"
        else:
            values = [
                c.get("value")
                for row in data.get("components", [])
                for c in row.get("components", [row.get("component", {})])
            ]
            what = f"modal {data.get('custom_id')!r} {values!r}"
        expired = " (answered too late)" if handle.expired else ""
        return f"{handle.user.name}: {what}{expired}"

    def fail(self, kind: type[AttackFailure], detail: str) -> None:
        """Raise ``kind`` with the step history, unless ``IGNORED`` matches the failure: a
        known bug (``KNOWN``, ``ATTACK_IGNORE``), while looking for others."""
        text = f"{kind.__name__}: {detail}"
        if any(re.search(pattern, text) for pattern in IGNORED):
            STATS.ignored += 1
            return
        history = "\n".join(f"  {o}" for o in self.history[-40:])
        raise kind(
            f"[check {kind.check}] {detail}\n"
            f"after {len(self.history)} steps; step history (last 40):\n{history}"
        )

    # -- the checks ------------------------------------------------------------------------

    async def _check(self) -> None:
        game = self.game
        guild_id = self.world.guild.id
        # 1. The ledger invariant, wallet by wallet, seat by seat, hand by hand.
        report = await invariant.check_invariant(game.db, guild_id=guild_id)
        if not report.ok:
            self.fail(LedgerInvariantBroken, f"{report}")
        self.held = sum(balance.held for balance in report.guilds)
        # 2. No hole cards shown to anybody but their owner while unshown.
        self._check_leaks()
        # 4. Nothing logged, no "Something went wrong", no request refused.
        self._check_logs()
        self._check_requests()
        # 5. Chips enter only by a new wallet, a daily bonus or a grant; engine == storage.
        await self._check_ledger_rows()
        await self._check_engine_matches_storage()
        # 7. A player removed mid-hand leaves when it ends.
        await self._check_removals()
        # 9. Every table moves on by itself where it should.
        await self._check_stalls()
        # 10. The server's chips stay under its cap (credits back: _check_refusals).
        for balance in report.guilds:
            if balance.held > self.cap:
                self.fail(CreditRefused, f"the server holds {balance.held} chips, past its cap"
                          f" of {self.cap} ({balance})")
        # 11. Tables and tournaments within the server's limits.
        await self._check_limits()
        # 12. Statistics count cash chips only.
        await self._check_stats()
        self._note_levels()

    def _note_levels(self) -> None:
        for live in self.tournaments():
            level = live.state.level
            before = self.levels_seen.get(live.tournament_id, level)
            STATS.levels += max(0, level - before)
            self.levels_seen[live.tournament_id] = level

    async def _check_limits(self) -> None:
        """No host over the per-host limit, the server not over its total, whenever a count
        grows (a manager may lower a limit below what is open: that is no new table)."""
        db = self.game.db
        guild_id = self.world.guild.id
        limits = await economy.get_settings(db, guild_id)
        counts: dict[str, int] = {}
        for host_id, count in await db.fetchall(
            "SELECT host_id, COUNT(*) FROM ("
            " SELECT host_id FROM poker_tables WHERE guild_id = ? AND status = 'open'"
            " AND tournament_id IS NULL"
            " UNION ALL SELECT host_id FROM tournaments WHERE guild_id = ?"
            " AND status IN ('registering', 'running')) AS venues GROUP BY host_id",
            (guild_id, guild_id),
        ):
            counts[f"host {int(host_id)}"] = int(count)
        row = await db.fetchone(
            "SELECT (SELECT COUNT(*) FROM poker_tables WHERE guild_id = ? AND status = 'open')"
            " + (SELECT COUNT(*) FROM tournaments WHERE guild_id = ?"
            " AND status = 'registering')",
            (guild_id, guild_id),
        )
        counts["server"] = int(row[0]) if row is not None else 0
        problems = []
        names = self.names()
        for key, count in counts.items():
            limit = limits.max_tables if key == "server" else limits.max_tables_per_host
            if count > limit and count > self.limit_counts.get(key, 0):
                who = key if key == "server" else names.get(int(key.split()[1]), key)
                problems.append(f"{who} has {count} open tables and tournaments, over the"
                                f" limit of {limit} (was {self.limit_counts.get(key, 0)})")
        self.limit_counts = counts
        if problems:
            self.fail(OverTableLimits, "; ".join(problems))

    async def _check_stats(self) -> None:
        """Every player's net agrees over the week, the month and all time, in /chips stats
        (``stats.player_stats``) and in the leaderboards (``stats.leaderboard``), and with the
        all-time totals (``player_totals``, kept by cash hands only).

        The figures are read by several queries while tables play on: a hand settled between
        two of them makes them disagree for a moment. A disagreement is read again once the
        tables are quiet, and only one that lasts is a failure."""
        for _ in range(3):
            problems = await self._stats_problems()
            if not problems:
                return
            await self._settle()
            await asyncio.sleep(0.2)
        self.fail(StatsCountTournamentChips, "net figures disagree: " + "; ".join(problems))

    async def _stats_problems(self) -> list[str]:
        db = self.game.db
        guild_id = self.world.guild.id
        played = {
            int(r[0])
            for r in await db.fetchall(
                "SELECT DISTINCT user_id FROM hand_players WHERE guild_id = ?", (guild_id,)
            )
        }
        if not played:
            return []
        totals = {
            int(r[0]): int(r[1])
            for r in await db.fetchall(
                "SELECT user_id, net FROM player_totals WHERE guild_id = ?", (guild_id,)
            )
        }
        boards = {}
        for period in stats_storage.Period:
            rows = await stats_storage.leaderboard(db, guild_id, by="net", limit=100,
                                                   period=period)
            boards[period.value] = {row.user_id: row.value for row in rows}
        names = self.names()
        problems = []
        for user_id in sorted(played):
            figures = {"totals": totals.get(user_id, 0)}
            for period in stats_storage.Period:
                figures[f"leaderboard {period.value}"] = boards[period.value].get(user_id, 0)
            try:
                for period in (stats_storage.Period.WEEK, stats_storage.Period.ALL):
                    mine = await stats_storage.player_stats(db, guild_id, user_id, period=period)
                    figures[f"stats {period.value}"] = mine.net
            except CodedError:
                continue  # no wallet, no totals: nothing to show
            if len(set(figures.values())) > 1:
                problems.append(f"{names.get(user_id, user_id)}: {figures}")
        return problems

    async def _check_removals(self) -> None:
        """Each removal is settled once the hand it was made in is over at its table."""
        names = self.names()
        live = {id(r.table.hand): r for r in self.cash_tables() if r.table.hand is not None}
        for removal in list(self.recorder.removals):
            live_table = live.get(id(removal.dealt.hand))
            if live_table is not None:
                removal.table_id = live_table.table_id
                continue
            live_table = self.cash_table(removal.table_id or -1)
            if live_table is None:  # closed: every stack went home
                self.recorder.removals.remove(removal)
                continue
            async with live_table.lock:
                if live_table.table.hand is removal.dealt.hand:
                    continue  # its result is being stored
                self.recorder.removals.remove(removal)
                seated = live_table.table.player(removal.player) is not None
                if seated and not self.recorder.rejoined(removal):
                    who = names.get(removal.player, str(removal.player))
                    self.fail(
                        KickIgnored,
                        f"table {live_table.table_id}: {who} was removed by the host during hand "
                        f"#{removal.dealt.number}, which is over, and is still seated",
                    )
                    return

    def _check_leaks(self) -> None:
        events = self.fake.events
        dealt = self.recorder.dealt
        for index in range(self.event_cursor, len(events)):
            event = events[index]
            if event.kind == "delete" or event.message.author.id != self.fake.bot_user.id:
                continue
            shown = self.shown_at.get(index, ())
            leaks = find_leaks(self.fake, event.message, dealt, shown)
            if leaks:
                self.event_cursor = index + 1
                names = self.names()
                self.fail(HoleCardsLeaked, "\n".join(leak.describe(names) for leak in leaks))
        self.event_cursor = len(events)
        lines = self.trap.card_lines[self.log_line_cursor :]
        self.log_line_cursor += len(lines)
        for line in lines:
            found = find_log_leaks(line, dealt, self.names())
            if found:
                self.fail(HoleCardsLeaked, "\n".join(found))

    BAD_REPLIES = ("Something went wrong",)

    def _check_logs(self) -> None:
        records = self.trap.records[self.log_cursor :]
        self.log_cursor = len(self.trap.records)
        if records:
            self.fail(ErrorLogged, "\n".join(LogTrap.describe(r) for r in records[:5]))
        for handle in self.fake.interactions[-64:]:
            callback = handle.callback
            if callback is None or getattr(handle, "_attack_seen", False):
                continue
            handle._attack_seen = True  # type: ignore[attr-defined]
            text = callback.content
            if text in GENERIC or any(bad in text for bad in self.BAD_REPLIES):
                self.fail(ErrorLogged, f"{self._describe_handle(handle)} was told {text!r}")

    def _check_requests(self) -> None:
        requests = self.fake.requests[self.request_cursor :]
        self.request_cursor = len(self.fake.requests)
        closed_dms = {
            channel.id
            for channel in self.fake.channels.values()
            if channel.recipient is not None and not channel.recipient.dms_open
        }
        refused = []
        for request in requests:
            if request.status < 400 or request.status == 429:
                continue
            if request.status == 403 and any(f"/channels/{c}/" in request.path + "/"
                                             for c in closed_dms):
                continue  # a DM to a player who closed his DMs: expected, and told
            refused.append(f"{request.method} {request.path} -> {request.status}")
        if refused:
            self.fail(RequestRefused, "Discord refused: " + "; ".join(refused[:5]))

    async def _check_ledger_rows(self) -> None:
        db = self.game.db
        guild_id = self.world.guild.id
        rows = await db.fetchall(
            "SELECT entry_id, amount, source, dest, reason, user_id, actor_id FROM ledger"
            " WHERE guild_id = ? AND entry_id > ? ORDER BY entry_id",
            (guild_id, self.ledger_cursor),
        )
        starting_after = await self._starting_balance(self.game)
        allowed = list(self.allowed_mints)
        problems = []
        for entry_id, amount, source, dest, reason, user_id, actor_id in rows:
            self.ledger_cursor = max(self.ledger_cursor, int(entry_id))
            if dest == "burn":
                problems.append(f"entry {entry_id}: {amount} burned ({reason}) by no command")
            if source != "mint":
                continue
            if reason == "wallet_open":
                if user_id in self.wallets:
                    problems.append(f"entry {entry_id}: a second starting balance for {user_id}")
                elif amount not in (self.starting_before, starting_after) and not (
                    0 < amount < max(self.starting_before, starting_after)
                    and self.held >= self.cap
                ):  # a server at its cap opens a wallet with the room left
                    problems.append(
                        f"entry {entry_id}: a new wallet got {amount}, the starting balance"
                        f" is {starting_after}"
                    )
                self.wallets.add(int(user_id))
                continue
            match = next(
                (
                    m
                    for m in allowed
                    if m[0] == reason and m[1] == user_id and m[2] in (None, amount)
                    and m[3] in (None, actor_id)
                ),
                None,
            )
            if match is None:
                problems.append(
                    f"entry {entry_id}: {amount} minted ({reason}) for {user_id} by {actor_id},"
                    f" which no command of the step allowed ({allowed})"
                )
            else:
                allowed.remove(match)
        wallets = await db.fetchall(
            "SELECT user_id FROM wallets WHERE guild_id = ?", (guild_id,)
        )
        self.wallets = {int(r[0]) for r in wallets}
        self.starting_balance = starting_after
        if problems:
            self.fail(ChipsOutsideLedger, "\n".join(problems))

    async def _check_engine_matches_storage(self) -> None:
        for live_table in self.cash_tables():
            if live_table.closed:
                continue
            async with live_table.lock:
                if live_table.closed:
                    continue
                info = await tables.get_table(self.game.db, live_table.table_id)
                engine = {
                    int(seat.player_id): seat.stack + seat.pending_chips
                    for seat in live_table.table.seats()
                }
                stored = {seat.user_id: seat.chips for seat in info.seats}
                if engine != stored:
                    self.fail(
                        EngineStorageDrift,
                        f"table {live_table.table_id}: the engine seats {self.by_name(engine)},"
                        f" storage {self.by_name(stored)}",
                    )

    def by_name(self, amounts: dict[int, int]) -> dict[str, int]:
        names = self.names()
        return {names.get(k, str(k)): v for k, v in amounts.items()}

    # -- interactions ----------------------------------------------------------------------

    async def slash(
        self, who: FakeUser, channel: FakeChannel, name: str, sub: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> InteractionHandle:
        return await self.fake.slash(who, channel, name, subcommand=sub, options=options or {})

    async def wait_answer(self, handle: InteractionHandle) -> None:
        with contextlib.suppress(TimeoutError):
            await self.fake.wait_for(
                lambda: handle.callback is not None or handle.expired,
                timeout=self.fake.interaction_deadline + 0.75,
                what="an answer",
            )

    # -- rules -----------------------------------------------------------------------------
    #
    # Every rule draws the same values with the same strategies whatever the state (an index
    # is taken modulo the list it picks from, an amount "in range" as a fraction of the range):
    # the bot runs on its own clock, so the state a replay meets may differ a little, and
    # hypothesis must still be able to replay and shrink the choices.

    @staticmethod
    def pick(data: st.DataObject, items: Sequence[T], label: str) -> T | None:
        index = data.draw(INDEX, label=label)
        return items[index % len(items)] if items else None

    def pick_member(self, data: st.DataObject, label: str = "user") -> FakeUser:
        user = self.pick(data, self.members, label)
        assert user is not None
        return user

    def pick_target(self, data: st.DataObject, label: str = "target user") -> FakeUser:
        user = self.pick(data, [*self.members, self.world.outsider, self.fake.bot_user], label)
        assert user is not None
        return user

    def pick_channel(self, data: st.DataObject) -> FakeChannel:
        poker, lobby, readonly = (self.world.channel(n) for n in ("poker", "lobby", "readonly"))
        channel = self.pick(data, [poker, poker, poker, poker, lobby, lobby, readonly], "channel")
        assert channel is not None
        return channel

    def pick_actor(
        self, data: st.DataObject, live_table: CashTable | None, label: str = "user"
    ) -> FakeUser:
        """Half the time the player to act (when there is one), else any member."""
        to_act = data.draw(st.booleans(), label=f"{label}: the player to act")
        member = self.pick_member(data, label)
        turn = self.to_act(live_table) if live_table is not None else None
        return turn if to_act and turn is not None else member

    HOST_COMMANDS = frozenset(
        {"pause", "resume", "settings", "kick", "void", "close", "bomb", "ledger"}
    )

    def pick_host(self, data: st.DataObject, live_table: CashTable | None, user: FakeUser,
                  sub: str) -> FakeUser:
        """For a host's command, usually the host or a manager (else nothing gets past the
        permission check)."""
        who = data.draw(st.sampled_from(["host", "manager", "anybody"]), label="as")
        if sub not in self.HOST_COMMANDS:
            return user
        if who == "host" and live_table is not None and live_table.host_id in self.fake.users:
            return self.fake.users[live_table.host_id]
        if who == "manager":
            return self.world.members[3]  # dave, Manage Server through a role
        return user

    def pick_table(self, data: st.DataObject, label: str = "table") -> CashTable | None:
        return self.pick(data, self.cash_tables(), label)

    def pick_turn(self, data: st.DataObject) -> tuple[LiveTable[Any], FakeUser] | None:
        return self.pick(data, self.turns(), "turn")

    @staticmethod
    def in_range(low: int, high: int, percent: int) -> int:
        return low + (high - low) * percent // 100

    @initialize(data=st.data())
    def bootstrap(self, data: st.DataObject) -> None:
        """Usually a table in #poker with a few players and dealing started, so that the
        steps meet hands in progress early."""
        self.deck_plan = ["random", *data.draw(
            st.lists(st.sampled_from(["random", "random", "board plays", "chop"]),
                     min_size=0, max_size=5),
            label="deck plan",
        )]
        self.rng.seed(data.draw(st.integers(0, 2**32), label="shuffle seed"))
        cap = data.draw(st.sampled_from([None, LOW_CAP, LOW_CAP]), label="chip cap")
        if cap is not None:
            self.lower_cap(cap)
        tournament = data.draw(st.one_of(st.none(), st.none(), PLAIN_TOURNAMENT),
                               label="a tournament too")
        entrants = data.draw(
            st.lists(st.integers(0, len(self.members) - 1), min_size=2, max_size=6, unique=True),
            label="entrants",
        )
        if tournament is not None:
            # Often a tournament plays beside the cash table from the start (the steps then
            # meet its levels, its hands and its prizes early).
            organiser = self.world.members[3]
            players = [self.members[i] for i in entrants]
            options = {**tournament, "timer": tournament.get("timer", 1)}
            self.step(
                f"bootstrap: {organiser.name} in #tourney: /tournament create "
                f"{self.show(options)}; {', '.join(u.name for u in players)} register; "
                "he starts it",
                lambda: self._open_tournament(organiser, self.world.channel("tourney"),
                                              options, players, "start"),
            )
        if data.draw(st.integers(0, 9), label="no set-up if 9") == 9:
            return
        host = self.pick_member(data, "host")
        blinds = data.draw(
            st.sampled_from([(5, 10), (1, 2), (25, 50), (50, 100), (1, 1), (7, 13)]),
            label="blinds",
        )
        timer = data.draw(st.sampled_from([None, None, 1, 2]), label="timer")
        count = data.draw(st.sampled_from([2, 2, 3, 3, 4, 5, 6, 8, 10, 10]), label="players")
        order = data.draw(st.permutations(range(len(self.members))), label="seating order")
        players = [self.members[i] for i in order[:count]]
        # Mostly different stacks: all in, they make side pots.
        low, high = 20 * blinds[1], 100 * blinds[1]
        buy_ins = [
            None
            if percent is None
            else min(high, self.in_range(low, high, percent) + n)
            for n, percent in enumerate(
                data.draw(st.one_of(st.none(), st.integers(0, 100)), label=f"buy-in % {u.name}")
                for u in players
            )
        ]
        starter = self.pick(data, [host, *players], "starter")
        assert starter is not None
        extras = data.draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "run_it_twice": st.sampled_from(["ask", "ask", "always", "off"]),
                    "straddle": st.sampled_from(["utg", "button", "off"]),
                    "new_players": st.sampled_from(["wait_for_bb", "post_bb"]),
                    "bomb_every": st.sampled_from([2, 3]),
                },
            ),
            label="home-game options",
        )
        shove = data.draw(st.sampled_from(["play", "play", "shove"]), label="first hand") == "shove"
        poker = self.world.channel("poker")

        async def action() -> None:
            options: dict[str, Any] = {
                "small_blind": blinds[0], "big_blind": blinds[1], **extras
            }
            if timer is not None:
                options["timer"] = timer
            await self.wait_answer(await self.slash(host, poker, "poker", "create", options))
            for user, buy_in in zip(players, buy_ins, strict=True):
                extra = {} if buy_in is None else {"buy_in": buy_in}
                await self.wait_answer(await self.slash(user, poker, "poker", "join", extra))
            await self.wait_answer(await self.slash(starter, poker, "poker", "start"))
            await asyncio.sleep(0.1)
            live_table = self.cash_table_in(poker)
            if shove and live_table is not None:
                await self._shove(live_table, by_button=False)

        names = ", ".join(f"{u.name}:{b}" for u, b in zip(players, buy_ins, strict=True))
        self.step(
            f"bootstrap: {host.name} creates #poker blinds {blinds} timer {timer} "
            f"{self.show(extras)}; "
            f"{names} join; {starter.name} starts" + ("; everybody goes all in" if shove else ""),
            action,
        )

    # /poker ...

    @rule(data=st.data())
    def poker_command(self, data: st.DataObject) -> None:
        """Any /poker subcommand, from any member, in any channel, with odd options."""
        channel = self.pick_channel(data)
        live_table = self.cash_table_in(channel)
        user = self.pick_actor(data, live_table)
        sub = data.draw(st.sampled_from(SUBCOMMANDS), label="subcommand")
        user = self.pick_host(data, live_table, user, sub)
        options = self.draw_poker_options(data, sub, channel)
        name, command = LOOKED_UP.get(sub, ("poker", sub))
        self.step(
            f"{user.name} in #{channel.name}: /{name} {command} {self.show(options)}",
            lambda: self._send(user, channel, name, command, options),
        )

    def draw_poker_options(
        self, data: st.DataObject, sub: str, channel: FakeChannel
    ) -> dict[str, Any]:
        live_table = self.cash_table_in(channel)
        if sub == "create":
            return data.draw(st.one_of(st.just({}), TABLE_OPTIONS), label="options")
        if sub == "settings":
            return data.draw(TABLE_OPTIONS, label="options")
        if sub == "join":
            kinds = st.sampled_from(["none", "odd", "range", "low", "high"])
            kind = data.draw(kinds, label="buy_in")
            odd = data.draw(AMOUNT, label="odd buy_in")
            percent = data.draw(st.integers(0, 100), label="buy_in percent")
            seat = data.draw(maybe(st.one_of(st.integers(-1, 12), st.sampled_from(ODD_INTS))),
                             label="seat")
            low, high = live_table.table.options.buy_in_range if live_table else (100, 1000)
            buy_in = {
                "none": None, "odd": odd, "range": self.in_range(low, high, percent),
                "low": low, "high": high,
            }[kind]
            return options_of({"buy_in": buy_in, "seat": seat})
        if sub == "rebuy":
            return {"amount": data.draw(st.one_of(AMOUNT, st.integers(1, 2000)), label="amount")}
        if sub in ("history", "verify"):
            back = data.draw(st.integers(-1, 5), label="hands back")
            odd = data.draw(st.sampled_from(ODD_INTS), label="odd hand")
            use_odd = data.draw(st.integers(0, 4), label="odd if 0") == 0
            none = sub == "history" and data.draw(st.booleans(), label="no hand")
            last = live_table.table.hand_number if live_table else 1
            hand = odd if use_odd else last - back
            return {} if none else {"hand": hand}
        if sub == "kick":
            return {"user": self.pick_target(data)}
        if sub == "bomb":
            percent = data.draw(st.integers(0, 100), label="bomb, percent of the max buy-in")
            odd_bomb = data.draw(st.one_of(st.none(), AMOUNT), label="odd bomb")
            high = live_table.table.options.buy_in_range[1] if live_table else 1000
            return {"amount": self.in_range(1, high, percent) if odd_bomb is None else odd_bomb}
        if sub == "sitout":
            return options_of({"next_big_blind": data.draw(maybe(st.booleans()), label="bb")})
        if sub == "ledger":
            return options_of({"reset": data.draw(maybe(st.booleans()), label="reset")})
        if sub == "rules":
            topic = data.draw(maybe(st.sampled_from(RULE_TOPICS)), label="topic")
            return options_of({"topic": topic})
        return {}

    @staticmethod
    def show(options: dict[str, Any]) -> str:
        parts = []
        for key, value in options.items():
            shown = value.name if isinstance(value, FakeUser) else repr(value)
            parts.append(f"{key}={shown}")
        return " ".join(parts)

    async def _send(
        self, user: FakeUser, channel: FakeChannel, name: str, sub: str | None,
        options: dict[str, Any],
    ) -> None:
        self.note_mint(user, name, sub, options)
        handle = await self.slash(user, channel, name, sub, options)
        await self.wait_answer(handle)

    def note_mint(
        self, user: FakeUser, name: str, sub: str | None, options: dict[str, Any]
    ) -> None:
        """What chips the command may mint (check 5)."""
        if name != "chips":
            return
        if sub == "daily":
            self.allowed_mints.append(("daily", user.id, None, None))
        elif sub == "grant" and self.world.is_manager(user):
            target = options.get("user")
            amount = options.get("amount")
            if isinstance(target, FakeUser) and isinstance(amount, int | float):
                self.allowed_mints.append(("grant", target.id, int(amount), user.id))

    @rule(data=st.data())
    def change_stakes(self, data: st.DataObject) -> None:
        """The host (or a manager) changes the blinds, to anything from tiny to absurd."""
        channel = self.pick_channel(data)
        live_table = self.cash_table_in(channel)
        user = self.pick_actor(data, live_table)
        user = self.pick_host(data, live_table, user, "settings")
        big = data.draw(st.one_of(st.sampled_from(HUGE), AMOUNT), label="big_blind")
        small = data.draw(maybe(st.one_of(st.integers(1, 100), st.sampled_from(HUGE))),
                          label="small_blind")
        options = options_of({"big_blind": big, "small_blind": small})
        self.step(
            f"{user.name} in #{channel.name}: /poker settings {self.show(options)}",
            lambda: self._send(user, channel, "poker", "settings", options),
        )

    @rule(data=st.data())
    def look_back(self, data: st.DataObject) -> None:
        """Anybody asks for the history or the shuffle check of a recent hand."""
        channel = self.pick_channel(data)
        user = self.pick_member(data)
        sub = data.draw(st.sampled_from(["verify", "history"]), label="subcommand")
        back = data.draw(st.integers(0, 3), label="hands back")
        live_table = self.cash_table_in(channel)
        last = live_table.table.hand_number if live_table is not None else 1
        options = {"hand": max(1, last - back)}
        name, command = LOOKED_UP[sub]
        self.step(
            f"{user.name} in #{channel.name}: /{name} {command} {self.show(options)}",
            lambda: self._send(user, channel, name, command, options),
        )

    @rule(data=st.data())
    def kick_mid_hand(self, data: st.DataObject) -> None:
        """The host (or a manager, or anybody) kicks a player of the hand being played, and
        the player tries to play on: a button of the table message, or a typed action."""
        live_table = self.pick_table(data)
        victim_index = data.draw(INDEX, label="victim")
        kicker = self.pick_member(data, "kicker")
        kicker = self.pick_host(data, live_table, kicker, "kick")
        button = data.draw(INDEX, label="victim's button")
        typed = data.draw(maybe(st.sampled_from(PLAY_ACTIONS)), label="victim's command")
        amount = data.draw(AMOUNT, label="amount")
        if live_table is None or live_table.hand is None:
            return self.nothing("kick: no hand being played")
        players = live_table.table.hand_players
        victim = self.fake.users[int(players[victim_index % len(players)])]
        channel = self.channel_of(live_table)

        async def action() -> None:
            await self.wait_answer(
                await self.slash(kicker, channel, "poker", "kick", {"user": victim})
            )
            await live_table.messenger.flush(5)
            message = self.current_message(live_table)
            if typed is None and message is not None and message.custom_ids():
                ids = message.custom_ids()
                await self._press(victim, message, ids[button % len(ids)])
            elif typed is not None:
                options = {"amount": amount} if typed == "bet" else {"to": amount} if (
                    typed == "raise") else {}
                await self._send(victim, channel, typed, None, options)

        self.step(
            f"{kicker.name} kicks {victim.name} mid-hand, who then "
            + (f"types /{typed}" if typed else "presses a button"),
            action,
        )
        return None

    # /fold /check /call /bet /raise /allin

    @rule(data=st.data())
    def action_command(self, data: st.DataObject) -> None:
        """The player to act checking or calling (the simplest case, so that the simplest
        runs play hands), else anybody typing any action with odd amounts."""
        passive = data.draw(st.sampled_from(["passive", "odd"]), label="mode") == "passive"
        turn = self.pick_turn(data)
        channel = self.pick_channel(data)
        user = self.pick_actor(data, self.cash_table_in(channel))
        name = data.draw(st.sampled_from(PLAY_ACTIONS), label="command")
        amount = data.draw(AMOUNT, label="amount")
        if passive and turn is not None:
            live_table, user = turn
            legal = live_table.hand.legal() if live_table.hand is not None else None
            channel = self.channel_of(live_table)
            name = "check" if legal is not None and legal.can_check else "call"
        options: dict[str, Any] = {}
        if name == "bet":
            options["amount"] = amount
        elif name == "raise":
            options["to"] = amount
        self.step(
            f"{user.name} in #{channel.name}: /{name} {self.show(options)}",
            lambda: self._send(user, channel, name, None, options),
        )

    @rule(data=st.data())
    def play_in_turn(self, data: st.DataObject) -> None:
        """The player to act plays something plausible, typed or clicked (hands move on)."""
        turn = self.pick_turn(data)
        choice = data.draw(INDEX, label="action")
        percent = data.draw(st.integers(0, 100), label="raise to, percent of the range")
        by_button = data.draw(st.booleans(), label="by button")
        button = data.draw(INDEX, label="raise button")
        if turn is None:
            return self.nothing("play in turn: nobody to act")
        live_table, user = turn
        hand = live_table.hand
        legal = hand.legal() if hand is not None else None
        if legal is None:
            return self.nothing("play in turn: nobody to act")
        choices = ["check"] * 3 if legal.can_check else ["call"] * 3
        choices += ["fold", "allin"]
        if legal.can_raise:
            choices += ["raise", "raise"]
        kind = choices[choice % len(choices)]
        amount = self.in_range(legal.min_raise_to, legal.max_raise_to, percent)
        message = self.current_message(live_table)
        channel = self.channel_of(live_table)
        if by_button and message is not None:
            targets = buttons_for(message, kind)
            if targets:
                custom = targets[button % len(targets)]
            else:  # no quick raise to that amount: the id such a button would have
                custom = custom_id(live_table.table_id, kind, amount, self.ref_of(live_table))
            self.step(
                f"{user.name} (to act) presses {custom!r} on the table message",
                lambda: self._press(user, message, custom),
            )
            return None
        if kind == "raise":
            name = "bet" if legal.is_bet else "raise"
            options = {"amount": amount} if legal.is_bet else {"to": amount}
        else:
            name, options = kind, {}
        self.step(
            f"{user.name} (to act) in #{channel.name}: /{name} {self.show(options)}",
            lambda: self._send(user, channel, name, None, options),
        )
        return None

    def nothing(self, why: str) -> None:
        self.history.append(Outcome(f"#{len(self.history) + 1} ({why})"))

    async def _press(self, user: FakeUser, message: FakeMessage, custom_id: str) -> None:
        handle = await press(self.fake, user, message, custom_id)
        await self.wait_answer(handle)

    # /chips ...

    @rule(data=st.data())
    def chips_command(self, data: st.DataObject) -> None:
        user = self.pick_member(data)
        channel = self.pick_channel(data)
        sub = data.draw(
            st.sampled_from(["balance", "daily", "leaderboard", "stats", "grant", "settings"]),
            label="subcommand",
        )
        about = data.draw(st.booleans(), label="about someone")
        target = self.pick_target(data)
        by = data.draw(maybe(st.sampled_from(BOARDS)), label="by")
        period = data.draw(maybe(st.sampled_from(["week", "month", "all", "", "year"])),
                           label="period")
        amount = data.draw(AMOUNT, label="amount")
        settings = data.draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "starting_balance": AMOUNT,
                    "daily_amount": AMOUNT,
                    "daily_hours": st.sampled_from([0, 1, 24, 8784, 8785, -1, 2**63]),
                    "max_tables": st.sampled_from([1, 2, 3, 10, 0, 1001]),
                    "max_tables_per_host": st.sampled_from([1, 1, 2, 3, 0]),
                    "idle_minutes": st.sampled_from([0, 1, 30, -1]),
                },
            ),
            label="settings",
        )
        options: dict[str, Any] = {}
        if sub in ("balance", "stats") and about:
            options["user"] = target
        if sub == "stats":
            options.update(options_of({"period": period}))
        elif sub == "leaderboard":
            options = options_of({"by": by, "period": period})
        elif sub == "grant":
            options = {"user": target, "amount": amount}
        elif sub == "settings":
            options = settings
        self.step(
            f"{user.name} in #{channel.name}: /chips {sub} {self.show(options)}",
            lambda: self._send(user, channel, "chips", sub, options),
        )

    # buttons

    def table_messages(self) -> list[tuple[CashTable, FakeMessage]]:
        return [
            (live_table, message)
            for live_table in self.cash_tables()
            if (message := self.current_message(live_table)) is not None and message.custom_ids()
        ]

    @rule(data=st.data())
    def press_button(self, data: st.DataObject) -> None:
        """Anybody presses a button of a table's current message."""
        found = self.pick(data, self.table_messages(), "table")
        user = self.pick_actor(data, found[0] if found else None)
        button = data.draw(INDEX, label="button")
        if found is None:
            return self.nothing("press: no table message with buttons")
        message = found[1]
        custom = message.custom_ids()[button % len(message.custom_ids())]
        self.step(
            f"{user.name} presses {custom!r} on the current table message",
            lambda: self._press(user, message, custom),
        )
        return None

    def old_versions(self) -> list[FakeMessage]:
        """Every version of every message with buttons the bot ever posted in a guild channel,
        the current ones included."""
        guild_channels = {c.id for c in self.guild_channels()}
        return [
            e.message
            for e in self.fake.events
            if e.kind in ("create", "edit")
            and e.message.channel_id in guild_channels
            and not e.message.ephemeral
            and e.message.custom_ids()
        ]

    @rule(data=st.data())
    def press_stale_button(self, data: st.DataObject) -> None:
        """A button as an older version of a message showed it (a client that did not see the
        edit, a previous hand's message, a result's Show button)."""
        message = self.pick(data, self.old_versions()[-30:][::-1], "message version")
        user = self.pick_actor(data, self.cash_table_in(self.world.channel("poker")))
        button = data.draw(INDEX, label="button")
        if message is None:
            return self.nothing("stale press: no message with buttons yet")
        custom = message.custom_ids()[button % len(message.custom_ids())]
        self.step(
            f"{user.name} presses {custom!r} on message {message.id} v{message.version}",
            lambda: self._press(user, message, custom),
        )
        return None

    @rule(data=st.data())
    def double_press(self, data: st.DataObject) -> None:
        """The same press twice at once (a double click)."""
        found = self.pick(data, self.table_messages(), "table")
        user = self.pick_actor(data, found[0] if found else None)
        button = data.draw(INDEX, label="button")
        main = data.draw(st.booleans(), label="the player to act's check or call")
        if found is None:
            return self.nothing("double press: no table message with buttons")
        live_table, message = found
        custom = message.custom_ids()[button % len(message.custom_ids())]
        turn = self.to_act(live_table)
        if main and turn is not None:
            user = turn
            passive = buttons_for(message, "check") or buttons_for(message, "call")
            if passive:
                custom = passive[0]

        async def action() -> None:
            dealt_before = len(self.recorder.dealt)
            hand = live_table.table.hand
            before = len(hand.actions) if hand is not None else 0
            street = hand.street.value if hand is not None else None
            toggled_before = toggle_before(live_table, user.id, custom)
            handles = await asyncio.gather(
                press(self.fake, user, message, custom), press(self.fake, user, message, custom)
            )
            for handle in handles:
                await self.wait_answer(handle)
            await self._settle()
            self.check_toggled_once(user, custom, handles, live_table, toggled_before)
            acted = self.actions_by(user.id, hand, before, dealt_before)
            if len(acted) > 1:
                self.fail(
                    DoubleAction,
                    f"{user.name} double-pressed {custom!r} once and it acted "
                    f"{len(acted)} times: {acted} (street before: {street}, after: "
                    f"{hand.street.value if hand is not None else None}); answers: "
                    f"{[reply_text(h) for h in handles]}",
                )

        self.step(f"{user.name} double-presses {custom!r} on the current table message", action)
        return None

    def check_toggled_once(
        self,
        user: FakeUser,
        custom: str,
        handles: Sequence[InteractionHandle],
        live_table: CashTable,
        before: object,
    ) -> None:
        """A toggle (a pre-selection, asking to straddle) pressed twice at once: taking both
        presses would turn it on and straight back off, the opposite of what the player
        clicked for. When both were taken, the toggle must have changed, once."""
        if button_action(custom) not in TOGGLES or len(handles) < 2 or before is BURST:
            return
        taken = [h for h in handles if h.callback is not None and h.id not in self.trap.refusals]
        if len(taken) > 1 and toggle_state(live_table, user.id, custom) == before:
            self.fail(
                DoubleAction,
                f"{user.name} double-clicked the toggle {custom!r}, both presses were taken "
                f"and it is back where it was ({before!r}): "
                f"{[reply_text(h) for h in taken]}",
            )

    def actions_by(
        self, user_id: int, hand: Any, before: int, dealt_before: int
    ) -> list[str]:
        """The decisions ``user_id`` made since (hand, before) and in hands dealt since."""
        decisions = {
            ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET,
            ActionKind.RAISE, ActionKind.ALL_IN,
        }
        spans = []
        if hand is not None:
            record = next((d for d in self.recorder.dealt if d.hand is hand), None)
            if record is not None:
                spans.append((record, before))
        spans += [(d, 0) for d in self.recorder.dealt[dealt_before:]]
        found: list[str] = []
        for record, start in spans:
            if user_id not in record.players:
                continue
            index = record.players.index(user_id)
            for action in record.hand.actions[start:]:
                if action.player == index and action.kind in decisions:
                    found.append(f"hand #{record.number}: {action.kind.value} {action.amount}")
        return found

    @rule(data=st.data())
    def forged_press(self, data: st.DataObject) -> None:
        """A press with a custom id the bot never put there: other tables, unknown actions,
        huge numbers; on any message the user can see."""
        guild_channels = {c.id for c in self.guild_channels()}
        versions = [
            m for m in (e.message for e in self.fake.events[-200:])
            if m.channel_id in guild_channels and not m.deleted
        ][::-1]
        message = self.pick(data, versions, "message")
        user = self.pick_member(data)
        table_ids = sorted({r.table_id for r in self.cash_tables()} | {1, 2, 3})
        table = data.draw(st.sampled_from([0, 1, 2, 3, 4, 2**63]), label="table id")
        action = data.draw(st.sampled_from(BUTTON_ACTIONS), label="action")
        arg = data.draw(maybe(st.sampled_from([a for a in ODD_INTS if a >= 0])), label="arg")
        which_ref = data.draw(st.sampled_from(REFS), label="decision named")
        # An id outside the buttons' template reaches no handler: the client answers it as
        # out of date after 1.5 s (bot.client.ORPHAN_AFTER). One press in eight, so that the
        # steps stay quick.
        broken = data.draw(
            st.sampled_from(["", "", "", "", "", "", "", "table", "ref", "action", "arg"]),
            label="outside the template",
        )
        if message is None:
            return self.nothing("forged press: no message yet")
        if message.visible_to is not None and message.visible_to != user.id:
            user = self.fake.users[message.visible_to]
        if table < 4:
            table = table_ids[table % len(table_ids)]
        live_table = self.cash_table(table)
        ref = self.forged_ref(live_table, which_ref)
        custom = f"poker:{table}:{action}" + ref + ("" if arg is None else f":{arg}")
        custom = {
            "": custom,
            "table": f"poker:{10**30}:{action}{ref}",
            "ref": f"poker:{table}:{action}@{10**20}.{10**7}",
            "action": f"poker:{table}:{action.upper()}{ref}",
            "arg": f"poker:{table}:{action}{ref}:{10**30}",
        }[broken]
        self.step(
            f"{user.name} presses forged {custom!r} on message {message.id}",
            lambda: self._press(user, message, custom),
        )
        return None

    @rule(data=st.data())
    def press_extra(self, data: st.DataObject) -> None:
        """A home-game button (straddle, run it twice, the rabbit, show) pressed by whom it is
        meant for, by another player, or by anybody; once, twice at once, or from an older
        version of its message."""
        guild_channels = {c.id for c in self.guild_channels()}
        offers = [
            (e.message, cid)
            for e in self.fake.events[-300:]
            if e.kind in ("create", "edit") and e.message.channel_id in guild_channels
            for cid in e.message.custom_ids()
            if button_action(cid) in EXTRA_ACTIONS
        ][::-1]
        offer = self.pick(data, offers, "button")
        who = data.draw(st.sampled_from(["meant", "meant", "player", "anybody"]), label="who")
        index = data.draw(INDEX, label="user")
        twice = data.draw(st.booleans(), label="twice at once")
        forged = data.draw(st.sampled_from(sorted(EXTRA_ACTIONS)), label="forged extra")
        which_ref = data.draw(st.sampled_from(REFS), label="decision named")
        if offer is None:
            # None offered yet (a table without extras): the id one would have, on the table
            # message, naming some decision.
            found = self.table_messages()
            if not found:
                return self.nothing("extra press: no table message")
            runner_now, current = found[0]
            ref = self.forged_ref(runner_now, which_ref)
            offer = (current, f"poker:{runner_now.table_id}:{forged}{ref}")
        message, custom = offer
        live_table = self.cash_table(int(custom.split(":")[1]))
        candidates = self.members
        if live_table is not None and who != "anybody":
            candidates = self.meant_for(live_table, custom) if who == "meant" else [
                u for u in self.members if live_table.table.player(u.id) is not None
            ] or self.members
        user = candidates[index % len(candidates)]

        async def action() -> None:
            before = toggle_before(live_table, user.id, custom) if live_table is not None else None
            presses = [press(self.fake, user, message, custom)]
            if twice:
                presses.append(press(self.fake, user, message, custom))
            handles = await asyncio.gather(*presses)
            for handle in handles:
                await self.wait_answer(handle)
            if live_table is not None:
                self.check_toggled_once(user, custom, handles, live_table, before)

        self.step(
            f"{user.name} ({who}) presses {custom!r} on message {message.id} v{message.version}"
            + (" twice at once" if twice else ""),
            action,
        )
        return None

    def meant_for(self, live_table: CashTable, custom: str) -> list[FakeUser]:
        """Who the button is for now: the all-in players asked to run it twice, the players
        of the hand that just ended (rabbit, show), the seated players (straddles)."""
        action = button_action(custom)
        table = live_table.table
        hand = live_table.hand
        if action in ("run_twice", "run_once") and hand is not None:
            ids = [live_table.player_of(i) for i in hand.run_choice_players]
        elif action in ("rabbit", "show"):
            ids = [int(p) for p in table.hand_players]
        else:
            ids = [int(seat.player_id) for seat in table.seats()]
        users = [self.fake.users[i] for i in ids if i in self.fake.users]
        return users or self.members

    def ref_of(self, live_table: LiveTable[Any]) -> tuple[int, int]:
        """(hand, decision) a button drawn now would name."""
        hand = live_table.hand
        return live_table.table.hand_number, decision_number(hand) if hand is not None else 0

    def forged_ref(self, live_table: LiveTable[Any] | None, which: str) -> str:
        hand, decision = self.ref_of(live_table) if live_table is not None else (1, 0)
        return {
            "none": "",
            "current": f"@{hand}.{decision}",
            "last decision": f"@{hand}.{max(0, decision - 1)}",
            "next decision": f"@{hand}.{decision + 1}",
            "last hand": f"@{max(0, hand - 1)}.0",
            "next hand": f"@{hand + 1}.0",
            "huge": f"@{10**19 - 1}.999999",
        }[which]

    @rule(data=st.data())
    def raise_form(self, data: st.DataObject) -> None:
        """The player to act opens the raise form and types something odd; or submits it twice
        at once; or somebody else submits his form."""
        turn = self.pick_turn(data)
        text = data.draw(
            st.one_of(
                st.sampled_from(RAISE_TEXTS),
                st.sampled_from(DIGIT_LOOKALIKES),
                st.text(max_size=18),
                st.integers(-10, 10**6).map(str),
            ),
            label="typed",
        )
        mode = data.draw(st.sampled_from(["once", "twice at once", "by another"]), label="mode")
        other = self.pick_member(data, "other user")
        if turn is None:
            return self.nothing("raise form: nobody to act")
        live_table, user = turn
        message = self.current_message(live_table)
        forms = buttons_for(message, "raise_modal") if message is not None else []
        if message is None or not forms:
            return self.nothing("raise form: no raise button")

        async def action() -> None:
            opener = await press(self.fake, user, message, forms[0])
            await self.wait_answer(opener)
            if opener.callback is None or not opener.callback.is_modal:
                return
            modal_id = opener.callback.custom_id
            assert modal_id is not None
            if mode == "once":
                handle = await self.fake.submit_modal(user, modal_id, {"amount": text})
                await self.wait_answer(handle)
            elif mode == "twice at once":
                handles = await asyncio.gather(
                    self.fake.submit_modal(user, modal_id, {"amount": text}),
                    self.fake.submit_modal(user, modal_id, {"amount": text}),
                )
                for handle in handles:
                    await self.wait_answer(handle)
            else:
                channel = self.channel_of(live_table)
                handle = await submit_raw_modal(self.fake, other, channel, modal_id, text, message)
                await self.wait_answer(handle)

        who = f" by {other.name}" if mode == "by another" else ""
        self.step(
            f"{user.name} opens the raise form and submits {text!r} ({mode}{who})", action
        )
        return None

    # concurrency and time

    @rule(data=st.data())
    def burst(self, data: st.DataObject) -> None:
        """Several interactions at once, from several users."""
        count = data.draw(st.integers(2, 4), label="how many")
        plans = [self.draw_burst_item(data, n) for n in range(count)]
        ready = [p for p in plans if p is not None]
        if not ready:
            return self.nothing("burst: nothing to press")

        async def action() -> None:
            handles = await asyncio.gather(*(make() for _, make in ready))
            for handle in handles:
                await self.wait_answer(handle)

        self.step("at once: " + "; ".join(d for d, _ in ready), action)
        return None

    def draw_burst_item(
        self, data: st.DataObject, n: int
    ) -> tuple[str, Callable[[], Awaitable[InteractionHandle]]] | None:
        kind = data.draw(
            st.sampled_from(["act", "act", "button", "poker", "chips"]), label=f"kind {n}"
        )
        poker = self.world.channel("poker")
        live_table = self.cash_table_in(poker)
        user = self.pick_actor(data, live_table, f"user {n}")
        if kind == "act":
            name = data.draw(st.sampled_from(PLAY_ACTIONS), label=f"command {n}")
            amount = data.draw(AMOUNT, label=f"amount {n}")
            options: dict[str, Any] = {"amount": amount} if name == "bet" else {"to": amount} if (
                name == "raise") else {}
            return (
                f"{user.name} /{name} {self.show(options)}",
                lambda: self.slash(user, poker, name, None, options),
            )
        if kind == "button":
            found = self.pick(data, self.table_messages(), f"table {n}")
            button = data.draw(INDEX, label=f"button {n}")
            if found is None:
                return None
            message = found[1]
            custom = message.custom_ids()[button % len(message.custom_ids())]
            return (
                f"{user.name} presses {custom!r}",
                lambda: press(self.fake, user, message, custom),
            )
        if kind == "poker":
            sub = data.draw(
                st.sampled_from(["join", "leave", "kick", "void", "settings", "sitout", "sitin",
                                 "rebuy", "close", "pause", "resume", "start", "table", "cards"]),
                label=f"subcommand {n}",
            )
            user = self.pick_host(data, live_table, user, sub)
            options = self.draw_poker_options(data, sub, poker)
            return (
                f"{user.name} /poker {sub} {self.show(options)}",
                lambda: self.slash(user, poker, "poker", sub, options),
            )
        sub = data.draw(st.sampled_from(["daily", "balance", "grant"]), label=f"chips {n}")
        target = self.pick_target(data, f"target {n}")
        amount = data.draw(AMOUNT, label=f"amount {n}")
        options = {"user": target, "amount": amount} if sub == "grant" else {}

        async def send() -> InteractionHandle:
            self.note_mint(user, "chips", sub, options)
            return await self.slash(user, poker, "chips", sub, options)

        return f"{user.name} /chips {sub} {self.show(options)}", send

    @rule(data=st.data())
    def wait(self, data: st.DataObject) -> None:
        """Time passes: clocks run out, the next hand is dealt."""
        seconds = data.draw(st.sampled_from([0.05, 0.05, 0.2, 0.6, 1.2]), label="seconds")

        async def action() -> None:
            await asyncio.sleep(seconds)

        self.step(f"{seconds}s pass", action)

    @rule(data=st.data())
    def shove(self, data: st.DataObject) -> None:
        """Everybody goes all in, typed or clicked, until the hand is over (big side pots);
        asked to run it twice, the all-in players answer (all twice, one once, all at once,
        or with a bystander pressing too), or let the question expire."""
        turn = self.pick_turn(data)
        by_button = data.draw(st.booleans(), label="by button")
        vote = data.draw(st.sampled_from(VOTES), label="run-it-twice answers")
        bystander = self.pick_member(data, "bystander")
        if turn is None:
            return self.nothing("shove: nobody to act")
        live_table = turn[0]

        async def action() -> None:
            await self._shove(live_table, by_button)
            await self._answer_run_vote(live_table, vote, bystander)

        self.step(
            f"everybody goes all in at table {live_table.table_id}; run-it-twice answers: {vote}"
            + (f" (with {bystander.name})" if vote == "with a bystander" else ""),
            action,
        )
        return None

    async def _shove(self, live_table: LiveTable[Any], by_button: bool) -> None:
        for _ in range(12):
            user = self.to_act(live_table)
            if user is None or live_table.closed:
                return
            message = self.current_message(live_table)
            shoves = buttons_for(message, "allin") if message is not None else []
            if by_button and message is not None and shoves:
                handle = await press(self.fake, user, message, shoves[0])
            else:
                handle = await self.slash(user, self.channel_of(live_table), "allin")
            await self.wait_answer(handle)
            await live_table.messenger.flush(5)

    async def _answer_run_vote(
        self, live_table: LiveTable[Any], vote: str, bystander: FakeUser
    ) -> None:
        hand = live_table.hand
        message = self.current_message(live_table)
        if vote == "none" or hand is None or not hand.run_choice_pending or message is None:
            return
        twice, once = buttons_for(message, "run_twice"), buttons_for(message, "run_once")
        if not twice or not once:
            return
        voters = [self.fake.users[live_table.player_of(i)] for i in hand.run_choice_players]
        plan = [(u, twice[0]) for u in voters]
        if vote == "one says once":
            plan[-1] = (voters[-1], once[0])
        elif vote == "with a bystander":
            plan.append((bystander, twice[0]))
        if vote in ("all at once", "with a bystander"):
            handles = await asyncio.gather(*(press(self.fake, u, message, c) for u, c in plan))
        else:
            handles = [await press(self.fake, u, message, c) for u, c in plan]
        for handle in handles:
            await self.wait_answer(handle)

    @rule(data=st.data())
    def high_rollers(self, data: st.DataObject) -> None:
        """A manager raises #poker's stakes as high as a buy-in may go (a big blind of
        MAX_CHIPS / 100, the buy-ins up to MAX_CHIPS), funds members, and they buy in for the
        most the table allows: the table's chips together may outgrow any one figure."""
        picked = data.draw(
            st.lists(st.integers(0, len(self.members) - 1), min_size=2, max_size=3,
                     unique=True),
            label="users",
        )
        users = [self.members[i] for i in picked]
        big = data.draw(st.sampled_from([MAX_CHIPS // 100, MAX_CHIPS // 200]), label="big blind")
        manager = self.world.members[3]  # dave, Manage Server through a role
        poker = self.world.channel("poker")
        live_table = self.cash_table_in(poker)
        if live_table is None:
            return self.nothing("high rollers: no table in #poker")
        if live_table.hand is not None:
            return self.nothing("high rollers: a hand is being played")  # stakes would wait

        async def action() -> None:
            options = {"big_blind": big, "small_blind": big // 2}
            await self.wait_answer(await self.slash(manager, poker, "poker", "settings", options))
            for user in users:
                grant = {"user": user, "amount": MAX_CHIPS}
                self.note_mint(manager, "chips", "grant", grant)
                await self.wait_answer(await self.slash(manager, poker, "chips", "grant", grant))
                live_table = self.cash_table_in(poker)
                if live_table is None:
                    return
                most = live_table.table.options.buy_in_range[1]
                seat = live_table.table.player(user.id)
                if seat is None:
                    await self.wait_answer(await self.slash(user, poker, "poker", "join",
                                                            {"buy_in": most}))
                elif seat.stack < most:
                    await self.wait_answer(await self.slash(user, poker, "poker", "rebuy",
                                                            {"amount": most - seat.stack}))

        self.step(
            f"{manager.name} sets #poker's big blind to {big} and funds "
            + ", ".join(u.name for u in users) + ", who buy in for the most",
            action,
        )
        return None

    @rule(data=st.data())
    def fill_table(self, data: st.DataObject) -> None:
        """Several members sit down at #poker's table at once."""
        picked = data.draw(
            st.lists(st.integers(0, len(self.members) - 1), min_size=2, max_size=10,
                     unique=True),
            label="users",
        )
        users = [self.members[i] for i in picked]
        percents = [
            data.draw(st.one_of(st.none(), st.integers(0, 100)), label=f"buy-in % {u.name}")
            for u in users
        ]
        poker = self.world.channel("poker")
        live_table = self.cash_table_in(poker)
        if live_table is None:
            return self.nothing("fill: no table in #poker")
        low, high = live_table.table.options.buy_in_range
        buy_ins = [None if p is None else self.in_range(low, high, p) for p in percents]

        async def action() -> None:
            handles = await asyncio.gather(
                *(
                    self.slash(u, poker, "poker", "join", {} if b is None else {"buy_in": b})
                    for u, b in zip(users, buy_ins, strict=True)
                )
            )
            for handle in handles:
                await self.wait_answer(handle)

        self.step(
            "at once, join #poker: "
            + ", ".join(f"{u.name}:{b}" for u, b in zip(users, buy_ins, strict=True)),
            action,
        )
        return None

    # tournaments

    def tournament_channels(self) -> list[FakeChannel]:
        """Where a tournament may open (#readonly too: the bot may not post there)."""
        poker, lobby, readonly, tourney = (
            self.world.channel(n) for n in ("poker", "lobby", "readonly", "tourney")
        )
        return [lobby, tourney, tourney, lobby, poker, readonly]

    @rule(data=st.data())
    def tournament_create(self, data: st.DataObject) -> None:
        """A member (the host of a cash table, a manager, anybody) opens a tournament with odd
        options: huge stacks, structures with a level no table can play, deep presets, a
        buy-in of 0, one player or a thousand; usually a few members then register, and the
        host starts it."""
        channel = self.pick(data, self.tournament_channels(), "channel")
        assert channel is not None
        who = data.draw(
            st.sampled_from(["cash host", "cash host", "tournament host", "manager", "anybody"]),
            label="host",
        )
        host = self.pick_member(data, "host")
        options = dict(data.draw(TOURNAMENT_OPTIONS, label="options"))
        then = data.draw(
            st.sampled_from(["nothing", "register", "start", "start", "start"]), label="then"
        )
        picked = data.draw(
            st.lists(st.integers(0, len(self.members) - 1), min_size=2, max_size=6, unique=True),
            label="players",
        )
        cash = self.cash_tables()
        if who == "cash host" and cash and cash[0].host_id in self.fake.users:
            host = self.fake.users[cash[0].host_id]
        elif who == "tournament host" and self.tournaments():
            host = self.fake.users.get(self.tournaments()[0].host_id, host)
        elif who == "manager":
            host = self.world.members[3]
        players = [self.members[i] for i in picked]
        if then == "start":
            options.setdefault("timer", 1)  # nobody at the keyboard: hands still move on

        self.step(
            f"{host.name} in #{channel.name}: /tournament create {self.show(options)}"
            + ("" if then == "nothing" else
               f"; {', '.join(u.name for u in players)} register")
            + ("; the host starts it" if then == "start" else ""),
            lambda: self._open_tournament(host, channel, options, players, then),
        )

    @rule(data=st.data())
    def host_at_the_limit(self, data: st.DataObject) -> None:
        """A manager sets the per-host limit to what a host already runs (cash tables and
        tournaments); then that host opens one more tournament, which must be refused."""
        channel = self.pick(data, self.tournament_channels(), "channel")
        assert channel is not None
        hosts = sorted({v.host_id for v in self.game.runtime.registry.venues()
                        if getattr(v, "host_id", None) in self.fake.users})
        if not hosts:
            return self.nothing("host at the limit: nobody hosts anything")
        host = self.fake.users[hosts[data.draw(INDEX, label="host") % len(hosts)]]
        manager = self.world.members[3]
        name = f"Crowd {len(self.fake.events)}"

        async def action() -> None:
            hosted = sum(1 for v in self.game.runtime.registry.venues()
                         if getattr(v, "host_id", None) == host.id)
            handle = await self.slash(manager, channel, "chips", "settings",
                                      {"max_tables_per_host": max(1, hosted)})
            await self.wait_answer(handle)
            handle = await self.slash(host, channel, "tournament", "create",
                                      {"name": name, "kind": "freeze_out", "buy_in": 10,
                                       "starting_stack": 1000, "structure": "10/20 10"})
            await self.wait_answer(handle)

        self.step(f"{manager.name} caps each host at what {host.name} runs; {host.name} opens "
                  f"tournament {name!r} in #{channel.name}", action)
        return None

    async def _open_tournament(
        self, host: FakeUser, channel: FakeChannel, options: dict[str, Any],
        players: list[FakeUser], then: str,
    ) -> None:
        """/tournament create; then (when it opened) the players register, and with
        ``then == "start"`` the host starts it."""
        before = self.game.runtime.registry.tournament_in(channel.id)
        handle = await self.slash(host, channel, "tournament", "create", options)
        await self.wait_answer(handle)
        live = self.game.runtime.registry.tournament_in(channel.id)
        if live is None or live is before or handle.id in self.trap.refusals:
            return
        if then == "nothing":
            return
        for user in players:
            await self.wait_answer(await self.slash(user, channel, "tournament", "register"))
        if then == "start":
            await self.wait_answer(await self.slash(host, channel, "tournament", "start"))

    def tournament_places(self, live: LiveTournament) -> list[FakeChannel]:
        """The tournament's channel and its tables' channels (threads, when it plays at
        several)."""
        return [self.fake.channels[c] for c in live.channels() if c in self.fake.channels]

    @rule(data=st.data())
    def tournament_command(self, data: st.DataObject) -> None:
        """Any /tournament subcommand, by its host, a manager, a player or anybody, in its
        channel, at one of its tables, or elsewhere."""
        live = self.pick(data, self.tournaments(), "tournament")
        sub = data.draw(st.sampled_from(TOURNAMENT_SUBCOMMANDS), label="subcommand")
        where = data.draw(st.sampled_from(["its channel", "its channel", "a table", "anywhere"]),
                          label="where")
        who = data.draw(st.sampled_from(["host", "manager", "anybody", "a player"]),
                        label="who")
        user = self.pick_member(data)
        anywhere = self.pick_channel(data)
        place = data.draw(INDEX, label="table")
        named = data.draw(st.booleans(), label="status by name")
        if live is None or where == "anywhere":
            channel = anywhere
        elif where == "a table":
            places = self.tournament_places(live)
            channel = places[place % len(places)]
        else:
            channel = self.fake.channels[live.channel_id]
        if live is not None:
            hosting = sub in TOURNAMENT_HOST_COMMANDS and live.host_id in self.fake.users
            if who == "host" and hosting:
                user = self.fake.users[live.host_id]
            elif who == "manager":
                user = self.world.members[3]
            elif who == "a player":
                entrants = [u for u in self.members if u.id in live.settings.names]
                user = entrants[place % len(entrants)] if entrants else user
        options: dict[str, Any] = {}
        if sub == "status" and named and live is not None:
            options["name"] = live.name

        self.step(
            f"{user.name} in #{channel.name}: /tournament {sub} {self.show(options)}"
            + (f" (tournament {live.tournament_id}, {where})" if live is not None else ""),
            lambda: self._send(user, channel, "tournament", sub, options),
        )

    @rule(data=st.data())
    def tournament_fill(self, data: st.DataObject) -> None:
        """Several members register at once (late, when the tournament runs)."""
        live = self.pick(data, self.tournaments(), "tournament")
        picked = data.draw(
            st.lists(st.integers(0, len(self.members) - 1), min_size=2, max_size=6, unique=True),
            label="users",
        )
        if live is None:
            return self.nothing("tournament fill: no tournament")
        users = [self.members[i] for i in picked]
        channel = self.fake.channels[live.channel_id]

        async def action() -> None:
            handles = await asyncio.gather(
                *(self.slash(u, channel, "tournament", "register") for u in users)
            )
            for handle in handles:
                await self.wait_answer(handle)

        self.step(
            f"at once, register for tournament {live.tournament_id}: "
            + ", ".join(u.name for u in users),
            action,
        )
        return None

    @rule(data=st.data())
    def clock_jump(self, data: st.DataObject) -> None:
        """The tournaments' clock jumps ahead (minutes pass): levels change, breaks begin and
        end, a scheduled start comes."""
        seconds = data.draw(st.sampled_from(CLOCK_JUMPS), label="seconds")
        if not self.tournaments():
            return self.nothing("clock jump: no tournament")

        async def action() -> None:
            self.skew += seconds
            # The clock wakes at least every heartbeat (0.25 s here) and sees the new time.
            await asyncio.sleep(0.4)

        self.step(f"the tournaments' clock jumps {seconds:g}s ahead", action)
        return None

    @rule(data=st.data())
    def idle_sweep(self, data: st.DataObject) -> None:
        """The idle sweep runs as if some time had passed: empty cash tables and registrations
        nobody touched for the server's idle time close, every chip back."""
        ahead = data.draw(st.sampled_from(IDLE_SWEEPS), label="seconds ahead")
        tables_too = data.draw(st.booleans(), label="cash tables too")

        async def action() -> None:
            try:
                await self.game.runtime.close_idle_tables(
                    time.monotonic() + ahead if tables_too else None, wall=time.time() + ahead
                )
            except Exception as exc:
                refused = isinstance(exc, CodedError) and exc.code in CREDIT_REFUSALS
                self.fail(CreditRefused if refused else ErrorLogged,
                          f"the idle sweep failed: {exc!r}")

        self.step(f"the idle sweep runs {ahead}s ahead" + (" (cash tables too)"
                                                            if tables_too else ""), action)

    @rule(data=st.data())
    def act_elsewhere(self, data: st.DataObject) -> None:
        """A player of one table (cash or tournament) types an action, or presses a button,
        at another table, where he does not sit."""
        found = self.pick(
            data,
            [(r, m) for r in self.live_tables() if (m := self.current_message(r)) is not None],
            "table",
        )
        typed = data.draw(st.booleans(), label="typed")
        name = data.draw(st.sampled_from(PLAY_ACTIONS), label="command")
        amount = data.draw(AMOUNT, label="amount")
        button = data.draw(INDEX, label="button")
        index = data.draw(INDEX, label="user")
        if found is None:
            return self.nothing("act elsewhere: no table message")
        live_table, message = found
        here = {int(seat.player_id) for seat in live_table.table.seats()}
        elsewhere = [
            u for u in self.members
            if u.id not in here and any(
                other is not live_table and other.table.player(u.id) is not None
                for other in self.live_tables()
            )
        ]
        candidates = elsewhere or [u for u in self.members if u.id not in here] or self.members
        user = candidates[index % len(candidates)]
        channel = self.channel_of(live_table)
        ids = message.custom_ids()
        if typed or not ids:
            options: dict[str, Any] = {"amount": amount} if name == "bet" else (
                {"to": amount} if name == "raise" else {})
            self.step(
                f"{user.name} (seated elsewhere) in #{channel.name} at table {live_table.table_id}:"
                f" /{name} {self.show(options)}",
                lambda: self._send(user, channel, name, None, options),
            )
            return None
        custom = ids[button % len(ids)]
        self.step(
            f"{user.name} (seated elsewhere) presses {custom!r} at table {live_table.table_id}",
            lambda: self._press(user, message, custom),
        )
        return None

    @rule(data=st.data())
    def fill_wallet(self, data: st.DataObject) -> None:
        """A manager grants a member as much as the cap allows (the server's room left, or a
        wallet's own ceiling), a few chips short or none, once or a few times in a row."""
        target = self.pick_member(data, "target")
        mode = data.draw(st.sampled_from(["room", "room", "wallet"]), label="up to")
        short = data.draw(st.sampled_from([0, 0, 1, 10, 1000, 10**6]), label="short by")
        times = data.draw(st.integers(1, 3), label="grants")
        manager = self.world.members[data.draw(st.sampled_from([0, 3]), label="manager")]
        poker = self.world.channel("poker")
        guild_id = self.world.guild.id

        async def action() -> None:
            for _ in range(times):
                report = await invariant.check_invariant(self.game.db, guild_id=guild_id)
                held = sum(b.held for b in report.guilds)
                row = await self.game.db.fetchone(
                    "SELECT balance FROM wallets WHERE guild_id = ? AND user_id = ?",
                    (guild_id, target.id),
                )
                balance = int(row[0]) if row is not None else 0
                room = self.cap - (held if mode == "room" else balance)
                options = {"user": target, "amount": max(1, min(MAX_CHIPS, room - short))}
                self.note_mint(manager, "chips", "grant", options)
                await self.wait_answer(await self.slash(manager, poker, "chips", "grant",
                                                        options))

        self.step(
            f"{manager.name} grants {target.name} up to the {mode} ceiling, {short} short,"
            f" {times} time(s)",
            action,
        )
