"""``collabrl study lint|serve|pretest|export|report STUDY [key=value ...]``.

STUDY is a study file or the name of a shipped one (``paper_user_study``,
``paper_user_study_cpu``, ``household_group_study``); overrides work as in recipes
(``conditions.1.agent.engine.model=PATH``). Every problem is one line.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import click
from click.core import ParameterSource

from collabrl.errors import CollabrlError

STUDY_ARGS = click.argument("args", nargs=-1, metavar="STUDY [KEY=VALUE]...")
DB = click.option(
    "--db",
    type=click.Path(path_type=Path),
    default=None,
    help="The study's SQLite database (default: OUTPUT_DIR/study.sqlite; a pretest's: "
    "OUTPUT_DIR/pretest/study.sqlite).",
)
STORE = click.option(
    "--db",
    "db",
    envvar="COLLABRL_STUDY_DB",
    show_envvar=True,
    default=None,
    metavar="PATH|URL",
    help="The study's database: an SQLite file (default: OUTPUT_DIR/study.sqlite) or a "
    "PostgreSQL server, postgresql://USER:PASSWORD@HOST/DB (best from the environment "
    "variable, so the password is in no command line).",
)
OUT = click.option(
    "--out", type=click.Path(path_type=Path), default=None, help="Folder to write into."
)
PRETEST = click.option(
    "--pretest",
    is_flag=True,
    help="Read the pretest's database (OUTPUT_DIR/pretest/study.sqlite) and write beside it.",
)
PRETEST_DIR = "pretest"  # OUTPUT_DIR/pretest/: a pretest's database and its export


def _require_study_extra(command: str) -> None:
    """One-line error when the ``study`` extra (page text) is missing."""
    from collabrl.engines.factory import require

    require(("markdown_it",), "pip install 'collabrl[study]'", f"collabrl study {command}")


def _compiled(args: tuple[str, ...]):
    from collabrl.study.spec.compile import compile_study
    from collabrl.study.spec.load import load_study, split_study_args

    return compile_study(load_study(*split_study_args(args)))


def _folder(compiled, pretest: bool) -> Path:
    """Where the database and the outputs are: OUTPUT_DIR, or OUTPUT_DIR/pretest (--pretest)."""
    root = Path(compiled.study.output_dir)
    return root / PRETEST_DIR if pretest else root


def _existing(compiled, db: str | None, pretest: bool = False):
    """The study's database, which must exist and belong to this protocol; a missing one is
    one line saying where it was looked for, and where serve and pretest write theirs."""
    from collabrl.study.store.backends import database_location
    from collabrl.study.store.db import open_database

    from_env = click.get_current_context().get_parameter_source("db")
    if pretest and from_env is ParameterSource.ENVIRONMENT:
        db = None  # --pretest reads the pretest's database, not the live study's
    path = database_location(db) if db else _folder(compiled, pretest) / "study.sqlite"
    if isinstance(path, Path) and not path.is_file():
        served = Path(compiled.study.output_dir) / "study.sqlite"
        tested = Path(compiled.study.output_dir) / PRETEST_DIR / "study.sqlite"
        found = " (it exists: pass --pretest)" if tested.is_file() else " (read with --pretest)"
        raise CollabrlError(
            f"no study database at {path}: collabrl study serve writes {served} and "
            f"collabrl study pretest writes {tested}{found}; --db PATH reads one written "
            "elsewhere, e.g. by pretest --out DIR: DIR/study.sqlite"
        )
    return open_database(compiled.loaded, path, writing=False)  # reads only: beside a server


NO_REPORT = (
    "no conditions, so no report to compare them: the export holds every answer, transcript "
    "and document"
)


@click.group("study")
def study() -> None:
    """User studies declared in one file: lint, serve, pretest, export, report."""


@study.command("lint")
@STUDY_ARGS
@click.option("--graph", is_flag=True, help="Print the routing graph instead of the study.")
def lint(args: tuple[str, ...], graph: bool) -> None:
    """Check a study (schema, routing, balance, checkpoints, profiles); print it resolved."""
    from collabrl.study.spec.factors import describe

    compiled = _compiled(args)
    study, assigner = compiled.study, compiled.assigner
    factors = study.design.factors
    if graph:
        click.echo(compiled.flow.render(), nl=False)
    else:
        click.echo(compiled.loaded.resolved_yaml, nl=False)
    click.echo(
        f"ok: {study.name} ({compiled.loaded.sha256[:12]}): {len(study.pages)} pages, "
        f"{len(study.conditions)} conditions, {describe(factors) if factors else study.design.kind + '-subject'} with "
        f"{len(assigner.orders)} order(s) x {len(assigner.tasks)} task(s), balanced every "
        f"{assigner.block} session(s); {len(study.human_seats)} participant(s) per group and "
        f"{len(study.seats.agents) if study.seats else 0} agent seat(s); "
        f"target {study.design.participants}",
        err=graph,
    )


@study.command("serve")
@STUDY_ARGS
@STORE
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=int, default=0, help="Port (default: a free one).")
@click.option(
    "--fast-writes",
    is_flag=True,
    help="Acknowledge changes without waiting for the disk: survives a killed server, not a "
    "power cut (slow disks).",
)
@click.option(
    "--base-path",
    default="",
    help="Serve every page under this path (/study1) for a proxy that forwards lab.org/study1/.",
)
@click.option(
    "--public-url",
    default=None,
    help="The address participants use (https://lab.org/study1), for the printed links.",
)
@click.option(
    "--forwarded-allow-ips",
    default=None,
    help="Proxies whose X-Forwarded-For/-Proto headers are trusted (default: 127.0.0.1).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Server processes over the one database, each on its own port (the first on --port, "
    "the others on free ports they print), which participants must reach.",
)
@click.option("--worker", type=int, default=None, hidden=True)  # a worker that --workers started
@click.option(
    "--joins-per-s",
    type=click.FloatRange(0.1, 10_000),
    default=5.0,
    show_default=True,
    help="New participants let in per second and worker (bursts of 100 wait no longer).",
)
def serve(
    args: tuple[str, ...],
    db: str | None,
    host: str,
    port: int,
    fast_writes: bool,
    base_path: str,
    public_url: str | None,
    forwarded_allow_ips: str | None,
    workers: int,
    worker: int | None,
    joins_per_s: float,
) -> None:
    """Run the study: participants join by its link, the admin page shows them live. The admin
    token is COLLABRL_ADMIN_TOKEN when set (the same across restarts), else a new one.

    With --workers N, N server processes share the database (SQLite in WAL mode, or
    PostgreSQL): each serves its own participants, joins are spread over them and a group
    formed on a match page is hosted by one of them (its members' pages move there)."""
    from collabrl.web.server import free_port, require_web, run_foreground

    require_web()
    _require_study_extra("serve")
    from collabrl.study.live.runtime import StudyRuntime
    from collabrl.study.server.app import Limits, check_base_path, make_study_app
    from collabrl.study.spec.recruitment import PLATFORMS, study_link
    from collabrl.study.store.backends import database_location
    from collabrl.study.store.db import open_database
    from collabrl.web.security import admin_token

    try:
        prefix = check_base_path(base_path)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    compiled = _compiled(args)
    path = database_location(db) if db else Path(compiled.study.output_dir) / "study.sqlite"
    database = open_database(compiled.loaded, path, durable=not fast_writes)
    admin = admin_token()
    port = port or free_port(host)
    shown = f"[{host}]" if ":" in host else host
    public = (public_url or f"http://{shown}:{port}{prefix}").rstrip("/")
    click.echo(f"database: {database.path} (protocol {compiled.loaded.sha256[:12]})")
    if workers > 1 and worker is None:
        from collabrl.study.live.workers import serve_workers

        database.close()
        click.echo(f"admin page (every worker's participants): {public}/admin?token={admin}")
        ports = [port, *(free_port(host) for _ in range(workers - 1))]
        urls = [public, *(f"http://{shown}:{p}{prefix}" for p in ports[1:])]
        argv = [*args, "--host", host, "--base-path", prefix, "--joins-per-s", str(joins_per_s)]
        argv += ["--fast-writes"] * fast_writes
        if forwarded_allow_ips:
            argv += ["--forwarded-allow-ips", forwarded_allow_ips]
        serve_workers(str(path), admin, ports, urls, argv)
        return
    limits = Limits(joins_per_s=joins_per_s)
    rt = StudyRuntime(compiled, database)
    if worker is not None:
        from collabrl.study.live.workers import Worker

        rt.worker = Worker(database, worker, workers, public)
    app = make_study_app(rt, admin, limits, base_path=prefix)
    click.echo(f"admin page: {public}/admin?token={admin}")
    platform = PLATFORMS[compiled.study.recruitment.platform]
    if platform.placeholders:
        link = study_link(platform, f"{public}/join?key={app.state.join_key}")
        click.echo(f"{platform.label} study link (its placeholders fill in the ids): {link}")
    try:
        run_foreground(
            app,
            host,
            port,
            f"/join?key={app.state.join_key}",
            "participant link",
            forwarded_allow_ips,
            base_url=public,
        )
    finally:
        database.close()


@study.command("pretest")
@STUDY_ARGS
@click.option(
    "--participants",
    type=click.IntRange(1, 100_000),
    default=None,
    help="Simulated participants (default: design.participants).",
)
@DB
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="The pretest's folder: its database DIR/study.sqlite, export DIR/export and report "
    "DIR/report (default: OUTPUT_DIR/pretest, which export and report read with --pretest).",
)
@click.option("--overwrite", is_flag=True, help="Replace an earlier pretest's database and export.")
def pretest(args, participants: int | None, db: Path | None, out: Path | None, overwrite: bool):
    """Run the study with simulated participants; write the export and the report.

    The database is OUTPUT_DIR/pretest/study.sqlite (--out DIR: DIR/study.sqlite), the export
    OUTPUT_DIR/pretest/export and the report OUTPUT_DIR/pretest/report (DIR/export, DIR/report),
    where `collabrl study export STUDY --pretest` and `report STUDY --pretest` write them again
    (or --db DIR/study.sqlite)."""
    _require_study_extra("pretest")
    from collabrl.study.pretest.run import run_pretest
    from collabrl.study.results.export import export_study, response_rows
    from collabrl.study.results.report import write_report
    from collabrl.study.store.db import open_database

    compiled = _compiled(args)
    folder = out or _folder(compiled, pretest=True)
    path, out, reported = db or folder / "study.sqlite", folder / "export", folder / "report"
    if path.exists():
        if not overwrite:
            raise CollabrlError(f"{path} holds an earlier pretest: pass --overwrite to replace it")
        for stale in path.parent.glob(path.name + "*"):
            stale.unlink()
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(reported, ignore_errors=True)
    n = participants or compiled.study.design.participants
    started = time.perf_counter()
    result = run_pretest(compiled, path, n)
    seconds = time.perf_counter() - started
    database = open_database(compiled.loaded, path)
    try:
        info = export_study(compiled.loaded, database, out)
        text = NO_REPORT
        if compiled.study.conditions:
            rows = response_rows(compiled.loaded, database)
            text, _ = write_report(compiled.study, rows, reported)
    finally:
        database.close()
    click.echo(text.split("\n![](report.png)")[0])
    for name, cells in result["assignments"].items():
        shown = "; ".join(f"{cell}: {n}" for cell, n in cells.items())
        click.echo(f"randomise {name}: {shown}")
    fallbacks = (
        f"; {result['answer_fallbacks']} LLM answers fell back"
        if result["answer_fallbacks"]
        else ""
    )
    click.echo(
        f"\n{n} simulated participants in {seconds:.1f} s; {info['counts']['events']} events"
        f"{fallbacks}; database {path}; export in {out}"
        + (f", report in {reported}" if compiled.study.conditions else "")
    )


@study.command("export")
@STUDY_ARGS
@STORE
@PRETEST
@OUT
def export(args: tuple[str, ...], db: str | None, pretest: bool, out: Path | None) -> None:
    """Write the CSV, events, trajectories, HF datasets and manifest of a study's database."""
    from collabrl.study.results.export import export_study

    compiled = _compiled(args)
    database = _existing(compiled, db, pretest)
    try:
        out = out or _folder(compiled, pretest) / "export"
        info = export_study(compiled.loaded, database, out)
    finally:
        database.close()
    counts = ", ".join(f"{v} {k}" for k, v in info["counts"].items())
    click.echo(f"exported {counts} to {out}")


@study.command("report")
@STUDY_ARGS
@STORE
@PRETEST
@OUT
def report(args: tuple[str, ...], db: str | None, pretest: bool, out: Path | None) -> None:
    """Means with 95% intervals per condition, paired tests, and the Figure 6 plot."""
    _require_study_extra("report")
    from collabrl.study.results.export import response_rows
    from collabrl.study.results.report import write_report

    compiled = _compiled(args)
    if not compiled.study.conditions:
        raise CollabrlError(NO_REPORT)
    database = _existing(compiled, db, pretest)
    try:
        out = out or _folder(compiled, pretest) / "report"
        text, _ = write_report(compiled.study, response_rows(compiled.loaded, database), out)
    finally:
        database.close()
    click.echo(text.split("\n![](report.png)")[0])
    click.echo(f"\nwrote {out}/report.md, report.json and report.png")
