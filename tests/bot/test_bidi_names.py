"""Names inside the bot's sentences (issue "Hardening, round 2", items 7 and 9).

A display name or a tournament's name may carry right-to-left overrides, embeddings and
isolates, closed or not. Wherever such a name stands inside a sentence (the ledger, results,
alt text, the replay's words, thread names), the bot's own words after it must come out as
the bot wrote them: :func:`open_controls` follows the explicit rules of Unicode's
bidirectional algorithm (UAX #9, X1-X8) independently of the code under test, and every
stretch of the bot's words must start and end with nothing of the name left open. The images
draw the same names: the controls must change neither the drawing nor its measuring.
"""

from __future__ import annotations

import dataclasses
import random
import unicodedata

import pytest
from PIL import ImageChops

from bot.i18n import bidi_balanced, isolate, t
from bot.presenter import (
    THREAD_NAME_LIMIT,
    moved_dm_text,
    results_text,
    safe_text,
    thread_name,
    tournament_called_off_text,
    tournament_header,
    tournament_opening_text,
)
from bot.render import charts
from bot.render.alttext import table_alt_text
from bot.render.fonts import text_sprite
from bot.render.model import SeatState, SeatView, Street, TableView
from bot.render.replay import replay_alt_text
from bot.render.samples import tournament_running
from bot.render.table import draw_table
from bot.render.tournament import tournament_alt_text
from bot.replay import PlayedHand, build_replay
from bot.runtime.reports import ledger_report
from bot.storage.sessions import SessionPlayer
from engine.hand import Hand, HandConfig
from engine.tournament import BlindLevel, PlayerMoved, TournamentConfig
from tests.bot.test_reports import session
from tests.engine.test_table_sim import random_action

MARK = "NAME"  # a plain name: the sentence as the bot means it
EVIL = (
    "\u202eevil",  # a right-to-left override never closed
    "a\u2067b",  # a right-to-left isolate never closed
    "x\u2069y",  # a stray closer: would close the bot's own isolate early
    "\u202b\u2066deep\u202c",  # an embedding around an open isolate, a closer out of place
    "ok\u202c\u2069\u202e",  # closers first, then an override
    "שלום 12",  # right-to-left letters and a number
)
# Right-to-left letters and every explicit control: a name holding one must stand isolated.
DIRECTED = frozenset(("R", "AL", "LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"))
CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def open_controls(text: str) -> list[str]:
    """What is still open at the end of ``text`` (UAX #9 X1-X8, no overflow): "e" for an
    embedding or override, "i" for an isolate. A paragraph break ends everything."""
    stack: list[str] = []
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("LRE", "RLE", "LRO", "RLO"):
            stack.append("e")
        elif kind in ("LRI", "RLI", "FSI"):
            stack.append("i")
        elif kind == "PDF" and stack and stack[-1] == "e":
            stack.pop()
        elif kind == "PDI" and "i" in stack:
            while stack.pop() != "i":
                pass
        elif kind == "B":
            stack.clear()
    return stack


def assert_words_intact(line: str, template: str) -> None:
    """``line`` is ``template`` (the same sentence about a player called :data:`MARK`) with
    other names in MARK's places: every piece of the bot's words is there as written, and
    nothing any name opened is still open where one starts or at the end of the line."""
    pieces = template.split(MARK)
    assert len(pieces) > 1, template
    assert line.startswith(pieces[0]), (line, template)
    pos = len(pieces[0])
    for piece in pieces[1:]:
        end = line.index(piece, pos + 1) if piece else len(line)
        assert not open_controls(line[:end]), (line[:end], piece)
        # Closed is not enough: a right-to-left name closes nothing yet would carry the
        # number after it along ("שלום 12"); only an isolate keeps it to itself.
        name = line[pos:end]
        if any(unicodedata.bidirectional(c) in DIRECTED for c in name):
            assert name[0] == "\u2068" and name[-1] == "\u2069", (name, piece)
        pos = end + len(piece)
    assert pos == len(line), (line, template)
    assert not open_controls(line)


# --- the helper -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", EVIL)
def test_an_isolated_name_closes_everything_it_opens(name: str) -> None:
    isolated = isolate(name)
    assert isolated.startswith("\u2068") and isolated.endswith("\u2069")
    assert not open_controls(isolated)
    # Nothing closes the isolate before its end: it stays open over the whole name.
    assert all(open_controls(isolated[:k]) for k in range(1, len(isolated)))
    # The name's own characters are all there but for closers that closed nothing.
    assert [c for c in isolated[1:-1] if c not in CONTROLS] == [
        c for c in name if c not in CONTROLS]


def test_a_plain_name_is_left_as_it_is() -> None:
    for name in ("alice", "Chen Wei 陈伟", "Zoë", "🂡 lucky", "123"):
        assert isolate(name) == name and safe_text(name) == name


def test_a_line_break_in_a_name_cannot_end_the_isolate() -> None:
    assert isolate("a\u202e\nb") == "\u2068a\u202e b\u202c\u2069"


def test_random_control_soup_never_escapes() -> None:
    rng = random.Random(9)
    alphabet = [*CONTROLS, "\u200e", "\u200f", "a", "ש", " ", "1"]
    for _ in range(2_000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12)))
        assert not open_controls(bidi_balanced(name))
        assert_words_intact(f"Seat 1, {isolate(name)} to act.", f"Seat 1, {MARK} to act.")


# --- messages -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", EVIL)
def test_the_ledger_row_and_title_end_with_the_bots_words(name: str) -> None:
    players = [SessionPlayer(5, 0, 100, 0, 0, 150, True), SessionPlayer(6, 0, 100, 0, 0, 50,
                                                                         True)]

    def report(who: str) -> list[str]:
        return ledger_report(session(players), {5: who, 6: "bob"}, "en",
                             table_name=who).text.split("\n")

    for line, template in zip(report(name), report(MARK), strict=True):
        if MARK in template:
            assert_words_intact(line, template)


@pytest.mark.parametrize("name", EVIL)
def test_the_csv_keeps_the_name_as_data_with_its_controls_closed(name: str) -> None:
    players = [SessionPlayer(5, 0, 100, 0, 0, 150, True)]
    text = ledger_report(session(players), {5: name}, "en", table_name="#t").csv.decode(
        "utf-8-sig")
    row = text.split("\r\n")[1]
    cell = row[: row.rindex(",5,")]
    assert cell.strip('"') == bidi_balanced(name)  # no isolates: a cell is no sentence
    assert not open_controls(cell)


@pytest.mark.parametrize("name", EVIL)
def test_message_sentences_isolate_names(name: str) -> None:
    for key in ("result.shows", "result.mucks", "equity.line"):
        words = {"cards": "A♠ K♠", "win": "40%"}
        assert_words_intact(t(key, "en", player=safe_text(name), **words),
                            t(key, "en", player=MARK, **words))
    assert_words_intact(results_text(name, [], "en"), results_text(MARK, [], "en"))


@pytest.mark.parametrize("locale", ["en", "zh-TW", "zh-CN"])
@pytest.mark.parametrize("name", EVIL)
def test_a_tournaments_name_is_isolated_in_every_sentence_it_heads(name: str, locale: str) -> None:
    """The tournament's own name, typed by its host, stands in its opening post, its tables'
    headers, a moved player's DM and the post that calls it off."""
    config = TournamentConfig(buy_in=100, starting_stack=1_000,
                              levels=(BlindLevel(5, 10, minutes=10),))
    moved = PlayerMoved(7, from_table=1, from_seat=2, to_table=3, to_seat=4, stack=900,
                        reason="balance")
    sentences = (
        lambda who: tournament_opening_text(who, 1, config, locale),
        lambda who: tournament_header(who, 2, 3, locale, final=False, break_until=None),
        lambda who: tournament_header(who, 2, 3, locale, final=True, break_until=None),
        lambda who: moved_dm_text(moved, who, "<#5>", locale),
        lambda who: tournament_called_off_text(who, 5, locale, host=1, amount=100),
        lambda who: tournament_called_off_text(who, 5, locale, idle=True),
        lambda who: tournament_called_off_text(who, 5, locale),
        lambda who: results_text(who, [], locale),
    )
    for sentence in sentences:
        assert_words_intact(sentence(name), sentence(MARK))


# --- alt text -------------------------------------------------------------------------------


def _table(name: str) -> TableView:
    seats = (
        SeatView(name, stack=900, bet=100, state=SeatState.ACTIVE, cards=(None, None),
                 to_act=True),
        SeatView("bob", stack=1_000, state=SeatState.FOLDED),
        None,
    )
    return TableView(seats=seats, board=("As", "Kd", "7h"), small_blind=5, big_blind=10,
                     hand_number=3, street=Street.FLOP)


@pytest.mark.parametrize("name", EVIL)
def test_the_table_alt_text_isolates_names(name: str) -> None:
    assert_words_intact(table_alt_text(_table(name)), table_alt_text(_table(MARK)))


@pytest.mark.parametrize("name", EVIL)
def test_the_tournament_and_chart_alt_texts_isolate_names(name: str) -> None:
    base = tournament_running()

    def board(who: str) -> str:
        tables = tuple(dataclasses.replace(
            panel, players=tuple(dataclasses.replace(p, name=who) for p in panel.players[:1])
            + panel.players[1:]) for panel in base.tables)
        return tournament_alt_text(dataclasses.replace(base, name=who, chip_leader=who,
                                                       tables=tables))

    assert_words_intact(board(name), board(MARK))

    def chart(who: str) -> str:
        view = charts.ChartView(title="Stacks", subtitle="2 hands", x_title="hand",
                                y_title="chips", x_labels=("start", "#1"),
                                series=(charts.ChartSeries(who, (100, 150)),))
        return charts.chart_alt_text(view)

    assert_words_intact(chart(name), chart(MARK))


def _played(names: tuple[str, ...]) -> PlayedHand:
    rng = random.Random(4)
    hand = Hand(HandConfig.standard((1_000,) * len(names), 5, 10), tuple(rng.sample(range(52),
                                                                                     52)))
    while not hand.is_over:
        random_action(hand, rng)
    return PlayedHand(hand, 2, seats=tuple(range(1, len(names) + 1)), names=names,
                      seat_count=6, button_seat=1, small_blind=5)


@pytest.mark.parametrize("name", EVIL)
def test_the_replay_words_isolate_names(name: str) -> None:
    told = build_replay(_played((name, "bob", "carol")))
    plain = build_replay(_played((MARK, "bob", "carol")))
    assert_words_intact(replay_alt_text(told.view), replay_alt_text(plain.view))
    for line, template in zip(told.lines, plain.lines, strict=True):
        if MARK in template:
            assert_words_intact(line, template)


# --- thread names (item 7) --------------------------------------------------------------------


@pytest.mark.parametrize("name", [
    "x" * 200,
    "Friday night " * 20,
    "漢字の大会" * 40,  # wide characters
    "e\u0301" * 120,  # a letter and its combining accent
    "👨‍👩‍👧" * 40,  # joined emoji, two UTF-16 units per person
    "\u202eevil" * 40,
])
@pytest.mark.parametrize("table", [1, 12, 305])
@pytest.mark.parametrize("locale", ["en", "zh-TW", "zh-CN"])
def test_a_long_tournament_name_is_cut_and_every_table_keeps_its_number(
        name: str, table: int, locale: str) -> None:
    thread = thread_name(name, table, locale)
    assert len(thread.encode("utf-16-le")) // 2 <= THREAD_NAME_LIMIT
    template = t("tournament.thread_name", locale, name=MARK, table=table)
    assert_words_intact(thread, template)
    shown = thread[: len(thread) - len(template.split(MARK)[1])]
    assert shown.rstrip("\u2069\u202c").endswith("…")
    kept = "".join(c for c in shown if c not in CONTROLS).removesuffix("…")
    bare = "".join(c for c in name if c not in CONTROLS)
    assert bare.startswith(kept)
    # Cut between characters a reader sees: never a letter left without its accent.
    rest = bare[len(kept):]
    assert not unicodedata.combining(rest[0]) and rest[0] not in "\u200d\ufe0f"
    assert not kept.endswith("\u200d")
    # Every table of the tournament has a thread of its own.
    assert thread != thread_name(name, table + 1, locale)


def test_a_short_name_is_whole() -> None:
    assert thread_name("Friday", 3, "en") == t("tournament.thread_name", "en", name="Friday",
                                               table=3)


# --- images: the controls change nothing drawn ------------------------------------------------


@pytest.mark.parametrize("name", EVIL)
def test_a_name_is_drawn_and_measured_without_its_controls(name: str) -> None:
    bare = "".join(c for c in name if c not in CONTROLS)
    for text in (name, isolate(name)):
        sprite, plain = text_sprite(text, 22), text_sprite(bare, 22)
        assert sprite.width == plain.width and sprite.text == plain.text
        assert ImageChops.difference(sprite.mask, plain.mask).getbbox() is None
        cut, plain_cut = text_sprite(text * 8, 22, max_width=120), text_sprite(
            bare * 8, 22, max_width=120)
        assert cut.width == plain_cut.width and cut.truncated == plain_cut.truncated
    drawn, plain_table = draw_table(_table(name)), draw_table(_table(bare))
    assert ImageChops.difference(drawn.convert("RGB"), plain_table.convert("RGB")).getbbox() is None
