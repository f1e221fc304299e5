"""Deck commitments: the Merkle scheme of engine.commitment, its openings, the stand-alone checker
of docs/verify.md, which positions a hand opens, and the legacy whole-deck digest."""

from __future__ import annotations

import ast
import dataclasses
import doctest
import hashlib
import hmac
import json
import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import engine.cards
import engine.commitment
from engine.cards import FULL_DECK, Card, format_card, shuffled_deck
from engine.commitment import (
    DeckCommitment,
    LegacyCommitment,
    Opening,
    hole_positions,
    seen_positions,
)
from engine.errors import EngineError
from engine.hand import Hand, board_positions
from engine.limits import MAX_SEATS
from tests.engine.test_hand_properties import play_out, tables

DOC = Path(__file__).resolve().parents[2] / "docs" / "verify.md"
SEED = bytes(range(32))

# The test vector of docs/verify.md: seed 00..1f, FULL_DECK in numeric order.
VECTOR_SALT_0 = "86a35914b07582f234bf6df926aa550e2b1fed0c094ceff3d7a72e794fcc41de"
VECTOR_LEAF_0 = "8b81e37832a78fb94e9e60a86236eb1888ae6e8c28e1cf074ed0652cad3dfcc7"
VECTOR_ROOT = "91199a52e3566e177d30fcaec51e2e333d17208f3639707987c23e4e21de610d"

seeds = st.binary(min_size=32, max_size=32)


@st.composite
def decks(draw: st.DrawFn, min_size: int = 1) -> tuple[Card, ...]:
    """1..52 distinct cards in random order (a partial deck is allowed by the scheme)."""
    order = draw(st.permutations(FULL_DECK))
    return tuple(order[: draw(st.integers(min_size, 52))])


@st.composite
def openings(draw: st.DrawFn) -> tuple[DeckCommitment, Opening]:
    deck = draw(decks())
    made = DeckCommitment.commit(deck, draw(seeds))
    return made, made.open(deck, draw(st.integers(0, len(deck) - 1)))


def spec_levels(deck: Sequence[Card], seed: bytes) -> list[list[bytes]]:
    """The tree written straight from the spec in docs/verify.md, sharing no code with it."""
    nodes = []
    for i, card in enumerate(deck):
        salt = hmac.new(seed, b"deck-salt" + bytes([i]), hashlib.sha256).digest()
        leaf = b"\0" + salt + bytes([i]) + format_card(card).encode()
        nodes.append(hashlib.sha256(leaf).digest())
    nodes += [bytes(32)] * (64 - len(nodes))
    levels = [nodes]
    while len(nodes) > 1:
        pairs = [nodes[k] + nodes[k + 1] for k in range(0, len(nodes), 2)]
        nodes = [hashlib.sha256(b"\1" + pair).digest() for pair in pairs]
        levels.append(nodes)
    return levels


def spec_root(deck: Sequence[Card], seed: bytes) -> str:
    return spec_levels(deck, seed)[-1][0].hex()


def doc_checker(doc: Path = DOC) -> Callable[[str, str], bool]:
    """The one python block of a document, executed on its own."""
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1
    namespace: dict[str, object] = {}
    exec(compile(blocks[0], str(doc), "exec"), namespace)
    check = namespace["check"]
    assert callable(check)
    return check  # type: ignore[return-value]


CHECK = doc_checker()
# The README shows the same check in fewer lines; both are held to the same cases.
README = DOC.parents[1] / "README.md"
CHECKERS = {"docs/verify.md": CHECK, "README.md": doc_checker(README)}


def flip_hex(text: str, index: int = 0) -> str:
    """``text`` with the hex digit at ``index`` changed to another hex digit."""
    digit = "0123456789abcdef"[(int(text[index], 16) + 1) % 16]
    return text[:index] + digit + text[index + 1 :]


def test_docstring_examples() -> None:
    assert doctest.testmod(engine.commitment).failed == 0


# --- the scheme -------------------------------------------------------------------------------


def test_known_answer_vector_is_the_one_in_the_docs() -> None:
    made = DeckCommitment.commit(FULL_DECK, SEED)
    assert made.root_hex == VECTOR_ROOT == spec_root(FULL_DECK, SEED)
    assert made.seed_hex == SEED.hex()
    first = made.open(FULL_DECK, 0)
    assert first.salt_hex == VECTOR_SALT_0
    leaf = hashlib.sha256(b"\x00" + bytes.fromhex(VECTOR_SALT_0) + b"\x00" + b"2c").hexdigest()
    assert leaf == VECTOR_LEAF_0
    doc = DOC.read_text(encoding="utf-8")
    assert VECTOR_SALT_0 in doc and VECTOR_LEAF_0 in doc and VECTOR_ROOT in doc
    assert CHECK(VECTOR_ROOT, first.to_text())


@settings(max_examples=60, deadline=None)
@given(decks(), seeds)
def test_root_is_the_documented_tree(deck: tuple[Card, ...], seed: bytes) -> None:
    assert DeckCommitment.commit(deck, seed).root_hex == spec_root(deck, seed)


@given(seeds)
def test_salts_are_hmac_sha256(seed: bytes) -> None:
    # The module spells HMAC out (RFC 2104) to hash the pads once per deck: same bytes as hmac.
    expected = [hmac.digest(seed, b"deck-salt" + bytes([i]), "sha256") for i in range(64)]
    assert engine.commitment._salts(seed, 64) == expected


@settings(max_examples=60, deadline=None)
@given(decks(), seeds)
def test_every_position_opens_and_verifies(deck: tuple[Card, ...], seed: bytes) -> None:
    made = DeckCommitment.commit(deck, seed)
    other = DeckCommitment.commit(deck, bytes(31) + b"\x01" if seed == bytes(32) else bytes(32))
    everything = made.open_many(deck, range(len(deck)))
    assert [o.position for o in everything] == list(range(len(deck)))
    for opening in everything:
        assert opening.card == deck[opening.position]
        assert opening == made.open(deck, opening.position)
        assert opening.root_hex() == made.root_hex
        assert opening.verify(made.root_hex) and opening.verify(made.root_hex.upper())
        assert not opening.verify(other.root_hex)
        assert CHECK(made.root_hex, opening.to_text())
        assert Opening.from_text(str(opening)) == opening == Opening.from_json(opening.to_json())


@settings(max_examples=40, deadline=None)
@given(decks(min_size=2), seeds)
def test_an_opening_never_contains_the_seed_or_another_salt(
    deck: tuple[Card, ...], seed: bytes
) -> None:
    made = DeckCommitment.commit(deck, seed)
    everything = made.open_many(deck, range(len(deck)))
    salts = {o.position: o.salt_hex for o in everything}
    assert len(set(salts.values())) == len(deck)
    for opening in everything:
        for form in (opening.to_text(), opening.to_json(), repr(opening)):
            assert made.seed_hex not in form
            assert not [p for p, s in salts.items() if s in form and p != opening.position]


def test_repr_of_a_commitment_hides_the_seed() -> None:
    made = DeckCommitment.commit(shuffled_deck())
    assert made.seed_hex not in repr(made) and made.root_hex in repr(made)
    assert made.seed_hex not in str(made)


def test_fresh_commitments_differ_and_are_frozen() -> None:
    deck = shuffled_deck()
    one, two = DeckCommitment.commit(deck), DeckCommitment.commit(deck)
    assert one.seed_hex != two.seed_hex and one.root_hex != two.root_hex
    assert len(bytes.fromhex(one.seed_hex)) == 32
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.root_hex = two.root_hex  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.open(deck, 0).card = Card(0)  # type: ignore[misc]


def test_matches_and_verify() -> None:
    deck = shuffled_deck()
    made = DeckCommitment.commit(deck)
    swapped = (deck[1], deck[0], *deck[2:])
    assert made.matches(deck) and made.matches(list(deck))
    assert DeckCommitment.verify(deck, made.seed_hex, made.root_hex.upper())
    assert not made.matches(swapped)
    assert not made.matches(deck[:-1])
    other = DeckCommitment.commit(deck)
    assert not DeckCommitment.verify(deck, other.seed_hex, made.root_hex)
    assert not DeckCommitment.verify(deck, made.seed_hex, other.root_hex)


junk = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=70),
    st.binary(max_size=40),
    st.lists(st.integers(-2, 60), max_size=60),
    st.just("0" * 64),
    st.just("é" * 64),
)


@given(junk, junk, junk)
def test_verify_never_raises(deck: object, seed_hex: object, root_hex: object) -> None:
    assert DeckCommitment.verify(deck, seed_hex, root_hex) is False  # type: ignore[arg-type]


@given(openings(), junk)
def test_opening_verify_never_raises(made: tuple[DeckCommitment, Opening], root: object) -> None:
    assert made[1].verify(root) is False  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("deck", "seed", "code", "params"),
    [
        ((), SEED, "bad_deck", {"reason": "size", "size": 0}),
        ((*FULL_DECK, Card(0)), SEED, "bad_deck", {"reason": "size", "size": 53}),
        ((Card(0), Card(52)), SEED, "bad_deck", {"reason": "bad_card"}),
        ((Card(0), True), SEED, "bad_deck", {"reason": "bad_card"}),
        ((Card(5), Card(5)), SEED, "bad_deck", {"reason": "duplicate_card"}),
        (FULL_DECK, bytes(31), "bad_commitment", {"field": "seed", "size": 31}),
        (FULL_DECK, SEED.hex(), "bad_commitment", {"field": "seed", "size": None}),
    ],
)
def test_commit_refuses_bad_decks_and_seeds(
    deck: tuple[Card, ...], seed: bytes, code: str, params: dict[str, object]
) -> None:
    with pytest.raises(EngineError) as info:
        DeckCommitment.commit(deck, seed)
    assert (info.value.code, info.value.params) == (code, params)


def test_commitment_fields_are_checked() -> None:
    with pytest.raises(EngineError, match="bad_commitment: field='root'"):
        DeckCommitment("XY" * 32, "00" * 32)
    with pytest.raises(EngineError, match="bad_commitment: field='seed'"):
        DeckCommitment("00" * 32, "00" * 31)


def test_open_refuses_other_decks_and_positions() -> None:
    deck = shuffled_deck()
    made = DeckCommitment.commit(deck)
    with pytest.raises(EngineError) as info:
        made.open((deck[1], deck[0], *deck[2:]), 0)
    assert info.value.params == {"reason": "not_committed"}
    for position in (-1, 52, 64, True, 1.0):
        with pytest.raises(EngineError) as info:
            made.open(deck, position)  # type: ignore[arg-type]
        assert info.value.code == "bad_opening" and info.value.params["reason"] == "position"
    short = deck[:9]
    with pytest.raises(EngineError, match="position"):
        DeckCommitment.commit(short).open(short, 9)  # padding positions cannot be opened


def test_open_many_keeps_the_order_asked() -> None:
    deck = shuffled_deck()
    made = DeckCommitment.commit(deck)
    assert [o.position for o in made.open_many(deck, [40, 2, 17])] == [40, 2, 17]
    assert made.open_many(deck, []) == ()


# --- tampering ----------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(openings(), st.data())
def test_tampering_with_any_field_fails(
    made: tuple[DeckCommitment, Opening], data: st.DataObject
) -> None:
    commitment, opening = made
    root = commitment.root_hex
    card = data.draw(st.sampled_from([c for c in FULL_DECK if c != opening.card]))
    position = data.draw(st.integers(0, 63).filter(lambda p: p != opening.position))
    salt = flip_hex(opening.salt_hex, data.draw(st.integers(0, 63)))
    level = data.draw(st.integers(0, 5))
    path = list(opening.path)
    path[level] = flip_hex(path[level], data.draw(st.integers(0, 63)))
    tampered = [
        dataclasses.replace(opening, card=card),
        dataclasses.replace(opening, position=position),
        dataclasses.replace(opening, salt_hex=salt),
        dataclasses.replace(opening, path=tuple(path)),
        dataclasses.replace(opening, path=opening.path[::-1]),
    ]
    for bad in tampered:
        if bad == opening:
            continue
        assert not bad.verify(root)
        assert not CHECK(root, bad.to_text())
    bad_root = flip_hex(root, data.draw(st.integers(0, 63)))
    assert not opening.verify(bad_root)
    assert not CHECK(bad_root, opening.to_text())


# Printable ASCII and a few bytes that are not: what a copy and paste might change one byte into.
replacement_bytes = st.one_of(
    st.integers(0x20, 0x7E), st.sampled_from([0x00, 0x09, 0x0A, 0xC3, 0xFF])
)


@settings(max_examples=300, deadline=None)
@given(openings(), st.data(), replacement_bytes)
def test_any_single_byte_tamper_of_the_text_fails(
    made: tuple[DeckCommitment, Opening], data: st.DataObject, new: int
) -> None:
    commitment, opening = made
    raw = opening.to_text().encode()
    index = data.draw(st.integers(0, len(raw) - 1))
    assume(raw[index] != new)
    # One whitespace for another is the same text to both parsers: not a tamper.
    assume(not (chr(raw[index]).isspace() and chr(new).isspace()))
    tampered = raw[:index] + bytes([new]) + raw[index + 1 :]
    try:
        text = tampered.decode()
    except UnicodeDecodeError:
        return  # not even text: nothing to paste
    try:
        parsed = Opening.from_text(text)
    except EngineError as exc:
        assert exc.code == "bad_opening"
    else:
        assert not parsed.verify(commitment.root_hex)
    # The docs checker reads hex in either case, as bytes.fromhex does: "B" for "b" in the salt
    # or a path hash is the same value, not a tamper (the engine's parser refuses it anyway).
    in_hex = index >= raw.index(opening.salt_hex.encode())
    if not (in_hex and bytes([new]) == raw[index : index + 1].upper()):
        assert not CHECK(commitment.root_hex, text)


@settings(max_examples=300, deadline=None)
@given(openings(), st.data(), st.integers(0, 255))
def test_any_single_byte_tamper_of_the_json_fails(
    made: tuple[DeckCommitment, Opening], data: st.DataObject, new: int
) -> None:
    commitment, opening = made
    raw = opening.to_json().encode()
    index = data.draw(st.integers(0, len(raw) - 1))
    assume(raw[index] != new)
    tampered = raw[:index] + bytes([new]) + raw[index + 1 :]
    try:
        parsed = Opening.from_json(tampered)
    except EngineError as exc:
        assert exc.code == "bad_opening"
    else:
        assert not parsed.verify(commitment.root_hex)


# --- the checker in docs/verify.md ------------------------------------------------------------


@pytest.mark.parametrize("doc", [DOC, README], ids=["docs/verify.md", "README.md"])
def test_doc_checker_uses_only_hashlib(doc: Path) -> None:
    block = re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.DOTALL)[0]
    imported = {
        alias.name
        for node in ast.walk(ast.parse(block))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert imported == {"hashlib"}
    assert len(block.strip().splitlines()) <= 20


@pytest.mark.parametrize("where", list(CHECKERS))
def test_doc_checker_on_a_real_hand(where: str) -> None:
    check = CHECKERS[where]
    # Six players, showdown between players 0 and 3.
    deck = shuffled_deck()
    made = DeckCommitment.commit(deck)
    for opening in made.open_many(deck, seen_positions(6, 5, [0, 3])):
        line = opening.to_text()
        assert check(made.root_hex, line) and check(made.root_hex.upper(), f"  {line}\n")
        position, card, salt, *path = line.split()
        other_card = format_card(Card((opening.card + 1) % 52))
        other_position = str((opening.position + 1) % 64)
        bad_lines = [
            " ".join((position, other_card, salt, *path)),
            " ".join((other_position, card, salt, *path)),
            " ".join((position, card, flip_hex(salt, 63), *path)),
            " ".join((position, card, salt, *path[:-1], flip_hex(path[-1], 5))),
            " ".join((position, card, salt, *path[:-1])),
            " ".join((position, card, salt, *path, path[0])),
            " ".join((position, card.swapcase(), salt, *path)),
            " ".join((position, card, salt[:-2], *path)),
            " ".join(("64", card, salt, *path)),
            " ".join(("-1", card, salt, *path)),
            " ".join((position, card, "zz" + salt[2:], *path)),
            " ".join((position, "A♠", salt, *path)),
            "",
            "garbage",
        ]
        for bad in bad_lines:
            assert not check(made.root_hex, bad), bad
        for bad_root in (flip_hex(made.root_hex, 0), "", "not hex", made.root_hex[:-2]):
            assert not check(bad_root, line)


@pytest.mark.parametrize("where", list(CHECKERS))
def test_a_longer_path_cannot_open_a_position_twice(where: str) -> None:
    check = CHECKERS[where]
    # A dishonest server publishes root = node(R1, S2): R1 the root of deck one, S2 the node over
    # positions 32..63 of deck two. A 6-hash path opens position 40 to deck two's card; a 7-hash
    # path (R1's path plus S2) would open it to deck one's card. Only 6 hashes are accepted.
    one, two = list(FULL_DECK), list(FULL_DECK[::-1])
    tree_one, tree_two = spec_levels(one, SEED), spec_levels(two, SEED)
    root = hashlib.sha256(b"\x01" + tree_one[-1][0] + tree_two[5][1]).hexdigest()
    honest = DeckCommitment.commit(two, SEED).open(two, 40)
    six = (*honest.path[:5], tree_one[-1][0].hex())
    assert check(root, " ".join(("40", format_card(two[40]), honest.salt_hex, *six)))
    deep = DeckCommitment.commit(one, SEED).open(one, 40)
    seven = (*deep.path, tree_two[5][1].hex())
    line = " ".join(("40", format_card(one[40]), deep.salt_hex, *seven))
    assert not check(root, line)
    with pytest.raises(EngineError, match="fields"):
        Opening.from_text(line)
    with pytest.raises(EngineError, match="path"):
        dataclasses.replace(deep, path=seven)


# --- which positions to open ------------------------------------------------------------------


def test_hole_positions() -> None:
    assert hole_positions(2, 0) == (0, 2)
    assert hole_positions(6, 3) == (3, 9)
    assert hole_positions(23, 22) == (22, 45)
    for players, index, code in [(1, 0, "bad_config"), (24, 0, "bad_config"), (6, 6, "bad_player"),
                                 (6, -1, "bad_player"), (6, True, "bad_player")]:
        with pytest.raises(EngineError) as info:
            hole_positions(players, index)
        assert info.value.code == code


def test_seen_positions_examples() -> None:
    # Six players, everyone folded on the flop: the three flop cards and nothing else.
    assert seen_positions(6, 3, ()) == board_positions(6)[:3] == (13, 14, 15)
    # Showdown, players 0 and 3 show: the board and their four hole cards.
    assert seen_positions(6, 5, [0, 3]) == (0, 3, 6, 9, 13, 14, 15, 17, 19)
    # A preflop fold: nothing; a winner who chose to show: his two cards only.
    assert seen_positions(2, 0, []) == ()
    assert seen_positions(2, 0, [1]) == (1, 3)
    # 23 players deal without burns.
    assert seen_positions(23, 5, ()) == (46, 47, 48, 49, 50)
    # Repeats are harmless.
    assert seen_positions(3, 4, [2, 2]) == (2, 5, 7, 8, 9, 11)
    for args in [(1, 0, ()), (6, 6, ()), (6, -1, ()), (6, 3, [6]), (6, 3, [-1])]:
        with pytest.raises(EngineError):
            seen_positions(*args)  # type: ignore[arg-type]


@given(
    st.integers(2, MAX_SEATS).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, 5), st.sets(st.integers(0, n - 1)))
    )
)
def test_seen_positions_exclude_burns_and_unshown_hands(
    args: tuple[int, int, set[int]],
) -> None:
    n, board_count, shown = args
    seen = set(seen_positions(n, board_count, shown))
    board = board_positions(n)
    burns = set(range(2 * n, board[-1] + 1)) - set(board)
    assert not seen & burns
    assert seen >= set(board[:board_count]) and not seen & set(board[board_count:])
    for i in range(n):
        holes = set(hole_positions(n, i))
        assert holes <= seen if i in shown else not holes & seen
    assert len(seen) == board_count + 2 * len(shown)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_seen_positions_open_exactly_what_a_played_hand_showed(
    table: tuple[object, tuple[Card, ...], int],
) -> None:
    config, deck, seed = table
    hand = Hand(config, deck)  # type: ignore[arg-type]
    play_out(hand, random.Random(seed))
    made = DeckCommitment.commit(deck)
    opened = made.open_many(deck, seen_positions(hand.n, len(hand.board), hand.shown))
    shown_cards = {c for i in hand.shown for c in hand.hole_cards(i)}
    assert {o.card for o in opened} == set(hand.board) | shown_cards
    hidden = {c for i in range(hand.n) if i not in hand.shown for c in hand.hole_cards(i)}
    assert not hidden & {o.card for o in opened}
    assert all(o.verify(made.root_hex) for o in opened)


# --- the JSON and text forms --------------------------------------------------------------------


def test_json_form() -> None:
    opening = DeckCommitment.commit(FULL_DECK, SEED).open(FULL_DECK, 51)
    data = json.loads(opening.to_json())
    assert data == {
        "v": 1,
        "position": 51,
        "card": "As",
        "salt": opening.salt_hex,
        "path": list(opening.path),
    }
    assert Opening.from_json(opening.to_json().encode()) == opening
    assert Opening.from_json(json.dumps(data, indent=2)) == opening


def _good() -> dict[str, object]:
    return json.loads(DeckCommitment.commit(FULL_DECK, SEED).open(FULL_DECK, 7).to_json())  # type: ignore[no-any-return]


def _with(**changes: object) -> str:
    data = _good()
    data.update(changes)
    return json.dumps(data)


def _without(key: str) -> str:
    data = _good()
    del data[key]
    return json.dumps(data)


HEX = "ab" * 32


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not_json"),
        ("{", "not_json"),
        ("nul", "not_json"),
        (b"\xff\xfe{", "not_json"),
        ("{" + '"a":1,' * 400 + "}", "not_json"),  # longer than any opening
        ('{"v":1,"v":1,"position":7,"card":"As","salt":"","path":[]}', "not_json"),  # repeated key
        ("NaN", "fields"),
        ("[]", "fields"),
        ('"opening"', "fields"),
        ("null", "fields"),
        (_without("path"), "fields"),
        (_with(extra=1), "fields"),
        (_with(v=2), "version"),
        (_with(v="1"), "version"),
        (_with(v=True), "version"),
        (_with(v=1.0), "version"),
        (_with(position=-1), "position"),
        (_with(position=64), "position"),
        (_with(position=7.0), "position"),
        (_with(position="7"), "position"),
        (_with(position=True), "position"),
        (_with(position=None), "position"),
        (_with(card="as"), "card"),
        (_with(card="A♠"), "card"),
        (_with(card="10s"), "card"),
        (_with(card=51), "card"),
        (_with(card=""), "card"),
        (_with(salt=HEX.upper()), "salt"),
        (_with(salt=HEX[:-2]), "salt"),
        (_with(salt=HEX + "00"), "salt"),
        (_with(salt="zz" + HEX[2:]), "salt"),
        (_with(salt=None), "salt"),
        (_with(salt=[HEX]), "salt"),
        (_with(path=[HEX] * 5), "path"),
        (_with(path=[HEX] * 7), "path"),
        (_with(path=[HEX] * 5 + [HEX.upper()]), "path"),
        (_with(path=[HEX] * 5 + [1]), "path"),
        (_with(path=HEX * 6), "path"),
        (_with(path={"0": HEX}), "path"),
        (_with(path=None), "path"),
    ],
)
def test_from_json_rejects_malformed(text: str | bytes, reason: str) -> None:
    with pytest.raises(EngineError) as info:
        Opening.from_json(text)
    assert (info.value.code, info.value.params) == ("bad_opening", {"reason": reason})


def test_from_json_refuses_deep_nesting() -> None:
    with pytest.raises(EngineError, match="bad_opening"):
        Opening.from_json("[" * 1020 + "]" * 1020)


def test_from_json_rejects_what_is_not_text() -> None:
    with pytest.raises(EngineError, match="not_json"):
        Opening.from_json(None)  # type: ignore[arg-type]
    with pytest.raises(EngineError, match="not_json"):
        Opening.from_json({"v": 1})  # type: ignore[arg-type]


def test_text_form() -> None:
    opening = DeckCommitment.commit(FULL_DECK, SEED).open(FULL_DECK, 0)
    assert opening.to_text() == " ".join(("0", "2c", VECTOR_SALT_0, *opening.path))
    assert str(opening) == opening.to_text()
    assert Opening.from_text("\n " + opening.to_text().replace(" ", "\t  ") + " \n") == opening
    position, card, salt, *path = opening.to_text().split()
    for bad in [
        "",
        " ".join((position, card, salt, *path[:-1])),
        " ".join((position, card, salt, *path, path[0])),
        " ".join(("00", card, salt, *path)),
        " ".join(("+0", card, salt, *path)),
        " ".join(("٠", card, salt, *path)),
        " ".join(("64", card, salt, *path)),
        " ".join((position, "2C", salt, *path)),
        " ".join((position, card, salt.upper(), *path)),
        " ".join((position, card, salt, *path[:-1], path[-1][:-1])),
        opening.to_text() + " " * 2000,
    ]:
        with pytest.raises(EngineError) as info:
            Opening.from_text(bad)
        assert info.value.code == "bad_opening"
    with pytest.raises(EngineError, match="bad_opening"):
        Opening.from_text(b"0 2c")  # type: ignore[arg-type]


@given(openings())
def test_forms_round_trip(made: tuple[DeckCommitment, Opening]) -> None:
    _, opening = made
    assert Opening.from_json(opening.to_json()) == opening
    assert Opening.from_text(opening.to_text()) == opening


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"position": 64}, "position"),
        ({"position": True}, "position"),
        ({"card": Card(52)}, "card"),
        ({"card": "As"}, "card"),
        ({"salt_hex": HEX.upper()}, "salt"),
        ({"path": [HEX] * 6}, "path"),
        ({"path": (HEX,) * 5}, "path"),
    ],
)
def test_openings_are_always_well_formed(changes: dict[str, object], reason: str) -> None:
    fields: dict[str, object] = {"position": 0, "card": Card(0), "salt_hex": HEX}
    fields["path"] = (HEX,) * 6
    fields.update(changes)
    with pytest.raises(EngineError) as info:
        Opening(**fields)  # type: ignore[arg-type]
    assert info.value.params == {"reason": reason}


# --- the legacy scheme ------------------------------------------------------------------------

# Made by engine.cards.DeckCommitment before engine.commitment existed: the deck is
# FULL_DECK shuffled by random.Random(2024), the salt the bytes 0..31.
LEGACY_DIGEST = "c01fa37cf6bfc1314d535211fe9499328aaab84c35be21dc4de39925704755e1"


def legacy_deck() -> list[Card]:
    deck = list(FULL_DECK)
    random.Random(2024).shuffle(deck)
    return deck


def test_legacy_digest_made_before_v1_still_verifies() -> None:
    deck = legacy_deck()
    assert LegacyCommitment.verify(deck, SEED.hex(), LEGACY_DIGEST)
    assert LegacyCommitment.commit(deck, SEED) == LegacyCommitment(SEED.hex(), LEGACY_DIGEST)
    assert not LegacyCommitment.verify(deck[::-1], SEED.hex(), LEGACY_DIGEST)


def test_legacy_digest_is_the_documented_hash() -> None:
    deck = shuffled_deck()
    made = LegacyCommitment.commit(deck, SEED)
    text = "".join(format_card(c) for c in deck)
    assert made.salt_hex == SEED.hex()
    assert made.digest_hex == hashlib.sha256(SEED + text.encode()).hexdigest()


def test_legacy_verifies_the_same_deck_only() -> None:
    deck = shuffled_deck()
    made = LegacyCommitment.commit(deck)
    assert len(bytes.fromhex(made.salt_hex)) == 32
    assert LegacyCommitment.verify(list(deck), made.salt_hex, made.digest_hex.upper())
    assert made.matches(deck)
    swapped = (deck[1], deck[0], *deck[2:])
    other = LegacyCommitment.commit(deck)
    assert other.salt_hex != made.salt_hex
    assert not made.matches(swapped)
    assert not LegacyCommitment.verify(deck[:-1], made.salt_hex, made.digest_hex)
    assert not LegacyCommitment.verify(deck, other.salt_hex, made.digest_hex)
    assert not LegacyCommitment.verify(deck, made.salt_hex, other.digest_hex)
    assert not LegacyCommitment.verify(deck, "not hex", made.digest_hex)
    assert not LegacyCommitment.verify(deck, made.salt_hex, "")
    assert not LegacyCommitment.verify(deck, made.salt_hex, "é" * 64)
    assert not LegacyCommitment.verify((Card(99), *deck[1:]), made.salt_hex, made.digest_hex)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.digest_hex = "0" * 64  # type: ignore[misc]


@given(st.permutations(FULL_DECK), st.binary(max_size=40))
def test_legacy_round_trip(deck: list[Card], salt: bytes) -> None:
    made = LegacyCommitment.commit(deck, salt)
    assert LegacyCommitment.verify(deck, made.salt_hex, made.digest_hex)
    assert not LegacyCommitment.verify(deck[::-1], made.salt_hex, made.digest_hex)
