"""One way the engine's tests play a hand out: the named players move all in (or call, or
check, once all in), everyone else folds to a bet and checks when he may."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from engine.hand import Hand


def shove_out(hand: Hand, order: Sequence[object], shovers: Collection[object]) -> None:
    """Play ``hand`` to its end; ``order[i]`` is the player in position ``i``."""
    while not hand.is_over:
        legal = hand.legal()
        assert legal is not None
        i = legal.player
        if order[i] in shovers:
            if legal.can_raise:
                hand.go_all_in(i)
            elif legal.to_call:
                hand.call(i)
            else:
                hand.check(i)
        elif legal.to_call:
            hand.fold(i)
        else:
            hand.check(i)
