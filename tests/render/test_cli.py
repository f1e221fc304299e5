"""``python -m bot.render cards`` and ``sample``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PIL import Image

from bot.render.__main__ import main, names_sheet
from bot.render.fonts import faces_for

ROOT = Path(__file__).resolve().parents[2]


def test_sample_writes_images_that_open(tmp_path: Path) -> None:
    assert main(["sample", "--out", str(tmp_path)]) == 0
    expected = {
        "table_2_seats_preflop.png": (1280, 800),
        "table_6_seats_flop_four_color.png": (1280, 800),
        "table_9_seats_river_side_pots.png": (1280, 800),
        "table_10_seats_names.png": (1280, 800),
        "table_showdown_split_pot.png": (1280, 800),
        "table_6_seats_all_in_equity.png": (1280, 800),
        "table_2_seats_all_in_preflop_estimate.png": (1280, 800),
        "table_run_twice_second_run.png": (1280, 800),
        "table_run_twice_showdown.png": (1280, 800),
        "table_10_seats_plo_showdown.png": (1280, 800),
        "table_9_seats_plo5_flop.png": (1280, 800),
        "table_9_seats_plo5_all_in_turn.png": (1280, 800),
        "table_hi_lo_showdown.png": (1280, 800),
        "hole_cards_classic.png": (376, 346),
        "hole_cards_four_color.png": (376, 346),
        "hole_cards_plo_classic.png": (518, 346),
        "hole_cards_plo5_four_color.png": (520, 346),
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
        "replay.gif": (1280, 864),
    }
    for name, size in expected.items():
        with Image.open(tmp_path / name) as img:
            img.load()
            if size is not None:
                assert img.size == size
                assert (tmp_path / name).stat().st_size <= 100 * 1024 or name.endswith(".gif")
    alt = (tmp_path / "alt_text.txt").read_text(encoding="utf-8")
    assert "Eitan to act." in alt
    assert "Run 2 board: king of spades" in alt and "49.7% to win" in alt
    assert "Tournament Friday Night Deepstack. Level 7" in alt
    assert "Line chart: Alice: net chips." in alt
    assert "Pot, low half 1,200 won by Alice." in alt and "Low: 8-5-3-2-A" in alt
    assert "Your cards: ace of spades, king of spades, queen of hearts, jack of hearts, ten of " \
        "clubs." in alt


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


def test_samples_in_chinese_draw_every_board_and_chart_in_chinese(tmp_path: Path) -> None:
    """The status boards and charts take the catalog's words like the tables do: no English
    word of theirs is left in a zh-TW sample's description."""
    assert main(["sample", "--out", str(tmp_path), "--locale", "zh-TW"]) == 0
    alt = (tmp_path / "alt_text.txt").read_text(encoding="utf-8")
    described = {line.split(" ", 1)[0]: line for line in alt.split("\n\n")}
    for name in ("tournament_registering.png", "tournament_running.png",
                 "tournament_finished.png", "chart_session_stacks.png",
                 "chart_net_over_time.png", "chart_empty.png"):
        words = described[name]
        assert any("\u4e00" <= c <= "\u9fff" for c in words), words
        for english in ("Tournament", "Level", "Prize", "Line chart", "Stacks", "from", "Hand"):
            assert english not in words, (name, english)
    # The names are drawn in Taiwan's shapes too (蔡詩涵 differs in every character).
    with Image.open(tmp_path / "names_scripts.png") as written:
        sheet = written.convert("RGB")
    with faces_for("zh-TW"):
        assert sheet.tobytes() == names_sheet().tobytes()
    with faces_for("zh-CN"):
        assert sheet.tobytes() != names_sheet().tobytes()
