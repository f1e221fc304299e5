"""``poker-bot demo``: the files it writes are real images and hand histories that replay, the
chips add up, the same seed gives the same run, and the command line works."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from bot.demo import DEMO_PLAYERS, choose_action, run_demo
from bot.presenter import Scene, hole_cards_view, table_view
from bot.render.model import SeatState, Street
from engine.cards import FULL_DECK
from engine.phh import final_stacks, load_hand, replay
from engine.table import Table, TableOptions

SEED = 7
HANDS = 3


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One seeded run shared by the tests that only read its output (rendering warms up once)."""
    import asyncio

    out = tmp_path_factory.mktemp("demo")
    summary = asyncio.run(run_demo(out, hands=HANDS, seed=SEED))
    return out, summary


def test_writes_every_hand(demo_run: tuple[Path, str]) -> None:
    out, summary = demo_run
    assert (out / "summary.txt").read_text(encoding="utf-8") == summary + "\n"
    for number in range(1, HANDS + 1):
        prefix = f"hand-{number:02d}"
        assert f"Hand #{number}:" in summary
        assert (out / f"{prefix}.phh").is_file()
        assert (out / f"{prefix}-cards.png").is_file()
        assert (out / f"{prefix}-1-preflop.png").is_file()
        ends = list(out.glob(f"{prefix}-5-*.png"))
        assert [p.name for p in ends] in ([f"{prefix}-5-showdown.png"], [f"{prefix}-5-end.png"])
    assert summary.count("deck commitment (Merkle root) ") == HANDS
    assert summary.count(": verified") == HANDS
    assert "DOES NOT" not in summary
    assert any(name in summary for name in DEMO_PLAYERS[1:])  # the non-Latin names made it


def test_images_open_with_sane_sizes(demo_run: tuple[Path, str]) -> None:
    out, _ = demo_run
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) >= 3 * HANDS
    alt = (out / "alt_text.txt").read_text(encoding="utf-8")
    for path in pngs:
        with Image.open(path) as image:
            image.verify()  # a truncated or corrupt PNG fails here
        with Image.open(path) as image:
            width, height = image.size
        if path.name.endswith("-cards.png"):
            assert 200 <= width <= 800 and 100 <= height <= 800, (path.name, image.size)
        else:
            assert (width, height) == (1280, 800), path.name
            assert path.stat().st_size < 100_000  # the design's budget for a table image
        assert f"{path.name}: " in alt


def test_phh_replays_to_its_finishing_stacks(demo_run: tuple[Path, str]) -> None:
    out, summary = demo_run
    files = sorted(out.glob("*.phh"))
    assert len(files) == HANDS
    for path in files:
        phh = load_hand(path.read_text(encoding="utf-8"))
        assert phh.finishing_stacks is not None, path.name
        hand = replay(phh, strict=True)
        assert hand.is_over
        assert final_stacks(hand) == list(phh.finishing_stacks), path.name
        assert phh.players is not None and set(phh.players) <= set(DEMO_PLAYERS)
        # The summary's stacks line is the same story the file tells.
        stacks = " | ".join(
            f"{name} {stack:,}" for name, stack in zip(phh.players, final_stacks(hand), strict=True)
        )
        listed = re.sub(r" \([+-][\d,]+\)", "", summary)
        assert f"stacks: {stacks}\n" in listed, path.name


def test_invariant_holds(demo_run: tuple[Path, str]) -> None:
    _, summary = demo_run
    line = next(ln for ln in summary.splitlines() if ln.startswith("Chip invariant:"))
    assert line.startswith("Chip invariant: OK:"), line
    numbers = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", line)]
    wallets, seats, in_hands, held, ledger, minted, burned, mismatches = numbers
    assert wallets + seats + in_hands == held == ledger == minted - burned
    assert seats == in_hands == mismatches == 0  # the table closed and sent every chip home


async def test_same_seed_same_run(demo_run: tuple[Path, str], tmp_path: Path) -> None:
    first, summary = demo_run
    again = await run_demo(tmp_path, hands=HANDS, seed=SEED)
    assert again == summary
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(p.name for p in tmp_path.iterdir())
    for name in names:
        assert (first / name).read_bytes() == (tmp_path / name).read_bytes(), name


async def test_unseeded_run_plays(tmp_path: Path) -> None:
    summary = await run_demo(tmp_path, hands=1)
    assert "seed none" in summary and "Chip invariant: OK" in summary
    assert len(list(tmp_path.glob("*.phh"))) == 1


async def test_refuses_no_hands(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        await run_demo(tmp_path, hands=0)


def test_table_view_hides_unshown_cards() -> None:
    table = Table(TableOptions(small_blind=10, big_blind=20, seats=6), rng=1)
    names: dict[int, str] = {}
    for k, seat_no in enumerate((1, 3, 4)):
        table.join(1000 + k, 1_000, seat=seat_no)
        names[1000 + k] = DEMO_PLAYERS[k]
    table.start_hand(FULL_DECK)
    hand = table.hand
    assert hand is not None
    view = table_view(Scene(table, names, table.hand_number))
    assert view.street is Street.PREFLOP and view.seat_count == 6
    assert [i for i, s in enumerate(view.seats) if s is not None] == [0, 2, 3]
    for drawn in view.seats:
        if drawn is not None:
            assert drawn.cards == (None, None) and drawn.state is SeatState.ACTIVE
    assert sum(s.to_act for s in view.seats if s is not None) == 1
    # The private image is the only place a face appears before the showdown.
    private = hole_cards_view(hand, 0, "test", None)
    assert all(card is not None for card in private.cards)

    rng = random.Random(3)
    while not hand.is_over:
        hand.apply(choose_action(hand, rng))
    end = table_view(Scene(table, names, table.hand_number))
    assert end.street in (Street.SHOWDOWN, Street.COMPLETE)
    assert end.has_results
    shown = set(hand.shown)
    for i, at in enumerate(table.hand_seats):
        seat = end.seats[at - 1]
        assert seat is not None
        faces = [c for c in seat.cards if c is not None]
        assert bool(faces) == (i in shown and not hand.folded[i])


def test_command_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "bot", "demo", "--out", str(out), "--hands", "2", "--seed", "1"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Chip invariant: OK" in done.stdout
    assert sorted(p.name for p in out.glob("*.phh")) == ["hand-01.phh", "hand-02.phh"]
