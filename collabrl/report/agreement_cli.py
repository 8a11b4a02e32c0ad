"""``collabrl report agreement`` and ``collabrl report ratings``: judge-human agreement from the
windows people rated on the rating page (``collabrl view EVAL_DIR --rate``).

    collabrl report agreement runs/eval --ratings runs/eval/ratings.sqlite --out runs/agreement
    collabrl report agreement runs/eval_qwen72b runs/eval_deepseek --ratings ratings.csv
    collabrl report ratings runs/eval/ratings.sqlite --out ratings.csv
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from collabrl.errors import CollabrlError


@click.command("agreement")
@click.argument("folders", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--ratings",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Ratings file: the rating page's SQLite file or a CSV of its columns "
    "(default: ratings.sqlite in the first folder).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for agreement.md, agreement.csv and agreement.json (default: the first folder).",
)
@click.option("--a", "a", type=float, default=0.8, show_default=True, help="CB-Affective a.")
@click.option("--b", "b", type=float, default=0.8, show_default=True, help="CB-Affective b.")
def agreement_command(
    folders: tuple[Path, ...], ratings: Path | None, out: Path | None, a: float, b: float
) -> None:
    """Judge-human consistency per dimension as the paper's Tables 13-14 report it (Spearman,
    a row per judge: one per evaluation folder, e.g. the same trajectories judged by several
    models), and the raters' agreement (Krippendorff's alpha)."""
    from collabrl.eval.agreement import agreement, report_json, report_markdown, report_rows
    from collabrl.eval.rated_windows import judged_records, read_evaluation
    from collabrl.eval.ratings import default_path, read_ratings
    from collabrl.records import write_csv, write_text

    sources = []
    for folder in folders:
        records, warnings = read_evaluation(folder)
        for warning in warnings:
            click.echo(f"warning: {warning}", err=True)
        judged = judged_records(records)
        if not judged:
            raise CollabrlError(f"{folder}: no judged windows (a `collabrl eval` folder?)")
        sources.append((str(folder), records))
    rated = read_ratings(ratings or default_path(folders[0]))
    if not rated:
        raise CollabrlError(f"{ratings or default_path(folders[0])}: holds no ratings yet")
    result = agreement(sources, rated, a=a, b=b)
    text = report_markdown(result)
    click.echo(text)
    target = out or (folders[0].parent if folders[0].is_file() else folders[0])
    target.mkdir(parents=True, exist_ok=True)
    write_text(target / "agreement.md", text)
    write_csv(target / "agreement.csv", report_rows(result))
    write_text(target / "agreement.json", json.dumps(report_json(result), indent=1) + "\n")
    click.echo(f"wrote {target}/agreement.md (and .csv, .json)")


@click.command("ratings")
@click.argument("ratings", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="CSV file to write (default: standard output).",
)
def ratings_command(ratings: Path, out: Path | None) -> None:
    """Every rating (each submission, with its time) of a ratings file as CSV."""
    from collabrl.eval.ratings import read_ratings, write_csv
    from collabrl.records import atomic_open

    rows = read_ratings(ratings)
    if out is None:
        write_csv(rows, sys.stdout)
        return
    with atomic_open(out) as f:
        write_csv(rows, f)
    click.echo(f"wrote {len(rows)} rating(s) to {out}", err=True)
