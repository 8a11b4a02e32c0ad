"""A few steps of TRL's GRPO on the household game through the OpenEnv export, with a tiny model
built here (nothing downloaded): the rewards TRL trains on are collabrl's own for the same
episodes."""

from __future__ import annotations

import importlib.util

import pytest

if importlib.util.find_spec("trl") is None:  # not importorskip: importing TRL costs collection
    pytest.skip("pip install 'collabrl[trl]'", allow_module_level=True)

from collabrl.config import load_recipe  # noqa: E402
from collabrl.interop.session import EpisodeSpec  # noqa: E402
from collabrl.web.server import background  # noqa: E402
from tests.interop.conftest import RECIPE, collabrl_reward  # noqa: E402

TOOL_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]


def _tool_calling_tiny_model(directory):
    """collabrl's tiny model with the chat template TRL ships for Qwen3 (one TRL can render
    tool calls in and parse them back from), its tool tokens added."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl.chat_template_utils import qwen3_chat_template

    from collabrl.models.tiny import make_tiny_model

    path = make_tiny_model(directory)
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.add_special_tokens({"additional_special_tokens": TOOL_TOKENS})
    tokenizer.chat_template = qwen3_chat_template
    model = AutoModelForCausalLM.from_pretrained(path)
    model.resize_token_embeddings(len(tokenizer))
    return model, tokenizer


def _recording_env(episodes: list[dict]):
    """The export's TRL class, keeping each episode's row, replies and reward in ``episodes``
    (built here: the export imports the OpenEnv client, which collection need not pay for)."""
    from collabrl.interop.trl_env import CollabTRLEnv

    class RecordingEnv(CollabTRLEnv):
        def reset(self, **row) -> str:
            self._episode = {"row": row, "replies": []}
            episodes.append(self._episode)
            return super().reset(**row)

        def get_reward(self) -> float:
            self._episode["reward"] = super().get_reward()
            return self._episode["reward"]

        def _step(self, reply: str) -> str:
            self._episode["replies"].append(reply)
            return super()._step(reply)

    return RecordingEnv


@pytest.mark.slow
def test_grpo_steps_on_household_rewards_equal_collabrls_own(tmp_path, monkeypatch):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from collabrl.interop.openenv_server import make_app
    from collabrl.interop.trl_env import dataset_rows

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    recipe = load_recipe(RECIPE, ["game.max_decisions=3", "reward.judge.kind=heuristic"])
    model, tokenizer = _tool_calling_tiny_model(tmp_path / "tiny")
    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        max_steps=2,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=24,
        learning_rate=1e-4,
        use_cpu=True,
        bf16=False,
        report_to=[],
        save_strategy="no",
        logging_steps=1,
        seed=0,
    )
    episodes: list[dict] = []
    recording_env = _recording_env(episodes)
    with background(make_app(recipe)) as url:
        trainer = GRPOTrainer(
            model=model,
            processing_class=tokenizer,
            args=args,
            train_dataset=Dataset.from_list(dataset_rows(recipe, 2)),
            environment_factory=lambda: recording_env(url),
        )
        trainer.train()
    assert len(episodes) == 4  # 2 steps x 2 generations
    for episode in episodes:
        row = episode["row"]
        spec = EpisodeSpec(row["task"], row["profile"], row["seed"])
        own, _ = collabrl_reward(recipe, spec, episode["replies"])
        assert episode["reward"] == pytest.approx(own)
    logged = [h for h in trainer.state.log_history if "reward" in h]
    assert len(logged) == 2
    assert [h["reward"] for h in logged] == pytest.approx(
        [
            (a["reward"] + b["reward"]) / 2
            for a, b in zip(episodes[::2], episodes[1::2], strict=True)
        ]
    )
