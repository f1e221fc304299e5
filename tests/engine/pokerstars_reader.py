"""A second reading of PokerStars hand histories, written for the tests from the format alone.

It shares nothing with :mod:`engine.pokerstars` but the format: it reads a hand the way a
tracker does (the players from the seat lines, then every line by the name it starts with),
keeps each line's amounts as written, and refuses any line it does not know, so a line the
writer gets wrong fails the test instead of being skipped. :func:`chip_flow` then does a
tracker's arithmetic: what each player put in, got back and collected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.cards import Card, parse_card

_HEADER = re.compile(
    r"PokerStars Hand #(?P<hand>\d+): (?:"
    r" (?P<cash_game>.+?) \((?P<cash_sb>\d+)/(?P<cash_bb>\d+)\)"
    r"|Tournament #(?P<tournament>\d+), (?P<buy_in>Freeroll|\d+\+\d+) (?P<tour_game>.+?)"
    r" - Level (?P<level>[IVXLCDM]+|\d+) \((?P<tour_sb>\d+)/(?P<tour_bb>\d+)\)"
    r") - (?P<time>\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d) UTC"
    r" \[(?P<eastern>\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d) ET\]$"
)
_TABLE = re.compile(
    r"Table '(?P<table>[^']+)' (?P<max>\d+)-max (?P<play>\(Play Money\) )?"
    r"Seat #(?P<button>\d+) is the button$"
)
_SEAT = re.compile(r"Seat (?P<seat>\d+): (?P<name>\S+) \((?P<stack>\d+) in chips\)$")
_CARDS = r"\[(?P<cards>(?:[2-9TJQKA][cdhs] ?)+)\]"
_STREET = re.compile(
    r"\*\*\* (?:(?P<run>FIRST|SECOND) )?(?P<street>FLOP|TURN|RIVER) \*\*\* "
    r"(?:\[(?P<before>[^\]]+)\] )?\[(?P<cards>[^\]]+)\]$"
)
_ALL_IN = " and is all-in"

GAMES = {
    "Hold'em No Limit": "nlhe",
    "Omaha Pot Limit": "plo",
    "Omaha Hi/Lo Pot Limit": "plo8",
    "5 Card Omaha Pot Limit": "plo5",
}


class ReadError(AssertionError):
    """A line the reader does not understand: the writer wrote something it should not."""


@dataclass
class Act:
    """One decision as written: ``verb`` folds/checks/calls/bets/raises; ``amount`` the chips a
    call adds, a bet's size, a raise's total; ``street`` 0..3."""

    street: int
    name: str
    verb: str
    amount: int = 0
    all_in: bool = False


@dataclass
class ReadHand:
    hand: int
    game: str
    small_blind: int
    big_blind: int
    time: str
    eastern: str
    table: str
    max_seats: int
    play_money: bool
    button: int
    tournament: int | None = None
    buy_in: str | None = None
    level: str | None = None
    seats: dict[str, int] = field(default_factory=dict)
    stacks: dict[str, int] = field(default_factory=dict)
    posts: list[tuple[str, str, int, bool]] = field(default_factory=list)  # name, kind, chips
    dealt: dict[str, tuple[Card, ...]] = field(default_factory=dict)
    acts: list[Act] = field(default_factory=list)
    boards: list[list[Card]] = field(default_factory=lambda: [[]])
    returned: list[tuple[str, int]] = field(default_factory=list)
    # (showdown section 1 or 2, 0 without a showdown), name, cards, description
    shows: list[tuple[int, str, tuple[Card, ...], str]] = field(default_factory=list)
    mucks: list[str] = field(default_factory=list)
    no_show: list[str] = field(default_factory=list)
    collected: list[tuple[int, str, int, str]] = field(default_factory=list)  # section, name..
    no_low: list[int] = field(default_factory=list)
    total: int = 0
    pots: list[int] = field(default_factory=list)
    run_twice: bool = False
    summary_boards: list[list[Card]] = field(default_factory=list)
    outcomes: dict[str, str] = field(default_factory=dict)  # name -> summary text after labels
    labels: dict[str, list[str]] = field(default_factory=dict)


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(c) for c in text.split())


def split_hands(text: str) -> list[str]:
    """The hands of a file: blocks separated by blank lines, each starting with its header."""
    blocks = [b.strip("\n") for b in re.split(r"\n\s*\n", text) if b.strip()]
    for block in blocks:
        if not block.startswith("PokerStars Hand #"):
            raise ReadError(f"a block does not start a hand: {block[:60]!r}")
    return blocks


def read_hand(text: str) -> ReadHand:
    lines = text.strip("\n").split("\n")
    head = _HEADER.match(lines[0])
    table = _TABLE.match(lines[1]) if len(lines) > 1 else None
    if head is None or table is None:
        raise ReadError(f"bad header: {lines[:2]!r}")
    tour = head["tournament"]
    read = ReadHand(
        hand=int(head["hand"]),
        game=GAMES[head["tour_game"] if tour else head["cash_game"]],
        small_blind=int(head["tour_sb"] if tour else head["cash_sb"]),
        big_blind=int(head["tour_bb"] if tour else head["cash_bb"]),
        time=head["time"],
        eastern=head["eastern"],
        table=table["table"],
        max_seats=int(table["max"]),
        play_money=table["play"] is not None,
        button=int(table["button"]),
        tournament=int(tour) if tour else None,
        buy_in=head["buy_in"],
        level=head["level"],
    )
    at = 2
    while at < len(lines) and (m := _SEAT.match(lines[at])):
        name = m["name"]
        if name in read.seats:
            raise ReadError(f"two players named {name!r}")
        read.seats[name] = int(m["seat"])
        read.stacks[name] = int(m["stack"])
        at += 1
    # Longest first, so that a name which begins another name never takes its lines.
    names = sorted(read.seats, key=len, reverse=True)

    def who(line: str, sep: str) -> tuple[str, str]:
        for name in names:
            if line.startswith(name + sep):
                return name, line[len(name) + len(sep) :]
        raise ReadError(f"no player begins {line!r}")

    section = "posts"
    street = 0
    showdown = 0
    for line in lines[at:]:
        if line == "*** HOLE CARDS ***":
            section = "preflop"
            continue
        if line == "*** SUMMARY ***":
            section = "summary"
            continue
        if line in ("*** SHOW DOWN ***", "*** FIRST SHOW DOWN ***", "*** SECOND SHOW DOWN ***"):
            section = "showdown"
            showdown = 2 if line.startswith("*** SECOND") else 1
            continue
        if section == "summary":
            _summary_line(read, line)
            continue
        if m := _STREET.match(line):
            street = ("FLOP", "TURN", "RIVER").index(m["street"]) + 1
            run = 1 if m["run"] == "SECOND" else 0
            while len(read.boards) <= run:
                read.boards.append(list(read.boards[0][: len(_cards(m["before"] or ""))]))
            board = read.boards[run]
            if _cards(m["before"] or "") != tuple(board):
                raise ReadError(f"street {line!r} does not continue {board}")
            board.extend(_cards(m["cards"]))
            continue
        if m := re.fullmatch(r"Uncalled bet \((\d+)\) returned to (.+)", line):
            if m[2] not in read.seats:
                raise ReadError(f"unknown player in {line!r}")
            read.returned.append((m[2], int(m[1])))
            continue
        if line == "No low hand qualified":
            read.no_low.append(showdown)
            continue
        if m := re.fullmatch(r"Dealt to (\S+) " + _CARDS, line):
            read.dealt[m[1]] = _cards(m["cards"])
            continue
        if " collected " in line and not line.split(" ", 1)[0].endswith(":"):
            name, rest = who(line, " ")
            m = re.fullmatch(r"collected (\d+) from (pot|main pot|side pot(?:-\d+)?)", rest)
            if m is None:
                raise ReadError(f"bad collect {line!r}")
            read.collected.append((showdown, name, int(m[1]), m[2]))
            continue
        name, rest = who(line, ": ")
        all_in = rest.endswith(_ALL_IN)
        if all_in:
            rest = rest[: -len(_ALL_IN)]
        if section == "posts":
            m = re.fullmatch(
                r"posts (the ante|small blind|big blind|straddle|small & big blinds) (\d+)", rest
            )
            if m is None:
                raise ReadError(f"bad post {line!r}")
            read.posts.append((name, m[1], int(m[2]), all_in))
            continue
        if m := re.fullmatch(r"shows " + _CARDS + r" \((?P<what>[^()]+)\)", rest):
            read.shows.append((showdown, name, _cards(m["cards"]), m["what"]))
            continue
        if rest == "mucks hand" and section == "showdown":
            read.mucks.append(name)
            continue
        if rest == "doesn't show hand":
            read.no_show.append(name)
            continue
        if rest in ("folds", "checks"):
            read.acts.append(Act(street, name, rest))
            continue
        m = re.fullmatch(r"(calls|bets) (\d+)|raises (\d+) to (\d+)", rest)
        if m is None or section == "showdown":
            raise ReadError(f"bad action {line!r}")
        if m[1]:
            read.acts.append(Act(street, name, m[1], int(m[2]), all_in))
        else:
            act = Act(street, name, "raises", int(m[4]), all_in)
            act_increment = int(m[3])
            read.acts.append(act)
            _check_increment(read, act, act_increment)
    return read


def _check_increment(read: ReadHand, act: Act, increment: int) -> None:
    """A raise says how much it adds to the bet it faces: that bet must be the street's high."""
    bets = street_bets(read, upto=len(read.acts) - 1, street=act.street)
    if act.amount - increment != max(bets.values(), default=0):
        raise ReadError(f"raise of {act.name} adds {increment} to {act.amount}: high was {bets}")


def street_bets(read: ReadHand, upto: int, street: int) -> dict[str, int]:
    """Each player's bet on ``street`` before decision ``upto``."""
    bets: dict[str, int] = {}
    if street == 0:
        seen_big = False
        for name, kind, chips, _ in read.posts:
            # A small blind posted after a big blind is a dead one (a returning player's).
            live = {
                "small blind": 0 if seen_big else chips,
                "big blind": chips,
                "straddle": chips,
                "small & big blinds": min(read.big_blind, chips),
            }.get(kind, 0)
            seen_big = seen_big or kind == "big blind"
            bets[name] = bets.get(name, 0) + live
    for act in read.acts[:upto]:
        if act.street != street:
            continue
        if act.verb == "calls":
            bets[act.name] = bets.get(act.name, 0) + act.amount
        elif act.verb in ("bets", "raises"):
            bets[act.name] = act.amount
    return bets


def _summary_line(read: ReadHand, line: str) -> None:
    pots = r"(?P<pots>(?: (?:Main|Side) pot(?:-\d+)? \d+\.)*)"
    if m := re.fullmatch(r"Total pot (\d+)" + pots + r" \| Rake 0", line):
        read.total = int(m[1])
        read.pots = [int(x) for x in re.findall(r"pot(?:-\d+)? (\d+)\.", m["pots"])]
        return
    if line == "Hand was run twice":
        read.run_twice = True
        return
    if m := re.fullmatch(r"(?:FIRST |SECOND )?Board " + _CARDS, line):
        read.summary_boards.append(list(_cards(m["cards"])))
        return
    m = re.fullmatch(r"Seat (\d+): (\S+)((?: \((?:button|small blind|big blind)\))*) (.+)", line)
    if m is None or read.seats.get(m[2]) != int(m[1]):
        raise ReadError(f"bad summary line {line!r}")
    read.labels[m[2]] = re.findall(r"\(([^)]+)\)", m[3])
    read.outcomes[m[2]] = m[4]


def chip_flow(read: ReadHand) -> dict[str, int]:
    """Each player's stack at the end by the text's own arithmetic: his stack, less every post,
    call and bet, plus what came back uncalled and what he collected."""
    stacks = dict(read.stacks)
    for name, _, chips, _ in read.posts:
        stacks[name] -= chips
    for k, act in enumerate(read.acts):
        if act.verb == "calls":
            stacks[act.name] -= act.amount
        elif act.verb in ("bets", "raises"):
            before = street_bets(read, k, act.street).get(act.name, 0)
            stacks[act.name] -= act.amount - before
    for name, chips in read.returned:
        stacks[name] += chips
    for _, name, chips, _ in read.collected:
        stacks[name] += chips
    return stacks
