"""The game runtime: live tables, their clocks and messages, and recovery after a restart.

- ``manager.GameRuntime``: the database and what is server-wide (``PokerBot.runtime``):
  opening tables and tournaments within a server's limits, idle tables, languages.
- ``registry.Registry``: the one registry of live tables and venues, and the lookups commands
  and buttons use (by id, by channel, cash only).
- ``venues.Venues``: start-up and recovery: restoring venues, keeping and handing over leases.
- ``table.LiveTable``: the hand loop every kind of table shares, written once, with its owner
  API; ``contract.TableContract`` declares the hooks its owners fill; ``kinds.TableKind``
  declares what else differs between the kinds (``CASH``, ``PRACTICE``, ``TOURNAMENT``).
- ``waiting.StorageWait``: a table waiting for its storage, and taking up again.
- ``faults``: whose fault a failure is (Discord's, the database's, the bot's) and its log level.
- ``turns.BotTurns``, ``runvote.RunVoting``, ``lasthand.LastHand``: machines beside the loop
  (a computer player's turn, the run-it-twice vote, the hand that just ended);
  ``dealvote.DealVoting`` beside a tournament (the vote on a deal at its final table).
- ``cash.CashTable``: a cash table, one owner of the loop, with the buy-ins, the floor and
  the home game's extras.
- ``tourney.LiveTournament``: one tournament under one lock, its clock and prizes; its tables
  (``TournamentTable``) are the loop's other owner.
- ``play``: the rules of one decision (whose hand, which decision, a double click).
- ``clock.DecisionClock``: the time to act, and the time bank.
- ``messenger.TableMessenger``: the table's messages, coalesced, paced and rate limited.
- ``direct``: hole cards and notices by DM (``DmChannels`` caches the channels).
- ``budget.RequestBudget``: the bot's share of Discord's requests a second.
- ``link.DiscordLink``: whether Discord answers now (every request's outcome, the shards'
  connections): what the clocks and the messengers wait on during an outage.
- ``ownership``: which guilds this process serves (shards, database leases).
- ``recovery``: rebuilding tables and hands from storage.
- ``history``: finished hands as stored (``/history hand``, ``verify``, ``replay``).
- ``reports``: the ledger, statistics and leaderboards in words and charts.
- ``rendering``: drawing images off the event loop.
- ``results``: what storage records when a hand ends.
- ``config``: process-wide options (``POKER_*``) and what each table stores about itself.

Nothing is imported here, so modules can import one another's leaves without cycles.
"""
