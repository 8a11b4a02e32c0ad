"""``collabrl hub push`` without a network: the dry run writes exactly what a push uploads (a
local fake HfApi records the upload), the model and dataset cards parse as huggingface_hub's
cards with the metadata they need, offline mode and a missing token are one error each, and the
token never shows."""

from __future__ import annotations

import json
from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub import DatasetCard, ModelCard

from tests.report.conftest import run_cli

TOKEN = "hf_not_a_real_token_123"


@pytest.fixture
def checkpoint(tmp_path) -> Path:
    """A run folder laid out as collabrl train leaves it, with one checkpoint."""
    run = tmp_path / "runs" / "gigpo_tiny"
    ckpt = run / "checkpoints" / "iter_000002"
    (ckpt / "policy").mkdir(parents=True)
    (ckpt / "policy" / "config.json").write_text(
        json.dumps({"_name_or_path": "Qwen/Qwen2.5-0.5B-Instruct", "model_type": "qwen2"})
    )
    (ckpt / "policy" / "model.safetensors").write_bytes(b"weights")
    (ckpt / "trainer_state.json").write_text(
        json.dumps({"iteration": 2, "metrics": {"reward/efficiency": 0.25, "loss": 1.5}})
    )
    (run / "run.json").write_text(
        json.dumps({"command": "train", "argv": ["train.py", "recipe=tiny", "seed=3"]})
    )
    (run / "training_set.json").write_text(
        json.dumps({"tasks": ["0_read_book"], "partner_profiles": ["p1", "p2"]})
    )
    return ckpt


def files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_a_checkpoint_dry_run_writes_the_model_card_and_weights(
    checkpoint, eval_dirs, tmp_path
) -> None:
    out = tmp_path / "staged"
    text = run_cli(
        "hub",
        "push",
        str(checkpoint),
        "--repo",
        "me/gigpo",
        "--eval",
        str(eval_dirs["trained"]),
        "--dry-run",
        "--out",
        str(out),
    )
    assert f"wrote the 4 files a push to me/gigpo would upload to {out}" in text
    assert set(files(out)) == {
        "README.md",
        "config.json",
        "model.safetensors",
        "trainer_state.json",
    }
    card = ModelCard.load(out / "README.md")
    meta = card.data.to_dict()
    assert meta["license"] == "apache-2.0" and meta["library_name"] == "transformers"
    assert meta["base_model"] == "Qwen/Qwen2.5-0.5B-Instruct"
    assert {"collabrl", "gigpo"} <= set(meta["tags"])
    assert "train.py recipe=tiny seed=3" in card.text  # the run's recipe, as it was run
    assert "| partner_profiles | p1, p2" in card.text  # its training data
    assert "| reward/efficiency | 0.25" in card.text  # its metrics
    assert "Evaluation `trained` (policy expert" in card.text  # its evaluation


def test_an_evaluation_dry_run_writes_a_dataset_card_with_the_schema(eval_dirs, tmp_path) -> None:
    out = tmp_path / "staged"
    run_cli("hub", "push", str(eval_dirs["base"]), "--repo", "me/e", "--dry-run", "--out", str(out))
    assert set(files(out)) >= {"README.md", "episodes.csv", "results.json", "trajectories.jsonl"}
    card = DatasetCard.load(out / "README.md")
    meta = card.data.to_dict()
    assert meta["license"] == "apache-2.0" and "evaluation" in meta["tags"]
    assert {"config_name": "episodes", "data_files": "episodes.csv"} in meta["configs"]
    assert "| efficiency " in card.text and "| float " in card.text  # episodes.csv's schema


def test_a_study_export_card_names_consent_and_privacy(tmp_path) -> None:
    export = tmp_path / "export"
    export.mkdir()
    study = "pages:\n- {id: consent, kind: consent}\n- {id: end, kind: end}\nprivacy:\n  platform_ids: drop\n"
    (export / "manifest.json").write_text(json.dumps({"study": "s", "study_yaml": study}))
    (export / "responses.csv").write_text("participant,condition,helpfulness\nh1,a,4\nh2,b,5\n")
    out = tmp_path / "staged"
    run_cli("hub", "push", str(export), "--repo", "me/s", "--dry-run", "--out", str(out))
    card = DatasetCard.load(out / "README.md")
    assert "user-study" in card.data.to_dict()["tags"]
    assert "agreed to the study's consent page" in card.text
    assert "Platform ids: `drop`" in card.text
    assert "| helpfulness | int " in card.text


class FakeHfApi:
    """Records what a push would send instead of sending it."""

    uploaded: dict[str, bytes] = {}
    calls: list[tuple] = []

    def __init__(self, token: str | None = None) -> None:
        assert token == TOKEN

    def create_repo(self, repo_id: str, **kwargs) -> str:
        FakeHfApi.calls.append(("create_repo", repo_id, kwargs["repo_type"]))
        return f"https://huggingface.co/{repo_id}"

    def upload_folder(self, *, folder_path, repo_id: str, repo_type: str, **_kw) -> None:
        FakeHfApi.calls.append(("upload_folder", repo_id, repo_type))
        FakeHfApi.uploaded = files(Path(folder_path))


def test_a_push_uploads_exactly_the_dry_runs_files(checkpoint, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeHfApi)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    text = run_cli("hub", "push", str(checkpoint), "--repo", "me/gigpo")
    assert "pushed 4 files to https://huggingface.co/me/gigpo" in text and TOKEN not in text
    assert FakeHfApi.calls == [
        ("create_repo", "me/gigpo", "model"),
        ("upload_folder", "me/gigpo", "model"),
    ]
    out = tmp_path / "staged"
    run_cli("hub", "push", str(checkpoint), "--repo", "me/gigpo", "--dry-run", "--out", str(out))
    assert files(out) == FakeHfApi.uploaded


def test_offline_mode_and_a_missing_token_are_one_error(eval_dirs, monkeypatch) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    text = run_cli("hub", "push", str(eval_dirs["base"]), "--repo", "me/e", code=2)
    assert "error: set HF_TOKEN" in text
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    text = run_cli("hub", "push", str(eval_dirs["base"]), "--repo", "me/e", code=2)
    assert text.endswith("error: HF_HUB_OFFLINE is set: unset it to push, or use --dry-run\n")
    assert TOKEN not in text


def test_a_folder_that_is_neither_is_one_error(tmp_path) -> None:
    text = run_cli(
        "hub",
        "push",
        str(tmp_path),
        "--repo",
        "me/x",
        "--dry-run",
        "--out",
        str(tmp_path / "o"),
        code=2,
    )
    assert "neither a `collabrl eval` folder" in text
