"""The game runtime: live tables, their clocks and messages, and recovery after a restart.

- ``manager.GameRuntime``: the database and one runner per open table (``PokerBot.storage``).
- ``runner.TableRunner``: one table; every input for it goes through its lock.
- ``messenger.TableMessenger``: the table's messages, coalesced and rate limited.
- ``dealer``: hole cards by DM.
- ``recovery``: rebuilding tables and hands from storage.
- ``results``: what storage records when a hand ends.
- ``config``: process-wide options (``POKER_*``) and what each table stores about itself.

Nothing is imported here, so modules can import one another's leaves without cycles.
"""
