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
@click.option(
    "--rate",
    is_flag=True,
    help="Open the rating page: rate the judged windows of the evaluations under PATH.",
)
@click.option(
    "--ratings",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Ratings file (SQLite) for --rate (default: ratings.sqlite in PATH's folder).",
)
@click.option("--rater", default=None, help="Rater id to put in the printed URL (--rate).")
def view_command(
    path: Path, host: str, port: int, rate: bool, ratings: Path | None, rater: str | None
) -> None:
    """Browse trajectories: evaluations, human sessions, `collabrl play` and training rollouts.

    PATH is a file (trajectories.jsonl, rollouts.jsonl, episodes.jsonl) or a folder searched for
    them; files are re-read when they change, so a running training can be watched. With
    --rate, people rate the judged windows of evaluations for `collabrl report agreement`.
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
    if not rate:
        if ratings or rater:
            raise click.UsageError("--ratings and --rater go with --rate")
        run_foreground(make_view_app(path, token), host, port, f"/?token={token}", "viewer")
        return
    from urllib.parse import quote

    from collabrl.eval.ratings import RatingStore, check_rater, default_path

    query = f"/rate?token={token}" + (f"&rater={quote(check_rater(rater))}" if rater else "")
    store = RatingStore(ratings or default_path(path))
    click.echo(f"ratings go to {store.path}")
    run_foreground(make_view_app(path, token, store), host, port, query, "rating page")
