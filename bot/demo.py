"""``poker-bot demo``: a few hands among simulated players, without Discord.

Everything goes through the same pieces the bot uses: chips through :mod:`bot.storage` (wallets,
a cash table, buy-ins, every action appended, every result recorded, the invariant checked),
the rules through :class:`engine.table.Table`, the pictures through :mod:`bot.render` and the
hand histories through the engine's PHH writer. Only the players are fake: a small seeded policy
picks among the legal actions. The database lives in a temporary folder and is thrown away.

For each hand the output folder gets table images at each street that saw a decision and at the
end, the private hole-card image of one player, the hand as PHH, and an ``alt_text.txt`` line
per image; ``summary.txt`` (also returned) lists winners, pots, deck commitments and stacks.

With a ``seed`` the whole run (players, deck orders, salts, decisions, button) repeats exactly,
so the files can be compared between runs; without one the decks come from the operating
system's secure generator, as the bot's do.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.presenter import Scene, hole_cards_view, table_view
from bot.render import RenderedImage, render_hole_cards, render_table
from bot.render.model import (
    TableView,
)
from bot.runtime.results import player_results

# Aliased: ``hands`` is run_demo's count of hands (the signature the CLI calls).
from bot.storage import Database, economy, invariant, tables
from bot.storage import hands as hand_store
from bot.storage.hands import HandSeat
from engine.cards import FULL_DECK, Card, shuffled_deck
from engine.commitment import DeckCommitment, seen_positions
from engine.hand import Action, ActionKind, Hand
from engine.phh import final_stacks, load_hand, replay
from engine.table import PlayerId, Table, TableOptions

__all__ = ["DEMO_PLAYERS", "run_demo"]

# Names in several scripts, because the renderer's font fallback is part of what is shown off.
DEMO_PLAYERS: tuple[str, ...] = ("Alice", "李小龍", "さくら", "Zoë", "민준", "أميرة")

GUILD_ID = 1
CHANNEL_ID = 2
FIRST_USER_ID = 1001
SMALL_BLIND = 10
BIG_BLIND = 20
SEATS = 6
# Unequal stacks (20 to 100 big blinds) are what turn an all-in into side pots.
BUY_INS = (400, 800, 1_200, 2_000)

# Policy weights. Folding gets rarer the cheaper the call, so most hands reach a showdown;
# the shove chance keeps all-ins (and with uneven stacks, side pots) coming.
SHOVE = 0.07
BET_WHEN_CHECKED_TO = 0.35
RAISE_WHEN_BET_INTO = 0.12
BASE_FOLD = 0.10

_STREET_ORDER = ("preflop", "flop", "turn", "river")


@dataclass(slots=True)
class _Player:
    name: str
    user_id: int


@dataclass(slots=True)
class _HandRecord:
    """What the summary says about one hand."""

    number: int
    players: list[str]
    button: str
    root_hex: str
    opened: int  # deck positions opened after the hand (the cards everybody saw)
    verified: bool
    pots: list[str]
    showdown: bool
    stacks: list[str]
    phh_ok: bool
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --- the simulated players ---------------------------------------------------------------


def choose_action(hand: Hand, rng: random.Random) -> Action:
    """A legal decision for the player to act: mostly check/call, some bets, the odd shove."""
    legal = hand.legal()
    if legal is None:
        raise RuntimeError("nobody is to act")
    p = legal.player
    roll = rng.random()
    if legal.can_raise and roll < SHOVE:
        return Action(ActionKind.ALL_IN, p)
    pot = hand.total_pot()
    if legal.can_check:
        if legal.can_raise and roll < SHOVE + BET_WHEN_CHECKED_TO:
            return Action(
                ActionKind.BET,
                p,
                _size(
                    legal.min_raise_to,
                    legal.max_raise_to,
                    hand.high_bet + pot * rng.uniform(0.4, 1.0),
                ),
            )
        return Action(ActionKind.CHECK, p)
    # Facing a bet: the bigger it is against the pot, the likelier the fold.
    fold = BASE_FOLD + 0.5 * legal.to_call / max(pot, 1)
    if roll < SHOVE + fold:
        return Action(ActionKind.FOLD, p)
    if legal.can_raise and roll > 1 - RAISE_WHEN_BET_INTO:
        target = hand.high_bet * rng.uniform(2.2, 3.5)
        return Action(ActionKind.RAISE, p, _size(legal.min_raise_to, legal.max_raise_to, target))
    return Action(ActionKind.CALL, p)


def _size(low: int, high: int, target: float) -> int:
    return max(low, min(high, int(target)))


# --- engine state -> render model ----------------------------------------------------------


def _chips(n: int) -> str:
    return f"{n:,}"


def _pot_lines(hand: Hand, names: Sequence[str]) -> list[str]:
    result = hand.result
    assert result is not None
    lines = []
    for award in result.pots:
        label = (
            "pot"
            if len(result.pots) == 1
            else ("main pot" if award.index == 0 else f"side pot {award.index}")
        )
        shares = []
        for player, chips in award.shares:
            if not chips:
                continue
            rank = hand.rank(player) if award.showdown else None
            how = f" with {rank.describe()}" if rank else ""
            shares.append(f"{names[player]} {_chips(chips)}{how}")
        lines.append(f"{label} {_chips(award.amount)} -> " + ", ".join(shares))
    return lines


# --- the demo ------------------------------------------------------------------------------


class _Demo:
    """One run: the database, the engine table and the output folder."""

    def __init__(self, db: Database, out: Path, seed: int | None) -> None:
        self.db = db
        self.out = out
        self.seeded = seed is not None
        master = random.Random(seed) if seed is not None else random.Random(secrets.randbits(64))
        # Separate streams, so that a change in how often the policy draws cannot change the
        # decks of later hands (and the other way round).
        self.deck_rng = random.Random(master.getrandbits(64))
        self.policy_rng = random.Random(master.getrandbits(64))
        self.setup_rng = random.Random(master.getrandbits(64))
        self.table = Table(
            TableOptions(small_blind=SMALL_BLIND, big_blind=BIG_BLIND, seats=SEATS),
            rng=random.Random(master.getrandbits(64)),
        )
        self.players: dict[PlayerId, _Player] = {}
        self.table_id = 0
        self.alt_lines: list[str] = []

    @property
    def names(self) -> dict[PlayerId, str]:
        return {pid: p.name for pid, p in self.players.items()}

    def _view(self, table: Table) -> TableView:
        # The same public picture the bot posts in a channel.
        names = {int(pid): name for pid, name in self.names.items()}
        return table_view(Scene(table, names, table.hand_number))

    async def seat_players(self) -> None:
        await economy.ensure_guild(self.db, GUILD_ID)
        count = self.setup_rng.randint(4, len(DEMO_PLAYERS))
        low, high = self.table.options.buy_in_range
        info = await tables.create_table(
            self.db,
            GUILD_ID,
            CHANNEL_ID,
            FIRST_USER_ID,
            config=self.table.options.to_json(),
            min_buy_in=low,
            max_buy_in=high,
            max_seats=SEATS,
        )
        self.table_id = info.table_id
        seats = self.setup_rng.sample(range(1, SEATS + 1), count)
        for k, seat in enumerate(seats):
            player = _Player(DEMO_PLAYERS[k], FIRST_USER_ID + k)
            amount = self.setup_rng.choice(BUY_INS)
            # Storage first: the wallet pays, and only then does the engine seat him, as the bot
            # acknowledges nothing the database has not accepted.
            await tables.buy_in(self.db, self.table_id, player.user_id, amount, seat_no=seat)
            self.table.join(player.user_id, amount, seat=seat)
            self.players[player.user_id] = player

    def new_deck(self) -> tuple[tuple[Card, ...], DeckCommitment]:
        if self.seeded:
            deck = list(FULL_DECK)
            self.deck_rng.shuffle(deck)
            # A commitment seed from the run's seed keeps the roots reproducible; nobody plays
            # against these decks.
            seed = self.deck_rng.randbytes(32)
            return tuple(deck), DeckCommitment.commit(deck, seed)
        real = shuffled_deck()
        return real, DeckCommitment.commit(real)

    def save(self, name: str, rendered: RenderedImage) -> str:
        (self.out / name).write_bytes(rendered.png)
        self.alt_lines.append(f"{name}: {rendered.alt_text}")
        return name

    async def play_hand(self, *, last: bool) -> _HandRecord:
        """Deal, play, persist, draw and export one hand; ``last`` skips the rebuys after it."""
        table, db = self.table, self.db
        deck, commitment = self.new_deck()
        table.start_hand(deck)
        hand = table.hand
        assert hand is not None
        number = table.hand_number
        hand_names = [self.players[pid].name for pid in table.hand_players]
        hand_id = await hand_store.start_hand(
            db,
            self.table_id,
            config=hand.config,
            deck=deck,
            commitment=commitment,
            players=[
                HandSeat(i, seat, self.players[pid].user_id, hand.config.stacks[i])
                for i, (seat, pid) in enumerate(
                    zip(table.hand_seats, table.hand_players, strict=True)
                )
            ],
            button_seat=table.button_seat,
        )
        prefix = f"hand-{number:02d}"
        files: list[str] = []
        # One player's private image, as the bot would DM it at the deal; a different player
        # each hand so every name gets its turn.
        hero = (number - 1) % hand.config.players
        caption = f"#demo · Hand #{number} · {hand_names[hero]}"
        files.append(
            self.save(
                f"{prefix}-cards.png",
                await asyncio.to_thread(
                    render_hole_cards, hole_cards_view(hand, hero, caption, None)
                ),
            )
        )
        pictured: set[str] = set()
        while not hand.is_over:
            street = hand.street.value
            if street not in pictured:
                pictured.add(street)
                step = _STREET_ORDER.index(street) + 1
                files.append(
                    self.save(
                        f"{prefix}-{step}-{street}.png",
                        await asyncio.to_thread(render_table, self._view(table)),
                    )
                )
            before = len(hand.actions)
            hand.apply(choose_action(hand, self.policy_rng))
            # Persist what the engine accepted before anything else happens, like the runtime.
            await hand_store.append_actions(db, hand_id, before, hand.actions[before:])
        result = hand.result
        assert result is not None
        files.append(
            self.save(
                f"{prefix}-5-{'showdown' if result.showdown else 'end'}.png",
                await asyncio.to_thread(render_table, self._view(table)),
            )
        )
        pots = _pot_lines(hand, hand_names)
        await hand_store.record_hand_result(
            db, hand_id, hand.snapshot()["result"], player_results(hand)
        )
        table.finish_hand()

        # The server's own archive: every hole card, since the demo has nothing to hide.
        text = await hand_store.export_phh(db, hand_id, reveal_all=True, players=hand_names)
        phh_name = f"{prefix}.phh"
        (self.out / phh_name).write_text(text, encoding="utf-8")
        files.append(phh_name)
        replayed = final_stacks(replay(load_hand(text)))

        stacks = [
            f"{name} {_chips(after)} ({after - before:+,})"
            for name, before, after in zip(
                hand_names, hand.config.stacks, result.stacks, strict=True
            )
        ]
        openings = commitment.open_many(
            deck, seen_positions(hand.config.players, len(hand.board), result.shown)
        )
        record = _HandRecord(
            number=number,
            players=hand_names,
            button=self.button_name(),
            root_hex=commitment.root_hex,
            opened=len(openings),
            verified=all(opening.verify(commitment.root_hex) for opening in openings),
            pots=pots,
            showdown=result.showdown,
            stacks=stacks,
            phh_ok=replayed == list(result.stacks),
            files=files,
        )
        if not last:
            record.notes.extend(await self.rebuy_busted())
        return record

    def button_name(self) -> str:
        seat = self.table.button_seat
        occupant = self.table.seat(seat) if seat is not None else None
        # The dead-button rule can leave the button on an empty seat.
        return self.players[occupant.player_id].name if occupant else f"dead, seat {seat}"

    async def rebuy_busted(self) -> list[str]:
        """A broke player buys back in for the minimum (or leaves when his wallet cannot)."""
        notes = []
        low = self.table.options.buy_in_range[0]
        for occupant in self.table.seats():
            if occupant.stack > 0:
                continue
            player = self.players[occupant.player_id]
            wallet = await economy.balance(self.db, GUILD_ID, player.user_id)
            if wallet >= low:
                await tables.top_up(self.db, self.table_id, player.user_id, low)
                self.table.top_up(occupant.player_id, low)
                self.table.sit_in(occupant.player_id)
                notes.append(f"{player.name} busted and rebought for {_chips(low)}")
            else:
                await tables.leave_table(self.db, self.table_id, player.user_id)
                self.table.leave(occupant.player_id)
                notes.append(f"{player.name} busted and left (wallet {_chips(wallet)})")
        return notes

    async def close(self) -> tuple[list[str], list[str]]:
        """Final stacks, then the table closes and every stack goes home to its wallet."""
        stacks = [f"{self.players[s.player_id].name} {_chips(s.stack)}" for s in self.table.seats()]
        await tables.close_table(self.db, self.table_id)
        wallets = [
            f"{p.name} {_chips(await economy.balance(self.db, GUILD_ID, p.user_id))}"
            for p in self.players.values()
        ]
        return stacks, wallets


def _summary(
    seed: int | None,
    records: Sequence[_HandRecord],
    stacks: Sequence[str],
    wallets: Sequence[str],
    report: invariant.InvariantReport,
    stopped: str | None,
) -> str:
    lines = [
        f"poker-bot demo: {len(records)} hand(s), seed {seed if seed is not None else 'none'},"
        f" blinds {SMALL_BLIND}/{BIG_BLIND}, {SEATS}-seat cash table",
        "",
    ]
    for r in records:
        lines.append(f"Hand #{r.number}: {', '.join(r.players)} (button {r.button})")
        lines.append(f"  deck commitment (Merkle root) {r.root_hex}")
        lines.append(
            f"  {r.opened} seen card(s) opened: {'verified' if r.verified else 'DOES NOT VERIFY'}"
        )
        lines.extend(f"  {pot}" for pot in r.pots)
        lines.append(f"  {'showdown' if r.showdown else 'won without showdown'}")
        lines.append(f"  stacks: {' | '.join(r.stacks)}")
        lines.extend(f"  {note}" for note in r.notes)
        phh = "replays to its finishing stacks" if r.phh_ok else "DOES NOT REPLAY"
        lines.append(f"  PHH {r.files[-1]} {phh}")
        lines.append(f"  files: {', '.join(r.files)}")
        lines.append("")
    if stopped:
        lines.extend([stopped, ""])
    lines.append(f"Final stacks: {' | '.join(stacks)}")
    lines.append(f"Wallets after the table closed: {' | '.join(wallets)}")
    for g in report.guilds:
        lines.append(
            f"Chip invariant: {'OK' if report.ok else 'BROKEN'}: wallets {_chips(g.wallets)}"
            f" + seats {_chips(g.seats)} + hands {_chips(g.hands)} = {_chips(g.held)},"
            f" ledger {_chips(g.ledger_total)} (minted {_chips(g.minted)}"
            f" - burned {_chips(g.burned)}); {len(report.accounts)} account mismatch(es)"
        )
    return "\n".join(lines)


async def run_demo(out: str | Path, *, hands: int = 5, seed: int | None = None) -> str:
    """Play ``hands`` hands into the folder ``out``; the summary (also in ``summary.txt``)."""
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
        raise ValueError(f"hands must be a positive whole number, got {hands!r}")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="poker-demo-") as scratch:
        db = await Database.open(f"sqlite:///{Path(scratch) / 'demo.db'}")
        try:
            demo = _Demo(db, folder, seed)
            await demo.seat_players()
            records: list[_HandRecord] = []
            stopped = None
            for k in range(hands):
                if not demo.table.can_start():
                    stopped = "Stopped early: fewer than two players have chips."
                    break
                records.append(await demo.play_hand(last=k == hands - 1))
            stacks, wallets = await demo.close()
            report = await invariant.check_invariant(db)
        finally:
            await db.close()
    summary = _summary(seed, records, stacks, wallets, report, stopped)
    (folder / "alt_text.txt").write_text("\n".join(demo.alt_lines) + "\n", encoding="utf-8")
    (folder / "summary.txt").write_text(summary + "\n", encoding="utf-8")
    return summary
