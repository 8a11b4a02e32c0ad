"""``collabrl serve`` and ``collabrl view``: start the local web app and print the URL to open."""

from __future__ import annotations

from pathlib import Path

import click

from collabrl.cli_options import RECIPE_ARGS, recipe_from_args
from collabrl.web.server import DEFAULT_HOST, require_web

HOST = click.option(
    "--host",
    default=DEFAULT_HOST,
    show_default=True,
    help="Address to bind; anything but loopback exposes the page (token-protected) to others.",
)
PORT = click.option("--port", type=int, default=0, help="Port (default: a free one).")


@click.command("serve")
@RECIPE_ARGS
@HOST
@PORT
def serve_command(args: tuple[str, ...], host: str, port: int) -> None:
    """Play the human seats (players.N.kind=human) of a recipe in the browser.

    Every finished episode is recorded in OUTPUT_DIR/trajectories.jsonl (and trajectories_hf/),
    in the schema of `collabrl eval`, with the human's decision times.
    """
    require_web()
    from collabrl.web.security import new_token
    from collabrl.web.serve_app import make_serve_app
    from collabrl.web.server import run_foreground

    recipe = recipe_from_args(args)
    token = new_token()
    out = Path(recipe.output_dir)
    app = make_serve_app(recipe, out, token)
    click.echo(f"recording finished episodes in {out}/trajectories.jsonl")
    run_foreground(app, host, port, f"/?token={token}", f"{recipe.name}")


@click.command("view")
@click.argument("path", type=click.Path(path_type=Path))
@HOST
@PORT
def view_command(path: Path, host: str, port: int) -> None:
    """Browse trajectories: evaluations, human sessions, `collabrl play` and training rollouts.

    PATH is a file (trajectories.jsonl, rollouts.jsonl, episodes.jsonl) or a folder searched for
    them; files are re-read when they change, so a running training can be watched.
    """
    require_web()
    from collabrl.web.security import new_token
    from collabrl.web.server import run_foreground
    from collabrl.web.trajectories import find_files
    from collabrl.web.view_app import make_view_app

    files, left_out = find_files(path)
    token = new_token()
    click.echo(f"{len(files)} trajectory file(s) under {path}")
    for warning in left_out:
        click.echo(f"warning: {warning}", err=True)
    run_foreground(make_view_app(path, token), host, port, f"/?token={token}", "viewer")
