"""Where a study's state lives: the database (SQLite or PostgreSQL), its migrations, and what is folded from its event log."""
