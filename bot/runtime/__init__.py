"""The game runtime: live tables, their clocks and messages, and recovery after a restart.

- ``manager.GameRuntime``: the database and every open venue (``PokerBot.runtime``): cash
  tables and tournaments, restored and handed over with the leases by one loop.
- ``registry.Registry``: the one registry of live tables, by id and by channel or thread.
- ``table.LiveTable``: the hand loop every kind of table shares, written once; ``TableKind``
  declares what differs between the kinds (``CASH``, ``TOURNAMENT``).
- ``cash.CashTable``: a cash table, one owner of the loop, with the buy-ins, the floor and
  the home game's extras.
- ``tourney.LiveTournament``: one tournament under one lock, its clock and prizes; its tables
  (``TournamentTable``) are the loop's other owner.
- ``play``: the rules of one decision (whose hand, which decision, a double click).
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
