"""``python -m bot.render cards`` and ``sample``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PIL import Image

from bot.render.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


def test_sample_writes_images_that_open(tmp_path: Path) -> None:
    assert main(["sample", "--out", str(tmp_path)]) == 0
    expected = {
        "table_2_seats_preflop.png": (1280, 800),
        "table_6_seats_flop_four_color.png": (1280, 800),
        "table_9_seats_river_side_pots.png": (1280, 800),
        "table_10_seats_names.png": (1280, 800),
        "table_showdown_split_pot.png": (1280, 800),
        "hole_cards_classic.png": None,
        "hole_cards_four_color.png": None,
        "deck_classic.png": None,
        "deck_four_color.png": None,
        "names_scripts.png": None,
        "tournament_registering.png": None,
        "tournament_running.png": None,
        "tournament_finished.png": None,
        "chart_session_stacks.png": None,
        "chart_session_26_players_3000_hands.png": None,
        "chart_net_over_time.png": None,
        "chart_empty.png": None,
    }
    for name, size in expected.items():
        with Image.open(tmp_path / name) as img:
            img.load()
            if size is not None:
                assert img.size == size
                assert (tmp_path / name).stat().st_size <= 100 * 1024
    alt = (tmp_path / "alt_text.txt").read_text(encoding="utf-8")
    assert "Eitan to act." in alt
    assert "Tournament Friday Night Deepstack. Level 7" in alt
    assert "Line chart: Alice: net chips." in alt


def test_cards_cli_is_deterministic(tmp_path: Path) -> None:
    """Two runs write byte-identical files (run as a real subprocess, as a developer would)."""
    for run in ("a", "b"):
        subprocess.run([sys.executable, "-m", "bot.render", "cards", "--out",
                        str(tmp_path / run)], check=True, cwd=ROOT, capture_output=True)
    files = sorted((tmp_path / "a").rglob("*.png"))
    assert len(files) == 106
    for path in files:
        twin = tmp_path / "b" / path.relative_to(tmp_path / "a")
        assert path.read_bytes() == twin.read_bytes(), path.name
