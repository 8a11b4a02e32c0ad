"""The analysis game: a team with distributed expertise analyses tables in a shared notebook and
submits one hypothesis (after the team-structures study's data-analysis tasks)."""
