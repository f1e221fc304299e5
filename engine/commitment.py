"""Deck commitments that can be opened one position at a time.

Before a hand the server publishes ``root_hex``, the root of a Merkle tree over the deck order.
After the hand it opens only the positions everybody saw (the board dealt and the hole cards of
players who showed); each :class:`Opening` proves its card was fixed before the deal and says
nothing about any other position, so folded and mucked hands stay secret.

Scheme v1 (every hash is SHA-256; ``||`` is concatenation; ``i`` is one byte, 0..63)::

    seed       32 random bytes, kept by the server and never published
    salt_i     = HMAC-SHA256(key=seed, msg=b"deck-salt" || i)                        32 bytes
    leaf_i     = SHA256(0x00 || salt_i || i || card_text_i)                 for i < len(deck)
    leaf_i     = 32 zero bytes (padding)                                    for len(deck) <= i < 64
    node       = SHA256(0x01 || left || right)
    root       = the node over all 64 leaves (6 levels); root_hex is its lowercase hex

``card_text_i`` is the two ASCII bytes of :func:`engine.cards.format_card` (``b"As"``, ``b"Td"``).
Deck position ``i`` is index ``i`` of the order the hand deals from (burns count): hole cards go
one at a time round the table from player 0, once per hole card of the game (Hold'em twice:
player ``p`` of ``n`` holds positions ``p`` and ``p + n``; Omaha four or five times: ``p``,
``p + n``, ``p + 2n``, ``p + 3n`` and ``p + 4n``), then the board at
:func:`engine.hand.board_positions`. The functions that name positions take the game's
``hole_count`` (2 unless given), so an Omaha player's openings prove all four or five cards.
The opening of position ``i`` is ``(i, card, salt_i, path)`` where ``path`` lists the 6 sibling
hashes from the leaf's sibling up to the root's children: at level ``k`` the running hash is the
right child when bit ``k`` of ``i`` is 1.

The 0x00/0x01 prefixes keep a leaf from passing as a node; the zero padding leaf is no SHA-256
output anyone can produce, so padding positions cannot be opened; a checker must take exactly 6
path hashes, or a root made over two trees could open one position two ways. HMAC is one-way:
``salt_i`` gives away neither the seed nor any other salt, and without its salt a leaf hides its
card. The full specification, with a test vector and a stand-alone checker, is docs/verify.md.

>>> from engine.cards import FULL_DECK, format_card
>>> deck = FULL_DECK[::-1]                       # As Ah Ad Ac Ks ...
>>> c = DeckCommitment.commit(deck, bytes(32))
>>> c.matches(deck), c.matches(deck[1:])
(True, False)
>>> o = c.open(deck, 3)
>>> o.position, format_card(o.card), len(o.path), o.verify(c.root_hex)
(3, 'Ac', 6, True)
>>> Opening.from_text(o.to_text()) == o == Opening.from_json(o.to_json())
True
>>> seen_positions(6, 3, ())                     # everyone folded on the flop
(13, 14, 15)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from engine.cards import FULL_DECK, Card, format_card
from engine.errors import EngineError
from engine.hand import board_positions, second_run_positions
from engine.limits import MAX_SEATS

__all__ = [
    "PADDING_LEAF",
    "SEED_BYTES",
    "TREE_DEPTH",
    "TREE_LEAVES",
    "DeckCommitment",
    "LegacyCommitment",
    "Opening",
    "hole_positions",
    "seen_positions",
]

TREE_DEPTH: Final = 6
TREE_LEAVES: Final = 1 << TREE_DEPTH
"""Leaves of every tree: 64, so positions fit one byte and the path length never varies."""
SEED_BYTES: Final = 32
PADDING_LEAF: Final = bytes(32)
"""The leaf of every position past the end of the deck."""

_LEAF_TAG: Final = b"\x00"
_NODE_TAG: Final = b"\x01"
_SALT_LABEL: Final = b"deck-salt"
_BLOCK: Final = 64  # SHA-256's block size, for HMAC's pads
_IPAD: Final = bytes(b ^ 0x36 for b in range(256))  # bytes.translate tables: key XOR 0x36/0x5c
_OPAD: Final = bytes(b ^ 0x5C for b in range(256))
_HEX32: Final = re.compile("[0-9a-f]{64}")
_OPENING_VERSION: Final = 1
_MAX_OPENING_CHARS: Final = 2048  # a real opening is ~560 characters of JSON

# Immutable lookup tables, so the hot loop is a few tuple hits per hash.
_POSITION: Final[tuple[bytes, ...]] = tuple(bytes((i,)) for i in range(TREE_LEAVES))
_SALT_MESSAGE: Final[tuple[bytes, ...]] = tuple(_SALT_LABEL + b for b in _POSITION)
_CARD_TEXT: Final[tuple[bytes, ...]] = tuple(format_card(c).encode("ascii") for c in FULL_DECK)
_CARD_OF_TEXT: Final[dict[str, Card]] = {format_card(c): c for c in FULL_DECK}


# --- hashing ------------------------------------------------------------------------------


def _salts(seed: bytes, count: int) -> list[bytes]:
    """``salt_i = HMAC-SHA256(seed, b"deck-salt" || i)`` for ``i < count``.

    RFC 2104 spelled out so the keyed pads are hashed once per deck rather than once per
    position (``hmac.digest`` redoes them each call, which was two thirds of a commitment's
    cost). The seed is 32 bytes, shorter than SHA-256's 64-byte block, so it is only padded.
    """
    key = seed.ljust(_BLOCK, b"\0")
    inner, outer = hashlib.sha256(key.translate(_IPAD)), hashlib.sha256(key.translate(_OPAD))
    salts = []
    for message in _SALT_MESSAGE[:count]:
        h = inner.copy()
        h.update(message)
        o = outer.copy()
        o.update(h.digest())
        salts.append(o.digest())
    return salts


def _leaf(position: int, card: int, salt: bytes) -> bytes:
    return hashlib.sha256(_LEAF_TAG + salt + _POSITION[position] + _CARD_TEXT[card]).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(_NODE_TAG + left + right).digest()


def _padding_nodes() -> tuple[bytes, ...]:
    nodes = [PADDING_LEAF]
    for _ in range(TREE_DEPTH):
        nodes.append(_node(nodes[-1], nodes[-1]))
    return tuple(nodes)


# The node over 2**k padding leaves, by level k: subtrees past the deck's end need no hashing.
_PADDING_NODES: Final[tuple[bytes, ...]] = _padding_nodes()


def _levels(deck: Sequence[int], salts: Sequence[bytes]) -> list[list[bytes]]:
    """Every level of the tree, leaves first, root last (``levels[-1] == [root]``)."""
    sha256 = hashlib.sha256
    level = [
        sha256(_LEAF_TAG + salt + _POSITION[i] + _CARD_TEXT[card]).digest()
        for i, (card, salt) in enumerate(zip(deck, salts, strict=True))
    ]
    level.extend([PADDING_LEAF] * (TREE_LEAVES - len(level)))
    levels = [level]
    for k in range(1, TREE_DEPTH + 1):
        width, real = TREE_LEAVES >> k, (len(deck) + (1 << k) - 1) >> k
        below = level
        level = [sha256(_NODE_TAG + below[2 * j] + below[2 * j + 1]).digest() for j in range(real)]
        level.extend([_PADDING_NODES[k]] * (width - real))
        levels.append(level)
    return levels


def _root(deck: Sequence[int], seed: bytes) -> str:
    return _levels(deck, _salts(seed, len(deck)))[-1][0].hex()


def _root_from_path(position: int, leaf: bytes, path: Iterable[bytes]) -> bytes:
    node = leaf
    for level, sibling in enumerate(path):
        pair = sibling + node if (position >> level) & 1 else node + sibling
        node = hashlib.sha256(_NODE_TAG + pair).digest()
    return node


# --- validation ---------------------------------------------------------------------------


def _is_hex32(text: object) -> bool:
    """True for exactly 64 lowercase hex digits, the one spelling a hash or salt has here."""
    return isinstance(text, str) and _HEX32.fullmatch(text) is not None


def _checked_deck(deck: Sequence[Card]) -> tuple[Card, ...]:
    cards = tuple(deck)
    if not 1 <= len(cards) <= len(FULL_DECK):
        raise EngineError("bad_deck", reason="size", size=len(cards))
    if not all(type(c) is int and 0 <= c < 52 for c in cards):
        raise EngineError("bad_deck", reason="bad_card")
    if len(set(cards)) != len(cards):
        raise EngineError("bad_deck", reason="duplicate_card")
    return cards


def _checked_seed(seed: object) -> bytes:
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        size = len(seed) if isinstance(seed, bytes) else None
        raise EngineError("bad_commitment", field="seed", size=size)
    return seed


# --- openings -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opening:
    """Proof that deck ``position`` held ``card`` in the deck committed to by a root.

    Every instance is well formed (``position`` 0..63, a card, 64-hex-digit lowercase salt and
    six path hashes); whether it is *true* is what :meth:`verify` answers. The text form is
    ``"POSITION CARD SALT PATH1 ... PATH6"``, one line a player can paste into the checker of
    ``docs/verify.md``; the JSON form is ``{"v": 1, "position", "card", "salt", "path"}``.

    >>> Opening(64, Card(0), "00" * 32, ("00" * 32,) * 6)
    Traceback (most recent call last):
    ...
    engine.errors.EngineError: bad_opening: reason='position'
    """

    position: int
    card: Card
    salt_hex: str
    path: tuple[str, ...]

    def __post_init__(self) -> None:
        if not (type(self.position) is int and 0 <= self.position < TREE_LEAVES):
            raise EngineError("bad_opening", reason="position")
        if not (type(self.card) is int and 0 <= self.card < 52):
            raise EngineError("bad_opening", reason="card")
        if not _is_hex32(self.salt_hex):
            raise EngineError("bad_opening", reason="salt")
        if not (
            type(self.path) is tuple
            and len(self.path) == TREE_DEPTH
            and all(_is_hex32(h) for h in self.path)
        ):
            raise EngineError("bad_opening", reason="path")

    def root_hex(self) -> str:
        """The root this opening leads to: it verifies against that root and no other."""
        leaf = _leaf(self.position, self.card, bytes.fromhex(self.salt_hex))
        return _root_from_path(self.position, leaf, map(bytes.fromhex, self.path)).hex()

    def verify(self, root_hex: str) -> bool:
        """True when this opening proves its card against the published ``root_hex``.

        Upper-case hex is accepted for the root; anything that is not 64 hex digits is False.
        """
        if not (isinstance(root_hex, str) and _is_hex32(root_hex.lower())):
            return False
        return hmac.compare_digest(self.root_hex(), root_hex.lower())

    # -- text form ---------------------------------------------------------------------------

    def to_text(self) -> str:
        """One line: ``"POSITION CARD SALT PATH1 ... PATH6"``, separated by single spaces."""
        return " ".join((str(self.position), format_card(self.card), self.salt_hex, *self.path))

    def __str__(self) -> str:
        return self.to_text()

    @classmethod
    def from_text(cls, text: str) -> Opening:
        """Parse :meth:`to_text` output; any other text raises ``EngineError("bad_opening")``.

        Surrounding whitespace and runs of whitespace between the fields are allowed.
        """
        if not isinstance(text, str) or len(text) > _MAX_OPENING_CHARS:
            raise EngineError("bad_opening", reason="text")
        fields = text.split()
        if len(fields) != 3 + TREE_DEPTH:
            raise EngineError("bad_opening", reason="fields")
        position, card, salt, *path = fields
        return cls(_parse_position(position), _parse_card(card), salt, tuple(path))

    # -- JSON form ---------------------------------------------------------------------------

    def to_json(self) -> str:
        """Compact JSON, stable key order.

        >>> o = Opening(0, Card(51), "ab" * 32, ("cd" * 32,) * 6)
        >>> o.to_json()[:40]
        '{"v":1,"position":0,"card":"As","salt":"'
        """
        return json.dumps(
            {
                "v": _OPENING_VERSION,
                "position": self.position,
                "card": format_card(self.card),
                "salt": self.salt_hex,
                "path": list(self.path),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Opening:
        """Parse :meth:`to_json` output strictly.

        Raises ``EngineError("bad_opening", reason=...)`` for text that is not JSON
        (``not_json``), not an object with exactly the five keys (``fields``), another version
        (``version``), or a bad ``position``, ``card``, ``salt`` or ``path``.

        >>> Opening.from_json('{"v": 1}')
        Traceback (most recent call last):
        ...
        engine.errors.EngineError: bad_opening: reason='fields'
        """
        if not isinstance(text, str | bytes) or len(text) > _MAX_OPENING_CHARS:
            raise EngineError("bad_opening", reason="not_json")
        try:
            data = json.loads(text, object_pairs_hook=_unique_keys)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError
            raise EngineError("bad_opening", reason="not_json") from exc
        if not isinstance(data, dict) or set(data) != {"v", "position", "card", "salt", "path"}:
            raise EngineError("bad_opening", reason="fields")
        if type(data["v"]) is not int or data["v"] != _OPENING_VERSION:
            raise EngineError("bad_opening", reason="version")
        position, card, path = data["position"], data["card"], data["path"]
        if type(position) is not int:
            raise EngineError("bad_opening", reason="position")
        if not isinstance(card, str):
            raise EngineError("bad_opening", reason="card")
        if not isinstance(path, list):
            raise EngineError("bad_opening", reason="path")
        return cls(position, _parse_card(card), data["salt"], tuple(path))


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        raise ValueError("duplicate key")
    return data


def _parse_position(text: str) -> int:
    # Canonical ASCII decimal only: int() would also take "+3", "03", "3_0" and "٣".
    if not (text.isascii() and text.isdigit() and str(int(text)) == text):
        raise EngineError("bad_opening", reason="position")
    return int(text)


def _parse_card(text: str) -> Card:
    # Only the exact text that was hashed: "As", never "as", "A♠" or "10s".
    card = _CARD_OF_TEXT.get(text)
    if card is None:
        raise EngineError("bad_opening", reason="card")
    return card


# --- the commitment -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeckCommitment:
    """A Merkle commitment to a deck order: ``root_hex`` is public, ``seed_hex`` is the secret.

    Post ``root_hex`` before the deal and store ``seed_hex`` (never publish it; ``repr`` leaves it
    out). After the hand, :meth:`open_many` the :func:`seen_positions` and publish the openings.

    >>> from engine.cards import shuffled_deck
    >>> deck = shuffled_deck()
    >>> c = DeckCommitment.commit(deck)
    >>> DeckCommitment.verify(deck, c.seed_hex, c.root_hex), c.matches(deck[::-1])
    (True, False)
    >>> "seed" in repr(c)
    False
    >>> openings = c.open_many(deck, seen_positions(2, 5, [1]))
    >>> [o.position for o in openings], all(o.verify(c.root_hex) for o in openings)
    ([1, 3, 5, 6, 7, 9, 11], True)
    """

    root_hex: str
    seed_hex: str = field(repr=False)

    def __post_init__(self) -> None:
        if not _is_hex32(self.root_hex):
            raise EngineError("bad_commitment", field="root")
        if not _is_hex32(self.seed_hex):
            raise EngineError("bad_commitment", field="seed")

    @classmethod
    def commit(cls, deck: Sequence[Card], seed: bytes | None = None) -> DeckCommitment:
        """Commit to ``deck`` (1..52 distinct cards); a 32-byte seed is drawn when none is given.

        A given ``seed`` must be exactly 32 bytes and must come from a secure generator outside
        tests: anyone who can guess it can read every unopened card.
        """
        cards = _checked_deck(deck)
        key = secrets.token_bytes(SEED_BYTES) if seed is None else _checked_seed(seed)
        return cls(_root(cards, key), key.hex())

    @staticmethod
    def verify(deck: Sequence[Card], seed_hex: str, root_hex: str) -> bool:
        """True when ``deck`` and ``seed_hex`` give ``root_hex``; malformed input gives False.

        This is the server's full check (it needs the secret seed); players check openings.
        """
        try:
            cards = _checked_deck(deck)
            if not (_is_hex32(seed_hex) and isinstance(root_hex, str)):
                return False
            root = _root(cards, bytes.fromhex(seed_hex))
        except (EngineError, TypeError, ValueError):
            return False
        return root_hex.isascii() and hmac.compare_digest(root, root_hex.lower())

    def matches(self, deck: Sequence[Card]) -> bool:
        """True when ``deck`` is the order this commitment was made for."""
        return DeckCommitment.verify(deck, self.seed_hex, self.root_hex)

    def open(self, deck: Sequence[Card], position: int) -> Opening:
        """The opening of one deck ``position`` (raises like :meth:`open_many`)."""
        return self.open_many(deck, (position,))[0]

    def open_many(self, deck: Sequence[Card], positions: Iterable[int]) -> tuple[Opening, ...]:
        """Openings of ``positions``, in the order given, from one pass over the tree.

        Raises ``EngineError("bad_deck", reason="not_committed")`` when ``deck`` is not the
        committed order, and ``EngineError("bad_opening", reason="position")`` for a position
        outside the deck.
        """
        cards = _checked_deck(deck)
        salts = _salts(bytes.fromhex(self.seed_hex), len(cards))
        levels = _levels(cards, salts)
        if not hmac.compare_digest(levels[-1][0].hex(), self.root_hex):
            raise EngineError("bad_deck", reason="not_committed")
        openings: list[Opening] = []
        for p in positions:
            if not (type(p) is int and 0 <= p < len(cards)):
                raise EngineError("bad_opening", reason="position", position=repr(p))
            path = tuple(levels[k][(p >> k) ^ 1].hex() for k in range(TREE_DEPTH))
            openings.append(Opening(p, cards[p], salts[p].hex(), path))
        return tuple(openings)


# --- which positions to open --------------------------------------------------------------


def _check_players(players: int, hole_count: int) -> None:
    if not (type(hole_count) is int and 2 <= hole_count <= 5):
        raise EngineError("bad_config", field="hole_count", value=repr(hole_count))
    if not (type(players) is int and 2 <= players <= MAX_SEATS):
        raise EngineError("bad_config", field="players", value=repr(players))
    if players * hole_count + 5 > len(FULL_DECK):
        raise EngineError("bad_config", field="players", value=players, hole_count=hole_count)


def hole_positions(players: int, index: int, hole_count: int = 2) -> tuple[int, ...]:
    """Deck positions of the ``hole_count`` hole cards of player ``index`` (0-based) among
    ``players``: ``index + k * players`` for each ``k`` below ``hole_count``.

    >>> hole_positions(6, 0), hole_positions(6, 5), hole_positions(6, 5, hole_count=4)
    ((0, 6), (5, 11), (5, 11, 17, 23))
    """
    _check_players(players, hole_count)
    if not (type(index) is int and 0 <= index < players):
        raise EngineError("bad_player", player=repr(index))
    return tuple(range(index, hole_count * players, players))


def seen_positions(
    players: int,
    board_count: int,
    shown: Iterable[int],
    *,
    second_run_from: int | None = None,
    hole_count: int = 2,
) -> tuple[int, ...]:
    """Positions everybody saw: the first ``board_count`` board cards and the hole cards of the
    ``shown`` players, in deck order. Burns and unshown hands are never included.
    ``hole_count`` is the game's (``hand.game.hole_count``).

    A board run twice (``Hand.second_run_from`` is the board count both runs share) adds the
    second run's cards (:func:`engine.hand.second_run_positions`). After a rabbit hunt
    (:mod:`engine.rabbit`) everybody saw the whole board: pass ``board_count=5``.

    >>> seen_positions(6, 5, [0, 3])                 # showdown, players 0 and 3 show
    (0, 3, 6, 9, 13, 14, 15, 17, 19)
    >>> seen_positions(6, 5, [0, 3], second_run_from=3)   # all-in on the flop, run twice
    (0, 3, 6, 9, 13, 14, 15, 17, 19, 21, 23)
    >>> seen_positions(3, 3, [1], hole_count=4)           # Omaha: four cards, board from 12
    (1, 4, 7, 10, 13, 14, 15)
    """
    _check_players(players, hole_count)
    if not (type(board_count) is int and 0 <= board_count <= 5):
        raise EngineError("bad_config", field="board_count", value=repr(board_count))
    seen = set(board_positions(players, hole_count)[:board_count])
    if second_run_from is not None:
        if board_count != 5 or second_run_from not in (0, 3, 4):
            raise EngineError("bad_config", field="second_run_from", value=repr(second_run_from))
        seen.update(second_run_positions(players, second_run_from, hole_count))
    for index in shown:
        seen.update(hole_positions(players, index, hole_count))
    return tuple(sorted(seen))


# --- the previous scheme ------------------------------------------------------------------


def _legacy_digest(deck: Iterable[Card], salt: bytes) -> str:
    text = "".join(map(format_card, deck))
    return hashlib.sha256(salt + text.encode("ascii")).hexdigest()


@dataclass(frozen=True, slots=True)
class LegacyCommitment:
    """The scheme before v1: one hash of the whole deck, checked by revealing all of it.

    ``digest_hex = sha256(salt + "".join(format_card(c) for c in deck)).hexdigest()``. Kept so
    hands committed that way can still be checked; opening it shows every card, folded hands
    included, so new hands use :class:`DeckCommitment`.

    >>> from engine.cards import shuffled_deck
    >>> deck = shuffled_deck()
    >>> c = LegacyCommitment.commit(deck)
    >>> LegacyCommitment.verify(deck, c.salt_hex, c.digest_hex), c.matches(deck[::-1])
    (True, False)
    """

    salt_hex: str
    digest_hex: str

    @classmethod
    def commit(cls, deck: Sequence[Card], salt: bytes | None = None) -> LegacyCommitment:
        """Commit to ``deck``; a 32-byte random salt is drawn when none is given."""
        if salt is None:
            salt = secrets.token_bytes(32)
        return cls(salt.hex(), _legacy_digest(deck, salt))

    @staticmethod
    def verify(deck: Sequence[Card], salt_hex: str, digest_hex: str) -> bool:
        """True when ``deck`` is the order committed to as (``salt_hex``, ``digest_hex``).

        Malformed hex or cards give False rather than an error: a bad commitment is simply one
        that does not verify.
        """
        try:
            salt = bytes.fromhex(salt_hex)
            expected = _legacy_digest(deck, salt)
        except (ValueError, TypeError, EngineError):
            return False
        # compare_digest needs ASCII on both sides; anything else cannot match anyway.
        if not (isinstance(digest_hex, str) and digest_hex.isascii()):
            return False
        return hmac.compare_digest(expected, digest_hex.lower())

    def matches(self, deck: Sequence[Card]) -> bool:
        """True when ``deck`` is the order this commitment was made for."""
        return LegacyCommitment.verify(deck, self.salt_hex, self.digest_hex)
