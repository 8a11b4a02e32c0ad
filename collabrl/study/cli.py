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
@click.option(
    "--explain", is_flag=True, help="Print the study with each key's one-line documentation."
)
def lint(args: tuple[str, ...], graph: bool, explain: bool) -> None:
    """Check a study (schema, routing, balance, checkpoints, profiles); print it resolved."""
    from collabrl.study.spec.factors import describe

    compiled = _compiled(args)
    study, assigner = compiled.study, compiled.assigner
    factors = study.design.factors
    if graph:
        click.echo(compiled.flow.render(), nl=False)
    elif explain:
        from collabrl.config.explain import explain_recipe

        click.echo(explain_recipe(study), nl=False)
    else:
        click.echo(compiled.loaded.resolved_yaml, nl=False)
    click.echo(
        f"ok: {study.name} ({compiled.loaded.sha256[:12]}): {len(study.pages)} pages, "
        f"{len(study.conditions)} conditions, {describe(factors) if factors else study.design.kind + '-subject'} with "
        f"{len(assigner.orders)} order(s) x {len(assigner.tasks)} task(s), balanced every "
        f"{assigner.block} session(s); {len(study.human_seats)} participant(s) per group and "
        f"{len(study.seats.agents) if study.seats else 0} agent seat(s); "
        f"target {study.design.participants}",
        err=graph or explain,
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
    for item, tally in result["checks"].items():
        click.echo(f"{item}: {tally['passed']} passed, {tally['failed']} failed")
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


SEND = click.option(
    "--send",
    is_flag=True,
    help="Send the requests to Prolific (PROLIFIC_TOKEN from the environment); without it, a "
    "dry run prints them.",
)
PROLIFIC_STUDY = click.option("--study-id", required=True, help="The study's id on Prolific.")


@study.group("prolific")
def prolific() -> None:
    """Recruit through Prolific's API: create, publish, approve or reject, pay bonuses (a dry
    run unless --send; every call is recorded in the study's event log)."""


def _on_prolific(args: tuple[str, ...], db: str | None, send: bool, action: str, work) -> None:
    """Run ``work(client, compiled, database)`` and audit it: the event ``prolific`` with the
    action, the requests (no token), whether they were sent and whether all went through."""
    from collabrl.study.live.prolific import ProlificClient
    from collabrl.study.store.backends import database_location
    from collabrl.study.store.db import open_database

    compiled = _compiled(args)
    if compiled.study.recruitment.platform != "prolific":
        raise CollabrlError("recruitment.platform is not prolific: set it to use Prolific's API")
    client = ProlificClient.from_environment(send)
    path = database_location(db) if db else Path(compiled.study.output_dir) / "study.sqlite"
    database = open_database(compiled.loaded, path)
    ok = False
    try:
        try:
            shown = work(client, compiled, database)
            ok = True
        finally:
            calls = [call.line() for call in client.calls]
            database.event("prolific", action=action, sent=send, ok=ok, calls=calls)
    finally:
        database.close()
    for call in client.calls:
        click.echo(("sent " if send else "dry run: ") + call.line())
    click.echo(shown)


@prolific.command("create")
@STUDY_ARGS
@STORE
@SEND
@click.option("--public-url", required=True, help="The study's address (https://lab.org/study1).")
@click.option("--places", type=click.IntRange(1, 100_000), required=True, help="Participants.")
@click.option("--minutes", type=click.IntRange(1, 600), required=True, help="Estimated time.")
@click.option(
    "--reward-cents", type=click.IntRange(1), required=True, help="Base pay, in pence or cents."
)
@click.option("--description", default="", help="What Prolific shows participants.")
def prolific_create(args, db, send, public_url, places, minutes, reward_cents, description):
    """Create the study on Prolific, as a draft, with the study link and completion code."""
    from collabrl.study.live.prolific import study_draft
    from collabrl.study.spec.recruitment import PLATFORMS, study_link

    def work(client, compiled, database) -> str:
        study = compiled.study
        if not study.completion.code:
            raise CollabrlError("completion.code: Prolific needs one completion code")
        link = study_link(
            PLATFORMS["prolific"],
            f"{public_url.rstrip('/')}/join?key={database.meta()['join_key']}",
        )
        draft = study_draft(
            title=study.title,
            internal_name=study.name,
            description=description or study.title,
            study_url=link,
            completion_code=study.completion.code,
            places=places,
            minutes=minutes,
            reward_cents=reward_cents,
        )
        made = client.create_study(draft)
        return f"Prolific study id: {made['id']}" if send else f"would create: {draft['name']}"

    _on_prolific(args, db, send, "create", work)


@prolific.command("publish")
@STUDY_ARGS
@STORE
@SEND
@PROLIFIC_STUDY
def prolific_publish(args, db, send, study_id) -> None:
    """Open the draft study on Prolific to participants."""
    _on_prolific(
        args,
        db,
        send,
        "publish",
        lambda client, *_: f"status: {client.publish(study_id).get('status', 'dry run')}",
    )


@prolific.command("review")
@STUDY_ARGS
@STORE
@SEND
@PROLIFIC_STUDY
@click.option("--approve", "approved", multiple=True, help="A submission id to approve.")
@click.option("--reject", "rejected", multiple=True, help="A submission id to reject.")
@click.option("--message", default="", help="Rejections: what the participant reads (100+ chars).")
@click.option("--category", default="FAILED_CHECK", show_default=True, help="Rejections: why.")
def prolific_review(args, db, send, study_id, approved, rejected, message, category) -> None:
    """Approve or reject submissions (none named: list the study's submissions)."""

    def work(client, *_) -> str:
        if not approved and not rejected:
            rows = client.submissions(study_id)
            return "\n".join(f"{s['id']} {s['participant_id']} {s['status']}" for s in rows)
        for submission in approved:
            client.approve(submission)
        for submission in rejected:
            client.reject(submission, message, category)
        return f"{len(approved)} approved, {len(rejected)} rejected"

    _on_prolific(args, db, send, "review", work)


@prolific.command("pay")
@STUDY_ARGS
@STORE
@SEND
@PROLIFIC_STUDY
def prolific_pay(args, db, send, study_id) -> None:
    """Pay every bonus the study computed (the export's bonuses.csv), once."""
    from collabrl.study.results.export import bonus_rows

    def work(client, compiled, database) -> str:
        done = [e["data"] for e in database.events("prolific")]
        if any(d["action"] == "pay" and d["sent"] and d["ok"] for d in done):
            raise CollabrlError(f"the bonuses of {study_id} were paid already (event log)")
        bonuses = bonus_rows(compiled.loaded, database)
        if not bonuses:
            return "no bonus to pay"
        client.pay_bonuses(study_id, bonuses)
        return f"{len(bonuses.splitlines())} bonuses " + ("paid" if send else "to pay")

    _on_prolific(args, db, send, "pay", work)


def _rows(compiled, db: str | None, pretest: bool) -> list:
    """The response rows of the study's database (or its pretest's)."""
    from collabrl.study.results.export import response_rows

    if not compiled.study.conditions:
        raise CollabrlError(NO_REPORT)
    database = _existing(compiled, db, pretest)
    try:
        return response_rows(compiled.loaded, database)
    finally:
        database.close()


@study.command("power")
@STUDY_ARGS
@click.option(
    "--effect",
    type=float,
    required=True,
    help="The difference to detect, in each measure's units (0.5: half a scale point).",
)
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05)
@click.option("--power", "target", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.8)  # fmt: skip
@DB
def power(args, effect: float, alpha: float, target: float, db: Path | None) -> None:
    """Participants needed to detect --effect, with the spread of the pretest's participants
    (reads OUTPUT_DIR/pretest/study.sqlite, or --db)."""
    from collabrl.study.results.power import power_rows, power_table

    compiled = _compiled(args)
    rows = _rows(compiled, str(db) if db else None, pretest=db is None)
    found = power_rows(compiled.study, rows, effect, alpha, target)
    click.echo(power_table(found, effect, alpha, target), nl=False)


@study.command("sim-vs-live")
@STUDY_ARGS
@STORE
@click.option(
    "--pretest-db",
    type=click.Path(path_type=Path),
    default=None,
    help="The pretest's database (default: OUTPUT_DIR/pretest/study.sqlite).",
)
def sim_vs_live(args, db: str | None, pretest_db: Path | None) -> None:
    """The pretest's simulated participants against the live ones, per condition and measure,
    with intervals (both databases of this one protocol)."""
    from collabrl.study.results.sim_vs_live import compare, comparison_table

    compiled = _compiled(args)
    simulated = _rows(compiled, str(pretest_db) if pretest_db else None, pretest_db is None)
    live = _rows(compiled, db, pretest=False)
    click.echo(f"protocol {compiled.loaded.sha256[:12]}: simulated against live\n")
    click.echo(comparison_table(compare(compiled.study, simulated, live)), nl=False)
