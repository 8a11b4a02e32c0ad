"""The study as it runs: participants, matchmaking, session groups and their rounds, rooms, workers."""
