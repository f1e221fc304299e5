"""Computer players: pure decision functions over what one seat may know (see docs/bots.md)."""
