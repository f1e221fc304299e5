"""An attack suite: a hypothesis state machine drives the real bot over the fake Discord with
random, odd, stale, forged and concurrent input, and checks the bot's promises after every
step (see ``tests/attack/machine.py``)."""
