"""Coded errors: the one exception shape every layer of the project refuses input with.

A refusal carries a stable ``code`` and the ``params`` a message needs, never prose: the bot
turns ``code`` into a sentence in the reader's language (one catalog key, ``error.<code>``, per
meaning, whichever layer refused). Each layer has its own subclass so callers can tell where a
refusal came from, but they share this base, so nothing needs to handle three look-alikes.
"""

from __future__ import annotations


class CodedError(Exception):
    """A refusal: a stable reason ``code`` plus the ``params`` a message needs.

    Params never carry hole cards or secrets: they may be logged and shown.

    >>> e = CodedError("not_your_turn", player=2, to_act=3)
    >>> e.code, e.params["to_act"]
    ('not_your_turn', 3)
    >>> str(e)
    'not_your_turn: player=2, to_act=3'
    """

    def __init__(self, code: str, /, **params: object) -> None:
        self.code = code
        self.params: dict[str, object] = params
        detail = ", ".join(f"{key}={value!r}" for key, value in params.items())
        super().__init__(f"{code}: {detail}" if detail else code)

    @property
    def internal(self) -> bool:
        """True when the refusal means a bug or damaged data rather than a user's mistake:
        the user is told something went wrong, and the operator gets the traceback."""
        return False


class EngineError(CodedError):
    """Illegal input to the rules engine; it changed nothing.

    >>> e = EngineError("not_your_turn", player=2, to_act=3)
    >>> isinstance(e, CodedError), e.code
    (True, 'not_your_turn')
    """
