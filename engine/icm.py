"""What the prizes still unpaid are worth to each player still in: a deal at the final table.

A deal ends a tournament early with prizes the players still in agree on. Two ways are offered:

- **ICM** (the independent chip model, Malmuth–Harville): each player's chance of finishing in
  each place is read from the stacks alone — the chance of finishing first is his share of the
  chips; given who finished above, the chance of the next place is his share of the chips left —
  and his prize is what the unpaid prizes are worth by those chances.
- **Chip chop**: each player is sure of the smallest prize still unpaid among the places the
  players left will take; the rest of the prizes is shared in proportion to the stacks.

The chances are summed over the *sets* of players that finished above, not over every order of
them: a place's chance for a player depends only on which players finished above him, never on
their order among themselves, so ``2^n`` sets replace ``n!`` orders (1,024 sets for ten players
against 3,628,800 orders). Floating point carries the chances; the shares are then rounded to
the chip so that they add up to the prizes exactly: each share rounded down, and the odd chips
left over one each to the larger stacks, the lower seat first between equal stacks.

>>> icm_values([5_000, 3_000, 2_000], [50, 30, 20])  # doctest: +ELLIPSIS
(38.39..., 32.75, 28.85...)
>>> icm_shares([5_000, 3_000, 2_000], [5_000, 3_000, 2_000])
(3840, 3275, 2885)
>>> chip_chop([5_000, 3_000, 2_000], [5_000, 3_000, 2_000])
(4000, 3200, 2800)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.errors import EngineError

# Exact over sets of players up to this many (2^12 sets a place: a few milliseconds).
MAX_PLAYERS = 12


def _check(stacks: Sequence[int], prizes: Sequence[int]) -> None:
    if not 1 <= len(stacks) <= MAX_PLAYERS:
        raise EngineError("bad_deal", field="players", value=len(stacks))
    if any(not isinstance(s, int) or isinstance(s, bool) or s <= 0 for s in stacks):
        raise EngineError("bad_deal", field="stacks", value=repr(list(stacks)))
    if any(not isinstance(p, int) or isinstance(p, bool) or p < 0 for p in prizes):
        raise EngineError("bad_deal", field="prizes", value=repr(list(prizes)))
    if len(prizes) > len(stacks):
        raise EngineError("bad_deal", field="prizes", value=len(prizes))


def place_chances(stacks: Sequence[int]) -> list[list[float]]:
    """``chances[i][k]``: player ``i``'s chance of finishing in place ``k + 1`` (Malmuth–Harville).

    >>> [round(c, 3) for c in place_chances([2, 1, 1])[0]]
    [0.5, 0.333, 0.167]
    """
    n = len(stacks)
    total = sum(stacks)
    chances = [[0.0] * n for _ in range(n)]
    # reach[S]: the chance that the players of set S (a bit mask) took the top |S| places.
    reach = [0.0] * (1 << n)
    reach[0] = 1.0
    taken = [0] * (1 << n)  # the chips of set S
    for s in range(1, 1 << n):
        low = s & -s
        taken[s] = taken[s ^ low] + stacks[low.bit_length() - 1]
    for s in range(1 << n):
        chance = reach[s]
        if chance == 0.0:
            continue
        left = total - taken[s]
        if left <= 0:
            continue
        place = bin(s).count("1")
        for i in range(n):
            bit = 1 << i
            if s & bit:
                continue
            step = chance * stacks[i] / left
            chances[i][place] += step
            reach[s | bit] += step
    return chances


def icm_values(stacks: Sequence[int], prizes: Sequence[int]) -> tuple[float, ...]:
    """What ``prizes`` (the unpaid prizes, first place first) are worth to each stack by ICM."""
    _check(stacks, prizes)
    chances = place_chances(stacks)
    return tuple(sum(p * c for p, c in zip(prizes, row, strict=False)) for row in chances)


def _rounded(values: Sequence[float], stacks: Sequence[int], total: int) -> tuple[int, ...]:
    """``values`` to whole chips adding up to ``total``: each rounded down, then the odd chips
    one each to the larger stacks (the lower seat first between equal stacks)."""
    floors = []
    for value in values:
        near = round(value)
        # A value a rounding error away from a whole chip is that chip.
        floors.append(near if abs(value - near) <= 1e-9 * max(1.0, abs(value))
                      else math.floor(value))
    larger_first = sorted(range(len(values)), key=lambda i: (-stacks[i], i))
    left = total - sum(floors)
    while left < 0:  # floating point left a whole a chip over: the smallest stack gives it
        floors[larger_first[left]] -= 1
        left += 1
    for i in larger_first[:left]:
        floors[i] += 1
    return tuple(floors)


def icm_shares(stacks: Sequence[int], prizes: Sequence[int]) -> tuple[int, ...]:
    """Each player's prize in a deal by ICM, in whole chips adding up to ``prizes``."""
    return _rounded(icm_values(stacks, prizes), stacks, sum(prizes))


def chip_chop(stacks: Sequence[int], prizes: Sequence[int]) -> tuple[int, ...]:
    """Each player's prize in a chip chop: the smallest unpaid prize among the places the
    players take, sure; the rest shared by chips; whole chips adding up to ``prizes``."""
    _check(stacks, prizes)
    paid = list(prizes) + [0] * (len(stacks) - len(prizes))
    floor = min(paid)
    rest = sum(paid) - floor * len(stacks)
    chips = sum(stacks)
    shares = [floor + rest * s / chips for s in stacks]
    return _rounded(shares, stacks, sum(prizes))


__all__ = ["MAX_PLAYERS", "chip_chop", "icm_shares", "icm_values", "place_chances"]
