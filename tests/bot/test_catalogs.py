"""The three catalogs (issue 12): complete, the glossary's words everywhere, each script pure,
numbers and option names as readers write them, and every word drawn fits where it is drawn."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterator
from itertools import combinations_with_replacement
from pathlib import Path

import discord
import pytest
from discord import app_commands

from bot.client import CatalogTranslator
from bot.errors import BotError, coded_message
from bot.i18n import LANGUAGES, available_locales, catalog, number, resolve_locale
from bot.presenter import describe_rank
from bot.render import samples
from bot.render.alttext import hole_cards_alt_text, table_alt_text
from bot.render.fonts import Weight, text_sprite
from bot.render.holecards import HAND_SIZE, HOLE_WIDTH, MARGIN
from bot.render.labels import catalog_labels
from bot.render.layout import BADGE_MAX_WIDTH, MARKER, PLATE
from bot.render.model import SeatState, Street
from bot.render.table import (
    BADGE_SIZE,
    HEADER_SIZE,
    HEADER_WIDTH,
    POT_SIZE,
    POTS_WIDTH,
    RESULT_SIZE,
    RESULT_WIDTH,
)
from bot.storage.errors import StorageError
from engine.errors import EngineError
from engine.evaluator import evaluate

REPO = Path(__file__).resolve().parents[2]
ENGLISH = catalog("en")
CHINESE = ("zh-TW", "zh-CN")
# The badge's text room and size, as bot.render.table._badge draws it.
BADGE_TEXT = BADGE_MAX_WIDTH - 24
HOLE_TEXT = HOLE_WIDTH - 2 * MARGIN


def _fields(text: str) -> set[str]:
    # {P0} is {p0} capitalized (a hand name's first word): a matter of the language only.
    return {name.lower() for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_the_catalogs_are_the_three_languages() -> None:
    assert available_locales() == frozenset(LANGUAGES)


@pytest.mark.parametrize("tag", CHINESE)
def test_every_key_is_translated_with_the_same_placeholders(tag: str) -> None:
    words = catalog(tag)
    assert sorted(set(ENGLISH) - set(words)) == []
    assert sorted(set(words) - set(ENGLISH)) == []
    for key, english in ENGLISH.items():
        assert _fields(words[key]) == _fields(english), key
        assert words[key].strip() or not english.strip(), key  # only separators may be blank
        # Markdown and slash commands survive translation: the same bold and the same commands.
        assert words[key].count("**") == english.count("**"), key
        assert re.findall(r"/poker \w+", words[key]) == re.findall(r"/poker \w+", english), key


# --- the glossary ---------------------------------------------------------------------------


def _glossary_rows() -> Iterator[tuple[dict[str, str], list[str], dict[str, list[str]]]]:
    text = (REPO / "docs" / "glossary.md").read_text(encoding="utf-8")
    section = text.split("## Terms", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 6 or cells[0] in ("en", "") or set(cells[0]) <= {"-"}:
            continue
        en, tw, cn, keys, forbidden, _ = cells
        avoid: dict[str, list[str]] = {}
        for part in filter(None, (p.strip() for p in forbidden.split(";"))):
            tag, words = part.split(":", 1)
            avoid[tag.strip()] = [w.strip() for w in words.split(",") if w.strip()]
        yield ({"en": en, "zh-TW": tw, "zh-CN": cn},
               [k.strip() for k in keys.split(",") if k.strip()], avoid)


def _term_forms(term: str) -> list[str]:
    """The words a cell allows: alternatives split on commas, brackets optional."""
    forms = []
    for alternative in term.split(","):
        bare = re.sub(r"\s*[(（][^)）]*[)）]", "", alternative).strip()
        forms.append(bare.lower())
    return forms


GLOSSARY = list(_glossary_rows())


def test_the_glossary_covers_the_poker_words() -> None:
    terms = {row[0]["en"].split(",")[0] for row in GLOSSARY}
    assert {"fold", "check", "call", "bet", "all-in", "muck", "showdown", "side pot",
            "kicker", "big blind ante"} <= terms
    assert sum(len(keys) for _, keys, _ in GLOSSARY) > 60


@pytest.mark.parametrize("tag", LANGUAGES)
def test_every_catalog_uses_the_glossary_terms(tag: str) -> None:
    words = catalog(tag)
    everything = "\n".join(words.values())
    for terms, keys, avoid in GLOSSARY:
        forms = _term_forms(terms[tag])
        for key in keys:
            assert any(form in words[key].lower() for form in forms), (tag, key, terms[tag])
        for word in avoid.get(tag, []):
            assert word not in everything, (tag, word, terms["en"])


# Characters written differently in the two scripts (a sample the catalogs use often).
TRADITIONAL = "們這過對號籌會張還輪從當該開錢買賣盤級體與為時個點戶設幣動兩條順蘆邊攤腳莊"
SIMPLIFIED = "们这过对号筹会张还轮从当该开钱买卖盘级体与为时个点户设币动两条顺芦边摊脚庄"


def test_each_chinese_catalog_keeps_to_its_script() -> None:
    assert len(TRADITIONAL) == len(SIMPLIFIED)
    # The language menu names each language in its own script too.
    taiwan = "".join(
        text for key, text in catalog("zh-TW").items()
        if key not in ("choice.language.zh-CN", "language.zh-CN")
    )
    mainland = "".join(
        text for key, text in catalog("zh-CN").items()
        if key not in ("choice.language.zh-TW", "language.zh-TW")
    )
    assert [c for c in SIMPLIFIED if c in taiwan] == []
    assert [c for c in TRADITIONAL if c in mainland] == []
    # Each uses its own quotation marks.
    assert "“" not in taiwan and "「" not in mainland


# --- numbers and option names -----------------------------------------------------------------


@pytest.mark.parametrize("tag", LANGUAGES)
def test_amounts_in_refusals_are_written_in_full_with_separators(tag: str) -> None:
    assert number(1_234_567, tag) == "1,234,567"
    text, expected = coded_message(EngineError("amount_above_stack", amount=5000,
                                               maximum=1000), tag)
    assert expected and "1,000" in text and "1000" not in text
    text, _ = coded_message(EngineError("buy_in_out_of_range", amount=50, minimum=200,
                                        maximum=1000), tag)
    assert "200" in text and "1,000" in text
    for abbreviation in ("萬", "万", "1k", "1K"):
        assert abbreviation not in text
    # A timestamp is not an amount: Discord must still read it.
    text, _ = coded_message(StorageError("daily_cooldown", retry_at=1_700_000_000), tag)
    assert "<t:1700000000:R>" in text


def test_options_are_named_as_readers_say_them_not_by_identifier() -> None:
    error = BotError("amount_not_positive", option="buy_in")
    assert coded_message(error, "en-US")[0] == "The buy-in must be more than zero."
    assert coded_message(error, "zh-TW")[0] == "買入金額必須大於零。"
    assert coded_message(error, "zh-CN")[0] == "买入金额必须大于零。"
    error = BotError("out_of_range", option="seats", minimum=2, maximum=10)
    assert coded_message(error, "en")[0] == "The number of seats must be between 2 and 10."
    for tag in LANGUAGES:
        for key, text in catalog(tag).items():
            if key.startswith("label."):
                assert "_" not in text, (tag, key)


def test_permissions_are_named_as_discords_settings_name_them() -> None:
    error = BotError("bot_missing_permissions", permissions=("attach_files", "embed_links"))
    assert coded_message(error, "zh-TW")[0] == "我在這個頻道缺少這些權限：附加檔案、嵌入連結。"
    assert coded_message(error, "zh-CN")[0] == "我在这个频道缺少这些权限：附加文件、嵌入链接。"
    assert coded_message(error, "en")[0] == (
        "I'm missing these permissions in this channel: Attach Files, Embed Links."
    )


def test_every_option_a_cog_reads_has_a_label() -> None:
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "cogs").glob("*.py"))
    sources += (REPO / "bot" / "interact.py").read_text(encoding="utf-8")
    named = set(re.findall(r'read_(?:optional_)?(?:chips|count)\(\s*\w+,\s*"(\w+)"', sources))
    named |= set(re.findall(r'option="(\w+)"', sources))
    named |= set(re.findall(r'_optional_count\(\s*\w+,\s*"(\w+)"', sources))
    assert len(named) > 10
    assert sorted(name for name in named if f"label.{name}" not in ENGLISH) == []


# --- Discord's command picker ----------------------------------------------------------------

COMMAND_KEYS = ("command.", "option.", "choice.")


@pytest.mark.parametrize("tag", LANGUAGES)
def test_command_words_are_within_discords_limits(tag: str) -> None:
    for key, text in catalog(tag).items():
        if key.startswith(COMMAND_KEYS):
            assert 1 <= len(text) <= 100, (tag, key, len(text))


class _Context:
    def __init__(self, location: app_commands.TranslationContextLocation) -> None:
        self.location = location
        self.data = None


async def test_the_translator_gives_discord_each_catalogs_words() -> None:
    translator = CatalogTranslator()
    describe = _Context(app_commands.TranslationContextLocation.command_description)
    fold = app_commands.locale_str("Fold your hand", key="command.fold")
    assert await translator.translate(fold, discord.Locale.taiwan_chinese, describe) == "棄牌"
    assert await translator.translate(fold, discord.Locale.chinese, describe) == "弃牌"
    # English is Discord's default; other languages fall back to it there, not here.
    for locale in (discord.Locale.american_english, discord.Locale.french):
        assert await translator.translate(fold, locale, describe) is None
    # Names stay English for everyone.
    name = _Context(app_commands.TranslationContextLocation.command_name)
    assert await translator.translate(fold, discord.Locale.chinese, name) is None
    assert await translator.translate(app_commands.locale_str("plain"),
                                      discord.Locale.chinese, describe) is None


# --- words drawn on the images ---------------------------------------------------------------


def hand_classes() -> list[list[int]]:
    """One five-card hand of each of the 7,462 classes: every multiset of ranks (at most four
    of a rank) in mixed suits, and each one of five distinct ranks suited as well."""
    hands = []
    for ranks in combinations_with_replacement(range(13), 5):
        counts = Counter(ranks)
        if max(counts.values()) > 4:
            continue
        used: Counter[int] = Counter()
        cards = []
        for rank in ranks:
            cards.append(rank * 4 + used[rank])
            used[rank] += 1
        if len(counts) == 5:
            cards[0] = ranks[0] * 4 + 1  # mixed suits: no flush
            hands.append([rank * 4 + 3 for rank in ranks])  # one suit
        hands.append(cards)
    return hands


def test_the_hand_classes_are_all_7462() -> None:
    values = {evaluate(cards).value for cards in hand_classes()}
    assert len(values) == 7462 and min(values) == 1 and max(values) == 7462


@pytest.mark.parametrize("tag", LANGUAGES)
def test_every_hand_class_has_a_name_that_fits_its_badge(tag: str) -> None:
    names: set[str] = set()
    labels: set[str] = set()
    for cards in hand_classes():
        rank = evaluate(cards)
        name = describe_rank(rank, tag)
        label = describe_rank(rank, tag, short=True)
        assert name and label and "{" not in name + label, (cards, name, label)
        names.add(name)
        labels.add(label)
    # Different hands get different names (the kicker or the ranks tell them apart).
    assert len(names) > 1000 and len(labels) > 100
    for label in labels:
        badge = text_sprite(label, BADGE_SIZE, Weight.BOLD, BADGE_TEXT)
        assert not badge.truncated, (tag, label, badge.width)
        hole = text_sprite(label, HAND_SIZE, Weight.BOLD, HOLE_TEXT)
        assert not hole.truncated, (tag, label, hole.width)


@pytest.mark.parametrize("tag", LANGUAGES)
def test_every_word_on_the_images_fits_its_place(tag: str) -> None:
    labels = catalog_labels(tag)
    sized: list[tuple[str, int, Weight, int]] = [
        (labels.street(street), HEADER_SIZE + 4, Weight.BOLD, HEADER_WIDTH) for street in Street
    ]
    sized += [(labels.state(state), BADGE_SIZE, Weight.BOLD, BADGE_TEXT)
              for state in SeatState if state is not SeatState.ACTIVE]
    sized += [(text, BADGE_SIZE, Weight.BOLD, BADGE_TEXT)
              for text in (labels.to_act, labels.mucked, labels.winner)]
    sized += [
        (labels.hand.format(n=1_234_567), HEADER_SIZE, Weight.BOLD, HEADER_WIDTH),
        (labels.blinds.format(sb=labels.chips(250_000), bb=labels.chips(500_000)),
         HEADER_SIZE - 2, Weight.REGULAR, HEADER_WIDTH),
        (labels.ante.format(ante=labels.chips(50_000)), HEADER_SIZE - 2, Weight.REGULAR,
         HEADER_WIDTH),
        (labels.empty_seat, 20, Weight.REGULAR, PLATE[0] - 20),
        (labels.more_pots.format(n=9), POT_SIZE - 2, Weight.REGULAR, 150),
        (labels.won_by.format(pot=labels.side_pot.format(n=9), amount="9,999,999",
                              names="Alice"), RESULT_SIZE, Weight.BOLD, RESULT_WIDTH - 32),
    ]
    sized += [(labels.pot_label(i, 3), POT_SIZE - 2, Weight.REGULAR, min(150, POTS_WIDTH))
              for i in range(3)]
    for text, size, weight, room in sized:
        sprite = text_sprite(text, size, weight, room)
        assert text and not sprite.truncated, (tag, text, sprite.width, room)
    # The button and blind discs: one character at 18 px or a short word at 13 px.
    for marker in (labels.dealer_marker, labels.small_blind_marker, labels.big_blind_marker):
        size = 18 if len(marker) == 1 else 13
        assert not text_sprite(marker, size, Weight.BOLD, MARKER - 6).truncated, (tag, marker)
    # The hole-card caption as the bot writes it.
    caption = catalog(tag)["cards.caption"].format(hand=123_456)
    assert not text_sprite("#a-long-channel-name · " + caption, 18, Weight.REGULAR,
                           HOLE_TEXT).truncated


ENGLISH_WORDS = re.compile(
    r"\b(Seat|seat|chips|Pot|pot|Board|board|face down|dealer|blind|bet|shows|winner|to act|"
    r"Hand|of (?:spades|hearts|clubs|diamonds))\b"
)


@pytest.mark.parametrize("tag", CHINESE)
def test_the_alt_text_speaks_the_catalogs_language(tag: str) -> None:
    labels = catalog_labels(tag)
    for view in (samples.nine_seat_river(), samples.showdown_split(tag), samples.six_seat_flop()):
        text = table_alt_text(view, labels)
        names = [seat.name for seat in view.seats if seat is not None]
        for name in names:
            text = text.replace(name, "")
        assert not ENGLISH_WORDS.search(text), (tag, ENGLISH_WORDS.search(text), text)
        assert "。" in text and "，" in text
    hole = hole_cards_alt_text(samples.hole_cards(locale=tag), labels)
    assert hole.startswith(catalog(tag)["render.alt_hole_cards"].split("{")[0])


def test_each_language_has_its_own_labels() -> None:
    tw, cn, en = (catalog_labels(tag) for tag in ("zh-TW", "zh-CN", "en-US"))
    assert (tw.showdown, cn.showdown, en.showdown) == ("攤牌", "摊牌", "Showdown")
    assert (tw.all_in, cn.all_in, en.all_in) == ("全下", "All-in", "All-in")
    assert catalog_labels("zh-HK") == tw and resolve_locale("zh-HK") == "zh-TW"
