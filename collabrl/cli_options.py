"""Options shared by several ``collabrl`` subcommands, defined once so they read the same."""

from __future__ import annotations

import click

OVERWRITE = click.option(
    "--overwrite",
    is_flag=True,
    help="Move a run already in the output folder aside (to FOLDER.old-TIME) instead of refusing.",
)
