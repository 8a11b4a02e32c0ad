"""What ``collabrl hub push`` uploads: a checkpoint's policy with a model card, or an evaluation
or study export with a dataset card, staged as the exact folder the Hub receives.

Why staged: ``--dry-run`` writes the staged folder and stops, so what it shows is by
construction what a real push uploads (the push uploads that same folder). The cards are
huggingface_hub's ``ModelCard`` / ``DatasetCard`` with their YAML metadata, generated from what
the folder records: for a checkpoint the run's command line, training set, metrics and any
evaluations named; for an export its files' columns (the schema) and, for a study, its consent
page and privacy mode.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from collabrl.errors import CollabrlError
from collabrl.records import RUN_MANIFEST, read_jsonl

CARD = "README.md"
LICENSE = "apache-2.0"  # collabrl's own; a base model's licence still applies to its weights
TAGS = ["collabrl", "multi-agent", "human-ai-collaboration"]
CHECKPOINT_FILES = ("trainer_state.json", "policy")
EVAL_FILES = ("results.json", "episodes.csv", "tables.md", "tables.csv", "trajectories.jsonl")
STUDY_FILES = ("manifest.json", "responses.csv", "participants.csv", "trajectories.jsonl")


def _hub() -> Any:
    """huggingface_hub, or one error naming the extra."""
    try:
        import huggingface_hub
    except ImportError:
        raise CollabrlError(
            "collabrl hub needs huggingface_hub: pip install 'collabrl[hub]'"
        ) from None
    return huggingface_hub


def _json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise CollabrlError(f"{path}: not readable JSON ({err})") from None


def _run_dir(checkpoint: Path) -> Path:
    """The run folder of ``checkpoint`` (``<run>/checkpoints/iter_NNNNNN``)."""
    return checkpoint.parent.parent


def stage_checkpoint(checkpoint: Path, evals: Sequence[Path], out: Path) -> list[str]:
    """Stage a training checkpoint in ``out``: its HF policy folder's files at the top, the
    trainer state, and the model card; the staged files' names."""
    policy = checkpoint / "policy"
    if not (policy / "config.json").is_file() or not (checkpoint / "trainer_state.json").is_file():
        raise CollabrlError(
            f"{checkpoint}: no policy/config.json and trainer_state.json; is it a checkpoint "
            "folder (<run>/checkpoints/iter_NNNNNN)?"
        )
    out.mkdir(parents=True, exist_ok=True)
    for item in policy.iterdir():
        _copy(item, out / item.name)
    shutil.copy2(checkpoint / "trainer_state.json", out / "trainer_state.json")
    (out / CARD).write_text(model_card(checkpoint, evals), encoding="utf-8")
    return _names(out)


def stage_export(folder: Path, out: Path) -> list[str]:
    """Stage an evaluation folder (``collabrl eval``) or study export (``collabrl study
    export``) in ``out`` with its dataset card; the staged files' names."""
    kind = export_kind(folder)
    out.mkdir(parents=True, exist_ok=True)
    for item in sorted(folder.iterdir()):
        if item.name != CARD and not item.name.startswith("."):
            _copy(item, out / item.name)
    (out / CARD).write_text(dataset_card(folder, kind), encoding="utf-8")
    return _names(out)


def export_kind(folder: Path) -> str:
    """``eval`` or ``study``, by the files the folder holds; one error for anything else."""
    if (folder / "results.json").is_file() and (folder / "episodes.csv").is_file():
        return "eval"
    if (folder / "manifest.json").is_file() and (folder / "responses.csv").is_file():
        return "study"
    raise CollabrlError(
        f"{folder}: neither a `collabrl eval` folder (results.json, episodes.csv) nor a "
        "`collabrl study export` (manifest.json, responses.csv)"
    )


def _copy(src: Path, dst: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        shutil.copy2(src, dst)


def _names(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


def _run_command(run: Path) -> str:
    manifest = run / RUN_MANIFEST
    if not manifest.is_file():
        return "(not recorded)"
    return " ".join(_json(manifest).get("argv") or []) or "(not recorded)"


def _last_metrics(run: Path, checkpoint: Path) -> dict[str, Any]:
    """The checkpoint's own metrics (trainer_state.json), else metrics.jsonl's last line."""
    state = _json(checkpoint / "trainer_state.json")
    if state.get("metrics"):
        return {"iteration": state.get("iteration"), **state["metrics"]}
    lines = (
        read_jsonl(run / "metrics.jsonl", torn_tail=True)
        if (run / "metrics.jsonl").is_file()
        else []
    )
    return lines[-1] if lines else {}


def _scalars(values: dict[str, Any]) -> list[list[str]]:
    return [
        [k, f"{v:.4g}" if isinstance(v, float) else str(v)]
        for k, v in values.items()
        if isinstance(v, int | float | str)
    ]


def _table(rows: list[list[str]], head: list[str]) -> str:
    from tabulate import tabulate

    return tabulate(rows, head, tablefmt="github", disable_numparse=True) if rows else "_none_"


def _evaluation(folder: Path) -> tuple[str, list[dict[str, Any]]]:
    """An evaluation's Overall rows as Markdown, and as the card's ``eval_results``."""
    payload = _json(folder / "results.json")
    rows = [r for r in payload.get("tables", []) if r.get("task") == "Overall"]
    lines = [
        [r["game"], r["seat"], f"{r['efficiency']:.2f}" if r.get("efficiency") is not None else "—"]
        for r in rows
    ]
    text = (
        f"Evaluation `{folder.name}` (policy {payload['stamp'].get('policy')}, judge "
        f"{payload['stamp'].get('judge')}):\n\n" + _table(lines, ["game", "seat", "efficiency"])
    )
    return text, rows


def model_card(checkpoint: Path, evals: Sequence[Path]) -> str:
    """The model card of ``checkpoint``: YAML metadata (licence, base model, tags), then what the
    run was (its command), what it trained on (training_set.json), its last metrics and the
    evaluations named."""
    hub = _hub()
    run = _run_dir(checkpoint)
    config = _json(checkpoint / "policy" / "config.json")
    base = config.get("_name_or_path") or None
    data = hub.ModelCardData(
        license=LICENSE,
        library_name="transformers",
        base_model=base if base and not Path(base).exists() else None,
        tags=[*TAGS, "reinforcement-learning", "gigpo"],
        pipeline_tag="text-generation",
    )
    training = run / "training_set.json"
    trained_on = _json(training) if training.is_file() else {}
    sections = [
        f"# {run.name} ({checkpoint.name})\n",
        "A collabrl policy: an LLM agent trained with reinforcement learning (GiGPO) to "
        "collaborate with simulated partners in CollabBench's games.\n",
        f"## Recipe\n\nTrained by:\n\n```\n{_run_command(run)}\n```\n",
        "## Training data\n\n"
        + _table(
            [
                [k, ", ".join(map(str, v)) if isinstance(v, list) else str(v)]
                for k, v in trained_on.items()
            ],
            ["what", "value"],
        )
        + "\n",
        "## Metrics (last logged iteration)\n\n"
        + _table(_scalars(_last_metrics(run, checkpoint)), ["metric", "value"])
        + "\n",
    ]
    if evals:
        sections.append("## Evaluation\n\n" + "\n\n".join(_evaluation(e)[0] for e in evals) + "\n")
    return str(
        hub.ModelCard.from_template(
            data, template_str="---\n{{ card_data }}\n---\n\n{{ body }}", body="\n".join(sections)
        )
    )


def _schema(path: Path) -> list[list[str]]:
    """The columns of a CSV or JSONL file: name and the type of its first non-empty value."""
    if path.suffix == ".csv":
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        columns = list(rows[0]) if rows else []
        return [[c, _csv_type([r[c] for r in rows])] for c in columns]
    first = read_jsonl(path)[:1]
    return [[k, type(v).__name__] for k, v in (first[0] if first else {}).items()]


def _csv_type(values: list[str]) -> str:
    present = [v for v in values if v != ""]
    for kind, cast in (("int", int), ("float", float)):
        try:
            [cast(v) for v in present]
            return kind
        except ValueError:
            continue
    return "bool" if present and set(present) <= {"True", "False"} else "string"


def _study_terms(folder: Path) -> list[str]:
    """A study's consent page and privacy mode, from its manifest's resolved study."""
    import yaml

    study = yaml.safe_load(_json(folder / "manifest.json").get("study_yaml") or "") or {}
    privacy = (study.get("privacy") or {}).get("platform_ids", "hash")
    consent = [
        p for p in study.get("pages", []) if isinstance(p, dict) and p.get("kind") == "consent"
    ]
    consent_line = (
        "Every participant agreed to the study's consent page before taking part"
        if consent
        else "The study file has no consent page: check consent was collected elsewhere"
    )
    return [
        f"## Consent\n\n{consent_line}.\n",
        f"## Privacy\n\nPlatform ids: `{privacy}` (hash: research files hold a keyed hash; keep: "
        "raw ids; drop: no ids). No IP address, user agent or name is stored.\n",
    ]


def dataset_card(folder: Path, kind: str) -> str:
    """The dataset card of an export: YAML metadata, what it is, each data file's schema, and
    for a study its consent and privacy mode."""
    hub = _hub()
    files = EVAL_FILES if kind == "eval" else STUDY_FILES
    present = [f for f in files if (folder / f).is_file() and f.endswith((".csv", ".jsonl"))]
    data = hub.DatasetCardData(
        license=LICENSE,
        tags=[*TAGS, "evaluation" if kind == "eval" else "user-study"],
        pretty_name=f"collabrl {kind}: {folder.name}",
        configs=[{"config_name": Path(f).stem, "data_files": f} for f in present],
    )
    what = (
        "Episodes of a `collabrl eval` run (CollabBench's protocol): one row per episode, the "
        "tables and the trajectories."
        if kind == "eval"
        else "A `collabrl study export`: participants' responses, rounds and trajectories."
    )
    sections = [f"# {folder.name}\n", f"{what}\n", "## Schema\n"]
    for f in present:
        sections.append(f"### `{f}`\n\n{_table(_schema(folder / f), ['column', 'type'])}\n")
    if kind == "study":
        sections += _study_terms(folder)
    return str(
        hub.DatasetCard.from_template(
            data, template_str="---\n{{ card_data }}\n---\n\n{{ body }}", body="\n".join(sections)
        )
    )
