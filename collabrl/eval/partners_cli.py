"""``collabrl partners``: recorded human play, human proxies, and how human every partner is.

    collabrl partners human-data runs/humans          # the trials as trajectories (+ HF copy)
    collabrl partners build-human-proxy               # one proxy per layout, into the cache
    collabrl partners build-human-proxy --records study/trajectories.jsonl   # from a study
    collabrl partners compare --out runs/likeness     # the human-likeness report
    collabrl partners train-sp cramped_room           # a self-play PPO partner (+ checkpoints)
    collabrl partners train-fcp cramped_room          # an FCP partner against those checkpoints
    collabrl partners train-mep cramped_room          # an MEP population, then its agent
    collabrl partners train-pbt cramped_room          # a PBT population and its best member
    collabrl partners crossplay --out runs/crossplay  # SP vs FCP vs persona vs human proxy

The game is the one with recorded human play (``--game`` picks among several).
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

import click

from collabrl.errors import CollabrlError


def _section(game: str | None) -> Any:
    """The section class of ``game``, or of the one installed game with recorded human play."""
    from collabrl.envs.registry import get_game, registered_games

    if game is not None:
        return get_game(game)
    offering = [s for s in registered_games().values() if s.human_partners]
    if len(offering) != 1:
        names = ", ".join(s.model_fields["name"].default for s in offering) or "none"
        raise CollabrlError(f"name a game with --game (games with recorded human play: {names})")
    return offering[0]


def stamp() -> dict[str, Any]:
    """Commit, machine, torch build and date for a measured result."""
    import torch

    from collabrl import __version__

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "collabrl": __version__,
        "commit": commit,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "torch": torch.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


GAME = click.option("--game", default=None, help="The game (default: the one with human data).")
DATA = click.option(
    "--data",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder holding the trial files (default: the installed overcooked-ai package's).",
)


@click.group()
def partners() -> None:
    """Recorded human play, human proxies and the human-likeness report."""


@partners.command("human-data")
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--split", type=click.Choice(["train", "test", "both"]), default="both")
@GAME
@DATA
def human_data(out: Path, split: str, game: str | None, data: Path | None) -> None:
    """Write the recorded trials as trajectories.jsonl and trajectories_hf/ into OUT."""
    from collabrl.envs.registry import human_partners_of
    from collabrl.eval.export import HF_NESTED
    from collabrl.records import output_set, write_hf_dataset, write_jsonl

    source = human_partners_of(_section(game))
    splits = ("train", "test") if split == "both" else (split,)
    records = [r for s in splits for r in source.records(s, data)]  # type: ignore[arg-type]
    with output_set(out, "human-data") as staging:
        write_jsonl(staging / "trajectories.jsonl", records)
        write_hf_dataset(staging / "trajectories_hf", records, HF_NESTED)
    click.echo(f"{len(records)} trials -> {out} (collabrl view {out})")


@partners.command("build-human-proxy")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Proxy folder.")
@click.option(
    "--records",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    multiple=True,
    help="Trajectory files (e.g. a study export's trajectories.jsonl) to learn from instead.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Behaviour-cloning seed of every layout (default: each layout's chosen one).",
)
@click.option("--epochs", type=int, default=None, help="Training epochs (default: the module's).")
@GAME
@DATA
def build_human_proxy(
    out: Path | None,
    records: tuple[Path, ...],
    seed: int | None,
    epochs: int | None,
    game: str | None,
    data: Path | None,
) -> None:
    """Train one human proxy per task from recorded human play and store it."""
    from tabulate import tabulate

    from collabrl.envs.registry import human_partners_of
    from collabrl.records import read_jsonl

    section = _section(game)
    name = section.model_fields["name"].default
    rows = [r for path in records for r in read_jsonl(path) if r.get("game") == name]
    if records and not rows:
        raise CollabrlError(f"no {name} trajectories in {', '.join(map(str, records))}")
    facts = human_partners_of(section).build(
        out,
        data=data,
        records=rows,
        **({} if seed is None else {"seed": seed}),
        epochs=epochs,
        progress=lambda task: click.echo(f"training the human proxy of {task} ...", err=True),
    )
    table = [
        [
            f["layout"],
            len(f["trials"]),
            f["samples"],
            f"{f['train']['accuracy']:.3f}",
            f"{f['test']['accuracy']:.3f}" if "test" in f else "-",
            f"{f['test']['log_likelihood']:.3f}" if "test" in f else "-",
        ]
        for f in facts
    ]
    headers = ["task", "trials", "samples", "train acc", "test acc", "test loglik"]
    click.echo(tabulate(table, headers=headers))


@partners.command("compare")
@click.option("--out", type=click.Path(path_type=Path), default=Path("runs/likeness"))
@click.option("--episodes", type=click.IntRange(2, 200), default=6, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--task", "tasks", multiple=True, help="Only these tasks (default: all).")
@click.option("--proxies", type=click.Path(path_type=Path), default=None, help="Proxy folder.")
@click.option(
    "--llm",
    "llm",
    multiple=True,
    metavar="KEY=VALUE",
    help="Add an LLM pair through this engine, given as the keys of a recipe's engine section: "
    "--llm backend=openai --llm model=NAME [--llm options.concurrency=8] (the server's address "
    "and key come from environment variables, as for every OpenAI-compatible engine).",
)
@GAME
@DATA
def compare_command(
    out: Path,
    episodes: int,
    seed: int,
    tasks: tuple[str, ...],
    proxies: Path | None,
    llm: tuple[str, ...],
    game: str | None,
    data: Path | None,
) -> None:
    """How human is each partner type? Statistics of simulated pairs against the test trials."""
    from collabrl.eval.likeness import compare
    from collabrl.eval.likeness_report import summary_markdown, write_report
    from collabrl.factory import make_engine_from_spec

    engine = make_engine_from_spec(engine_spec(llm)) if llm else None
    try:
        report = compare(
            _section(game),
            episodes=episodes,
            seed=seed,
            data=data,
            proxies=proxies,
            tasks=tasks or None,
            progress=lambda what: click.echo(what, err=True),
            engine=engine,
        )
    finally:
        if engine is not None:
            engine.close()
    write_report(report, out, stamp())
    click.echo(summary_markdown(report), nl=False)
    click.echo(f"report -> {out}/likeness.md")


def engine_spec(pairs: tuple[str, ...]) -> Any:
    """An engine section from ``KEY=VALUE`` pairs (``backend``, ``model``, ``options.NAME``;
    values read as YAML scalars), validated as a recipe's; a bad pair is one line."""
    import yaml
    from pydantic import ValidationError

    from collabrl.config.roles import EngineSpec

    fields: dict[str, Any] = {"options": {}}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CollabrlError(f"--llm takes KEY=VALUE, got {item!r}")
        if key.startswith("options."):
            fields["options"][key.removeprefix("options.")] = yaml.safe_load(value)
        else:
            fields[key] = value
    try:
        spec = EngineSpec(**fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise CollabrlError(f"--llm: {problems}") from None
    if not spec.model:
        raise CollabrlError("--llm needs model=NAME (and backend=openai for a server)")
    return spec


def _train_population(
    method: str, task: str, seed: int, updates: int | None, out: Path | None, game: str | None
) -> None:
    from collabrl.envs.registry import human_partners_of

    source = human_partners_of(_section(game))
    if task not in source.tasks():
        raise CollabrlError(f"unknown task {task!r}; one of: {', '.join(source.tasks())}")
    facts = source.train_population(
        method,
        task,
        seed=seed,
        updates=updates,
        folder=out,
        progress=lambda update, score: click.echo(f"update {update}: score {score:.1f}", err=True),
    )
    last = facts["scores"][-1] if facts["scores"] else 0.0
    click.echo(
        f"{method}{seed} on {task}: {facts['updates']} updates, {facts['cpu_seconds']:.0f} CPU s, "
        f"last training score {last:.1f}"
    )


POPULATION_OUT = click.option(
    "--out", type=click.Path(path_type=Path), default=None, help="Population folder."
)
UPDATES = click.option(
    "--updates", type=click.IntRange(1, 100_000), default=None, help="PPO updates (default 200)."
)


POPULATION_COMMANDS = {
    "sp": "Train a self-play PPO partner on TASK; keeps its init, middle and final checkpoints.",
    "fcp": "Train a Fictitious Co-Play partner on TASK against every stored self-play checkpoint.",
    "mep": (
        "Train a Maximum-Entropy Population on TASK (three self-play agents paid for moves the "
        "others would not make), then its agent against them, drawing weak partners more often."
    ),
    "pbt": (
        "Population-based training on TASK: three PPO agents trained beside each other, the "
        "weakest replaced every 20 updates by a perturbed copy of the best; keeps the best as "
        "pbt0."
    ),
    "cole": (
        "Train a COLE agent on TASK: it grows its own population (a snapshot each of four "
        "generations) and trains beside it, drawing most often the member the population "
        "cooperates with worst (lowest Shapley value of their cross-play game)."
    ),
}
"""``collabrl partners train-<method>``: each method's command help (the commands share their
options)."""


def _population_command(method: str, doc: str) -> None:
    @partners.command(f"train-{method}", help=doc)
    @click.argument("task")
    @click.option("--seed", type=int, default=0, show_default=True)
    @UPDATES
    @POPULATION_OUT
    @GAME
    def command(
        task: str, seed: int, updates: int | None, out: Path | None, game: str | None
    ) -> None:
        _train_population(method, task, seed, updates, out, game)


for _method, _doc in POPULATION_COMMANDS.items():
    _population_command(_method, _doc)


@partners.command("crossplay")
@click.option("--out", type=click.Path(path_type=Path), default=Path("runs/crossplay"))
@click.option("--episodes", type=click.IntRange(2, 200), default=4, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--task", "tasks", multiple=True, help="Only these tasks (default: all).")
@click.option(
    "--population", type=click.Path(path_type=Path), default=None, help="Population folder."
)
@click.option("--proxies", type=click.Path(path_type=Path), default=None, help="Proxy folder.")
@GAME
def crossplay_command(
    out: Path,
    episodes: int,
    seed: int,
    tasks: tuple[str, ...],
    population: Path | None,
    proxies: Path | None,
    game: str | None,
) -> None:
    """The trained SP and FCP agents (and MEP's, PBT's and COLE's, where trained) beside every
    partner type (crossplay.md, crossplay.json);
    collabrl report baselines --populations OUT sets them beside the paper's Table 5."""
    import json

    from collabrl.envs.registry import human_partners_of
    from collabrl.eval.crossplay import crossplay, markdown

    section = _section(game)
    source = human_partners_of(section)
    report = crossplay(
        section,
        tasks=tasks or source.tasks(),
        episodes=episodes,
        seed=seed,
        population=population,
        proxies=proxies,
        progress=lambda what: click.echo(what, err=True),
    )
    out.mkdir(parents=True, exist_ok=True)
    facts = {
        "stamp": stamp(),
        "episodes": episodes,
        "agents": list(report.agents),
        "partners": report.partners,
        "scores": report.scores,
        "paper": source.paper_baselines,
    }
    (out / "crossplay.json").write_text(json.dumps(facts, indent=1) + "\n")
    text = markdown(report)
    (out / "crossplay.md").write_text(text)
    click.echo(text, nl=False)
    click.echo(f"report -> {out}/crossplay.md")
