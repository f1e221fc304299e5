"""The one exception type the engine raises for bad input."""

from __future__ import annotations


class EngineError(Exception):
    """Illegal input: a stable reason ``code`` plus the ``params`` a message needs.

    The bot turns ``code`` and ``params`` into a sentence in the player's language, so the code
    never changes meaning and the params never carry hole cards.

    >>> e = EngineError("not_your_turn", player=2, to_act=3)
    >>> e.code, e.params["to_act"]
    ('not_your_turn', 3)
    >>> str(e)
    'not_your_turn: player=2, to_act=3'
    """

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params: dict[str, object] = params
        detail = ", ".join(f"{key}={value!r}" for key, value in params.items())
        super().__init__(f"{code}: {detail}" if detail else code)
