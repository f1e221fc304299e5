"""The game runtime: live tables, their clocks and messages, and recovery after a restart.

- ``manager.GameRuntime``: the database and one runner per open table (``PokerBot.runtime``).
- ``runner.TableRunner``: one table's sequencer; every input for it goes through its lock.
- ``hall.TournamentHall``: the open tournaments, restored and handed over with the leases;
  ``tourney.TournamentRunner``: one tournament under one lock, its tables (``TournamentTable``),
  clock and prizes.
- ``live.LiveTable``: what the playing commands need of a table, cash or tournament;
  ``play``: the rules of a decision both kinds of table share.
- ``clock.DecisionClock``: the time to act, and the time bank.
- ``messenger.TableMessenger``: the table's messages, coalesced, paced and rate limited.
- ``direct``: hole cards and notices by DM (``DmChannels`` caches the channels).
- ``budget.RequestBudget``: the bot's share of Discord's requests a second.
- ``ownership``: which guilds this process serves (shards, database leases).
- ``recovery``: rebuilding tables and hands from storage.
- ``history``: finished hands as stored (``/poker history``, ``verify``, ``replay``).
- ``reports``: the ledger, statistics and leaderboards in words and charts.
- ``rendering``: drawing images off the event loop.
- ``results``: what storage records when a hand ends.
- ``config``: process-wide options (``POKER_*``) and what each table stores about itself.

Nothing is imported here, so modules can import one another's leaves without cycles.
"""
