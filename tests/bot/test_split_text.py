"""Long messages are split within Discord's limit, losing nothing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.runtime.messenger import MESSAGE_LIMIT, split_text

lines = st.lists(st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=300),
                 max_size=40)


@given(lines, st.integers(min_value=1, max_value=400))
def test_pieces_fit_and_keep_every_character_in_order(parts: list[str], limit: int) -> None:
    text = "\n".join(parts)
    pieces = split_text(text, limit)
    assert pieces and all(len(piece) <= limit for piece in pieces)
    assert "".join(p.replace("\n", "") for p in pieces) == text.replace("\n", "")


@given(lines)
def test_lines_that_fit_are_never_cut(parts: list[str]) -> None:
    text = "\n".join(line[:MESSAGE_LIMIT] for line in parts)
    assert "\n".join(split_text(text)) == text
