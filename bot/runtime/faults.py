"""Whose fault a failure is, and how it is logged: one rule for every part of the runtime.

A fault of Discord's or of the database's passes by itself: the table waits, the message stays
owed, and the link (``bot.runtime.link``) and the storage's health (``bot.storage.health``) say
once that it began and once that it ended. Such a failure is a WARNING line with its cause and
no traceback. Anything else is the bot's own error and is logged with its traceback, since
somebody has to fix it.
"""

from __future__ import annotations

import logging

from bot.errors import is_discord_fault
from bot.logs import cause_of
from bot.storage.errors import StorageUnavailable


def outside_fault(error: BaseException) -> bool:
    """Whether ``error`` is Discord's or the database's (it passes by itself).

    >>> outside_fault(StorageUnavailable("connection_lost")), outside_fault(KeyError("x"))
    (True, False)
    """
    return isinstance(error, StorageUnavailable) or is_discord_fault(error)


def log_failure(logger: logging.Logger, error: BaseException, message: str, *args: object) -> None:
    """Log ``message`` (with ``args``) for ``error`` at its due level: a WARNING with its cause
    for a fault that is not the bot's, an ERROR with its traceback for one that is."""
    if outside_fault(error):
        logger.warning(message + " (%s)", *args, cause_of(error))
    else:
        logger.error(message, *args, exc_info=error)


__all__ = ["log_failure", "outside_fault"]
