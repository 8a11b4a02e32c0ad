"""Tally: the smallest complete collabrl plug-in game (docs/game-contract.md)."""
