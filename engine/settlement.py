"""Who pays whom: the fewest transfers that settle a session's nets.

At the end of a night each player has a net (chips won, or lost when negative) and the nets add
up to zero. Clubs that play for IOUs settle them with transfers from losers to winners; this
module gives a list of transfers that brings every net to zero exactly, with as few transfers as
possible.

**Why the fewest is hard.** Transfers between players join them into groups (a payer and his
payee are in one group); the nets of a group add up to zero, and a group of ``k`` players needs
at least ``k - 1`` transfers. So the fewest transfers for ``n`` players with a non-zero net is
``n`` minus the largest number of groups they can be split into with each group's nets adding
up to zero. Finding that split is NP-hard in general (it contains the subset-sum problem), but a
session has few players.

**How it is found.** Players with a net of zero take no part. A player owed exactly what another
owes is paired with him: some best split always holds that pair as a group. For the others, up
to :data:`EXACT_LIMIT` of them, the best split is found exactly by a count over the subsets of
players (``2 ** n`` subsets, a second or less for twenty in numpy: for each subset, the most
groups adding up to zero an order of its players can close one after the other). Above that
limit the rest are settled as one group by the rule below: every net is still settled exactly,
with at most one transfer fewer than players, though not always the fewest.

**Always the same answer.** The same nets always give the same transfers, whatever order they
come in. Players are ordered by their key (a user id, a name: anything that sorts):

1. a pair of opposite nets: for each amount, the first creditor by key with the first debtor by
   key, then the second with the second, and so on;
2. the best split: groups are taken one after the other, each the group holding the first
   player left (by key) whose players, read as a binary number with the first player by key as
   its lowest bit, make the smallest number among the groups that leave the rest splittable
   into the most groups;
3. inside a group: the largest debt left is paid to the largest credit left (ties to the first
   by key), as much as the smaller of the two, until every net is zero: ``k - 1`` transfers for
   ``k`` players, since no part of a group of the best split adds up to zero;
4. the transfers are listed by payer, then payee.

>>> settle({"ann": 30, "bob": -10, "cy": -20, "dee": 5, "eve": -5})
[Transfer(payer='bob', payee='ann', amount=10), Transfer(payer='cy', payee='ann', amount=20), \
Transfer(payer='eve', payee='dee', amount=5)]
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from engine.errors import EngineError

__all__ = ["EXACT_LIMIT", "Transfer", "settle"]

EXACT_LIMIT: Final = 20
"""The most players (with a non-zero net, not paired with an opposite) settled exactly."""


class _Key(Hashable, Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


K = TypeVar("K", bound=_Key)


@dataclass(frozen=True, slots=True)
class Transfer(Generic[K]):
    """``payer`` gives ``payee`` ``amount`` chips (always more than zero)."""

    payer: K
    payee: K
    amount: int


def settle(nets: Mapping[K, int]) -> list[Transfer[K]]:
    """Transfers that bring every net of ``nets`` (player to net, adding up to zero) to zero,
    as few as the module doc says, always the same for the same nets.

    Raises ``EngineError("bad_nets", ...)`` when a net is not a whole number or the nets do not
    add up to zero.
    """
    for net in nets.values():
        if type(net) is not int:
            raise EngineError("bad_nets", reason="not_integer", value=repr(net))
    total = sum(nets.values())
    if total:
        raise EngineError("bad_nets", reason="sum_not_zero", total=total)
    players = sorted(p for p, net in nets.items() if net)
    groups, rest = _opposite_pairs(players, nets)
    if len(rest) <= EXACT_LIMIT:
        groups += _best_split(rest, nets)
    else:
        groups.append(rest)
    transfers = [t for group in groups for t in _settle_group(group, nets)]
    transfers.sort(key=lambda t: (t.payer, t.payee))
    return transfers


def _opposite_pairs(players: list[K], nets: Mapping[K, int]) -> tuple[list[list[K]], list[K]]:
    """Pairs of players owed and owing the same amount (rule 1), and the players left."""
    owed: defaultdict[int, list[K]] = defaultdict(list)
    owing: defaultdict[int, list[K]] = defaultdict(list)
    for p in players:
        (owed if nets[p] > 0 else owing)[abs(nets[p])].append(p)
    pairs: list[list[K]] = []
    paired: set[K] = set()
    for amount, creditors in owed.items():
        for creditor, debtor in zip(creditors, owing.get(amount, ()), strict=False):
            pairs.append([creditor, debtor])
            paired.update((creditor, debtor))
    return pairs, [p for p in players if p not in paired]


def _best_split(players: Sequence[K], nets: Mapping[K, int]) -> list[list[K]]:
    """The most groups of ``players`` (in key order) whose nets add up to zero (rule 2)."""
    n = len(players)
    if n == 0:
        return []
    zero, most = _most_groups([nets[p] for p in players])
    masks = np.arange(1 << n, dtype=np.int64)
    groups: list[list[K]] = []
    left = (1 << n) - 1
    while left:
        first = left & -left
        # The groups holding the first player left that leave the most groups for the rest.
        fits = (
            ((masks & ~left) == 0)
            & ((masks & first) != 0)
            & zero
            & (most[left ^ masks] == most[left] - 1)
        )
        group = int(np.flatnonzero(fits)[0])
        groups.append([players[i] for i in range(n) if group >> i & 1])
        left ^= group
    return groups


def _most_groups(values: Sequence[int]) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int8]]:
    """For each subset of ``values`` (bit ``i`` for ``values[i]``): whether it adds up to zero,
    and the most groups adding up to zero that an order of its values closes one after the
    other: for a subset adding up to zero, the most groups it splits into.

    Subsets are counted by size, each from the subsets one value smaller: ``most[s]`` is the
    largest ``most`` of ``s`` less one value, plus one when ``s`` adds up to zero.
    """
    n = len(values)
    sums = np.zeros(1 << n, dtype=np.int64)
    for i, value in enumerate(values):
        sums[1 << i : 2 << i] = sums[: 1 << i] + value
    zero = sums == 0
    masks = np.arange(1 << n, dtype=np.int64)
    sizes = np.zeros(1 << n, dtype=np.int8)
    for i in range(n):
        sizes[1 << i : 2 << i] = sizes[: 1 << i] + 1
    most = np.zeros(1 << n, dtype=np.int8)
    by_size = np.argsort(sizes, kind="stable")
    bounds = np.searchsorted(sizes[by_size], np.arange(n + 2))
    for size in range(1, n + 1):
        layer = masks[by_size[bounds[size] : bounds[size + 1]]]
        best = np.zeros(len(layer), dtype=np.int8)
        for i in range(n):
            bit = np.int64(1) << i
            has = (layer & bit) != 0
            np.maximum(best, np.where(has, most[layer & ~bit], 0), out=best)
        most[layer] = best + zero[layer]
    return zero, most


def _settle_group(group: Sequence[K], nets: Mapping[K, int]) -> list[Transfer[K]]:
    """Rule 3: the largest debt left to the largest credit left, ties to the first by key."""
    # Heaps of (-amount, order, player): the largest first, then the first by key.
    order = {p: i for i, p in enumerate(sorted(group))}
    creditors = [(-nets[p], order[p], p) for p in group if nets[p] > 0]
    debtors = [(nets[p], order[p], p) for p in group if nets[p] < 0]
    heapq.heapify(creditors)
    heapq.heapify(debtors)
    transfers: list[Transfer[K]] = []
    while creditors:
        credit, c_order, creditor = heapq.heappop(creditors)
        debt, d_order, debtor = heapq.heappop(debtors)
        amount = min(-credit, -debt)
        transfers.append(Transfer(debtor, creditor, amount))
        if -credit > amount:
            heapq.heappush(creditors, (credit + amount, c_order, creditor))
        if -debt > amount:
            heapq.heappush(debtors, (debt + amount, d_order, debtor))
    return transfers
