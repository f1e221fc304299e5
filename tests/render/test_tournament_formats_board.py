"""The status board names a tournament's formats (rebuys, the add-on, re-entries, bounties, a
sit-and-go) in its header and its description, in the reader's language, and never calls such a
tournament a freeze-out."""

from __future__ import annotations

import random

import pytest

from bot.presenter import tournament_labels
from bot.presenter import tournament_view as view_from_status
from bot.render import render_tournament
from bot.render.tournament import tournament_alt_text
from bot.runtime.formats import format_tags
from engine.bounty import BountyKind
from engine.structures import structure
from engine.tournament import Tournament, TournamentConfig


def _config(**formats: object) -> TournamentConfig:
    return TournamentConfig(buy_in=100, starting_stack=1000,
                            levels=structure("10/20 10, 20/40 10, 40/80 10"), **formats)


@pytest.mark.parametrize(("tag", "words"), [
    ("en", ["Rebuys ×2", "Add-on", "Progressive bounty 40"]),
    ("zh-TW", ["重購 ×2", "加購", "漸進式賞金 40"]),
    ("zh-CN", ["重购 ×2", "加购", "渐进式赏金 40"]),
])
def test_the_board_names_the_formats_in_each_language(tag: str, words: list[str]) -> None:
    config = _config(rebuys=2, rebuy_levels=1, add_on=1000, bounty=40,
                     bounty_kind=BountyKind.PROGRESSIVE)
    engine = Tournament(config, random.Random(1))
    labels = tournament_labels(tag)
    view = view_from_status(engine.status(0.0), {}, name="Friday", config=config,
                            format_tags=format_tags(config, tag))
    assert list(view.format_tags) == words
    alt = tournament_alt_text(view, labels)
    assert all(word in alt for word in words), alt
    image = render_tournament(view, labels)
    assert image.png.startswith(b"\x89PNG")


def test_a_freeze_out_has_no_tags_and_a_sit_and_go_says_so() -> None:
    plain = _config()
    assert format_tags(plain, "en") == []
    full = _config(max_players=6, start_when_full=True)
    assert format_tags(full, "en", sit_and_go=True) == ["Sit-and-go"]
    view = view_from_status(Tournament(plain, random.Random(1)).status(0.0), {},
                            name="Friday", config=plain)
    assert view.format_tags == ()
