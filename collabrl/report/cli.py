"""``collabrl report``: the paper's tables and figures from finished evaluation folders.

    collabrl report table runs/oracle runs/base runs/trained --out runs/table1
    collabrl eval compare runs/oracle runs/base runs/trained      # the same command
    collabrl report heatmap runs/base --metric efficiency
    collabrl report spread                                         # the shipped profile library
    collabrl report spread runs/eval_llm_partners --embedder minilm --scatter spread.png
    collabrl report correlate runs/partner_qwen runs/partner_deepseek --out runs/fig3b
    collabrl report baselines runs/expert runs/silent runs/random --out runs/table4

Each reads what ``collabrl eval`` wrote and runs nothing; a folder a killed run left half written,
or folders evaluated under different settings, are refused with one line (``--force`` joins them).
"""

from __future__ import annotations

from pathlib import Path

import click

from collabrl.errors import CollabrlError
from collabrl.report.agreement_cli import agreement_command, ratings_command

FOLDERS = click.argument(
    "folders", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path)
)
OUT = click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder to write the Markdown and CSV (and PNG) into; default: print only.",
)
FORCE = click.option(
    "--force", is_flag=True, help="Join folders evaluated under different settings (warns)."
)
LABEL = click.option(
    "--label",
    "labels",
    multiple=True,
    help="Row name of each folder, in order (default: the policy in its stamp).",
)


@click.group("report")
def report() -> None:
    """The paper's tables and figures from finished `collabrl eval` folders."""


report.add_command(agreement_command)  # Tables 13-14: judge-human agreement on rated windows
report.add_command(ratings_command)


def _index(folders: list, wanted: Path | None, option: str) -> int | None:
    """The position of the folder ``wanted`` names (by path, or by label)."""
    if wanted is None:
        return None
    for i, f in enumerate(folders):
        if f.path.resolve() == Path(wanted).resolve() or f.label == str(wanted):
            return i
    raise CollabrlError(f"{option} {wanted} is none of the folders given")


def _written(out: Path | None, files: dict[str, str]) -> None:
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")


@report.command("table")
@FOLDERS
@LABEL
@click.option(
    "--base", type=click.Path(path_type=Path), default=None, help="Base row of the relative row."
)
@click.option(
    "--trained",
    type=click.Path(path_type=Path),
    default=None,
    help="Trained row (default: the last non-Oracle folder).",
)
@click.option("--overall-only", is_flag=True, help="Table 1 only, no per-task tables.")
@click.option(
    "--pass-k",
    "ks",
    type=click.IntRange(min=1),
    multiple=True,
    help="A pass^k column (repeatable; default pass^1 and pass^n, n the seeds every job has).",
)
@FORCE
@OUT
def table_command(
    folders: tuple[Path, ...],
    labels: tuple[str, ...],
    base: Path | None,
    trained: Path | None,
    overall_only: bool,
    ks: tuple[int, ...],
    force: bool,
    out: Path | None,
) -> None:
    """Table 1 (and Tables 6-7) from evaluation folders: Oracle, Base and Trained rows plus the
    Relative Improvements row (trained over base, positive = better), and a Human proxy row for
    a folder evaluated beside the held-out human proxy (partner.kind=human_proxy); then the
    reliability and robustness table (pass^k, partner-type drops, worst type, BR-Prox) of the
    folders beside the table's own partners."""
    from collabrl.eval import reliability_table
    from collabrl.records import write_csv
    from collabrl.report.folders import read_folders
    from collabrl.report.table import assign_roles, build, csv_columns, markdown

    evals, warnings = read_folders(list(folders), labels, force=force)
    roles = assign_roles(evals, _index(evals, base, "--base"), _index(evals, trained, "--trained"))
    rows = build(evals, roles, per_task=not overall_only)
    own_partners = [f for f in evals if not f.beside_human_proxy]  # one partner set to compare
    robust = reliability_table.build(reliability_table.by_method(own_partners), ks)
    text = f"{markdown(rows, evals)}\n{reliability_table.markdown(robust)}"
    for warning in warnings:
        click.echo(warning, err=True)
    click.echo(text)
    if out is not None:
        _written(out, {"table.md": text})
        write_csv(out / "table.csv", rows, csv_columns(rows))
        write_csv(out / "reliability.csv", robust, csv_columns(robust))
        click.echo(f"wrote {out}/table.md, table.csv and reliability.csv")


@report.command("baselines")
@click.argument("folders", nargs=-1, type=click.Path(file_okay=False, path_type=Path))
@LABEL
@FORCE
@OUT
@click.option(
    "--populations",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help=(
        "A collabrl partners crossplay folder: the trained SP, PBT, FCP, MEP and COLE agents "
        "beside Table 5."
    ),
)
def baselines_command(
    folders: tuple[Path, ...],
    labels: tuple[str, ...],
    force: bool,
    out: Path | None,
    populations: Path | None,
) -> None:
    """Tables 4-5 (non-LLM baselines: Step/Score and Std. per task and seat) from evaluation
    folders, one method each (e.g. policy.kind=silent, random, idle, expert), and with
    --populations the trained SP, PBT, FCP, MEP and COLE partners beside the paper's Table 5."""
    from collabrl.records import write_csv
    from collabrl.report.baselines import build, markdown, population_markdown
    from collabrl.report.folders import AFFECTIVE_ONLY, read_folders

    if populations is not None:
        import json

        path = populations / "crossplay.json"
        if not path.is_file():
            raise CollabrlError(f"{path} not found; write it with: collabrl partners crossplay")
        table = population_markdown(json.loads(path.read_text()))
        click.echo(table)
        if out is not None:
            _written(out, {"populations.md": table})
        if not folders:
            return
    if not folders:
        raise CollabrlError("name evaluation folders, or a crossplay folder with --populations")
    evals, warnings = read_folders(
        list(folders), labels, force=force, ignore=AFFECTIVE_ONLY, unique_labels=True
    )
    rows = build(evals)
    text = markdown(rows, evals)
    for warning in warnings:
        click.echo(warning, err=True)
    click.echo(text)
    if out is not None:
        _written(out, {"baselines.md": text})
        write_csv(out / "baselines.csv", rows)
        click.echo(f"wrote {out}/baselines.md and baselines.csv")


@report.command("heatmap")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--metric",
    default="efficiency",
    show_default=True,
    help="An episodes.csv column: efficiency, efficiency_reward, success, helpfulness, "
    "trustfulness, empathy, affective, message_ratio, ...",
)
@click.option(
    "--by",
    type=click.Choice(["player_type", "profile"]),
    default="player_type",
    show_default=True,
    help="Columns: the partners' player types (the paper's) or their profiles.",
)
@click.option(
    "--seat",
    type=click.Choice(["both", "1", "2", "all"]),
    default="both",
    show_default=True,
    help="both: one figure per policy seat; 1 or 2: that seat; all: the seats pooled.",
)
@click.option("--game", "games", multiple=True, help="Only this game (repeatable).")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the PNG and CSV files (default: FOLDER/figures).",
)
def heatmap_command(
    folder: Path, metric: str, by: str, seat: str, games: tuple[str, ...], out: Path | None
) -> None:
    """Per-task x per-player-type heatmaps of one evaluation (Figures 4, 9, 11) as PNG, with the
    cell values as CSV."""
    from collabrl.report.folders import read_folder
    from collabrl.report.heatmap import heatmaps

    evaluation = read_folder(folder)
    target = out if out is not None else folder / "figures"
    for path in heatmaps(evaluation, metric, target, seat=seat, by=by, games=games or None):
        click.echo(f"wrote {path}")


@report.command("spread")
@click.argument(
    "folders", nargs=-1, required=False, type=click.Path(file_okay=False, path_type=Path)
)
@LABEL
@click.option(
    "--embedder",
    default="auto",
    show_default=True,
    help="auto (packaged MiniLM if installed, else hashing), minilm, hashing, a local "
    "sentence-transformers folder, or a model id in the local Hugging Face cache.",
)
@click.option("--game", "games", multiple=True, help="Only this game (repeatable).")
@click.option(
    "--split",
    "splits",
    multiple=True,
    type=click.Choice(["train", "test"]),
    help="Profile library only: these splits (default both).",
)
@click.option(
    "--text",
    type=click.Choice(["persona", "behavior"]),
    default="persona",
    show_default=True,
    help="Profile library only: embed each profile's persona paragraph or its behaviour line.",
)
@click.option(
    "--profiles-file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Profile library only: a profile file instead of the shipped library.",
)
@click.option(
    "--window", type=click.IntRange(1), default=3, show_default=True, help="Decisions a segment."
)
@click.option(
    "--seats",
    type=click.Choice(["partner", "policy"]),
    default="partner",
    show_default=True,
    help="Evaluation folders: segment the partner seats (the paper's players) or the policy.",
)
@click.option("--xi", type=float, default=0.1, show_default=True, help="Cluster_xi threshold.")
@click.option(
    "--scatter",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also draw the embeddings in 2-D into this PNG (Figure 3a).",
)
@click.option("--projection", type=click.Choice(["pca", "tsne"]), default="pca", show_default=True)
@OUT
def spread_command(
    folders: tuple[Path, ...],
    labels: tuple[str, ...],
    embedder: str,
    games: tuple[str, ...],
    splits: tuple[str, ...],
    text: str,
    profiles_file: str | None,
    window: int,
    seats: str,
    xi: float,
    scatter: Path | None,
    projection: str,
    out: Path | None,
) -> None:
    """Embedding spread and Cluster_xi (Table 9, Figure 3a): of the profile library's texts per
    game and split (no FOLDERS), or of the partners' trajectory segments in evaluation folders."""
    from collabrl.records import write_csv
    from collabrl.report.folders import read_folder
    from collabrl.report.spread import (
        embedder_named,
        markdown,
        profile_texts,
        rows_for,
        segment_texts,
    )
    from collabrl.report.spread import scatter as draw_scatter

    model = embedder_named(embedder)
    if folders:
        if len(labels) > len(folders):
            raise CollabrlError(f"{len(labels)} --label values for {len(folders)} folders")
        items = []
        for i, path in enumerate(folders):
            evaluation = read_folder(path)
            evaluation.label = labels[i] if i < len(labels) else str(path)
            items += [
                item
                for item in segment_texts(evaluation, window=window, seats=seats)
                if not games or item["game"] in games
            ]
        title = f"Trajectory-segment spread ({seats} seats, windows of {window} decisions)"
    else:
        items = profile_texts(games, splits or ("train", "test"), text=text, path=profiles_file)
        title = f"Profile-library spread ({text} texts)"
    rows, vectors = rows_for(items, model, xi)
    table = markdown(rows, title, xi)
    click.echo(table)
    if out is not None:
        _written(out, {"spread.md": table})
        write_csv(out / "spread.csv", rows)
        click.echo(f"wrote {out}/spread.md and spread.csv")
    if scatter is not None:
        scatter.parent.mkdir(parents=True, exist_ok=True)
        draw_scatter(scatter, vectors, items, projection=projection)
        click.echo(f"wrote {scatter}")


@report.command("correlate")
@click.argument("folder_a", type=click.Path(file_okay=False, path_type=Path))
@click.argument("folder_b", type=click.Path(file_okay=False, path_type=Path))
@LABEL
@click.option("--metric", default="efficiency", show_default=True, help="An episodes.csv column.")
@click.option(
    "--by",
    type=click.Choice(["job", "profile", "task"]),
    default="job",
    show_default=True,
    help="One point per job, per task x profile (seats and seeds averaged), or per task.",
)
@FORCE
@OUT
def correlate_command(
    folder_a: Path,
    folder_b: Path,
    labels: tuple[str, ...],
    metric: str,
    by: str,
    force: bool,
    out: Path | None,
) -> None:
    """Pearson correlation of scores between two evaluations of the same jobs, e.g. with partners
    on two different LLMs (Figure 3b); with --out also a scatter PNG per game."""
    from collabrl.records import write_csv
    from collabrl.report.correlate import correlate, markdown, scatter
    from collabrl.report.folders import AFFECTIVE_ONLY, read_folders

    evals, warnings = read_folders(
        [folder_a, folder_b], labels, force=force, ignore=(*AFFECTIVE_ONLY, "partners")
    )
    a, b = evals
    results = correlate(a, b, metric, by)
    text = markdown(results, a, b, metric)
    for warning in warnings:
        click.echo(warning, err=True)
    click.echo(text)
    if out is not None:
        _written(out, {"correlation.md": text})
        write_csv(out / "correlation.csv", [c.row() for c in results])
        points = [
            {"game": c.game, "unit": u, a.label: x, b.label: y}
            for c in results
            for u, x, y in c.points
        ]
        write_csv(out / "correlation_points.csv", points, ["game", "unit", a.label, b.label])
        for c in results:
            scatter(out / f"correlation_{c.game}_{metric}.png", c, a, b, metric)
        click.echo(f"wrote {out}/correlation.md, correlation.csv, correlation_points.csv, PNGs")
