"""What a reader needs to trust a learning claim: paired intervals worked by hand, the per-level
share of the gradient on a constructed batch, a seeded run's logged share of live groups, and
paired comparisons of evaluation folders."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from collabrl.algos.gigpo import AdvantageParts, gigpo_advantages, gigpo_parts
from collabrl.cli import cli, main
from collabrl.config import load_recipe
from collabrl.engines.hf import TransformersEngine, TransformersOptions
from collabrl.engines.types import Completion, GenerationResult
from collabrl.errors import CollabrlError
from collabrl.eval.compare import compare, comparison_markdown, read_episodes, verdict
from collabrl.stats import mean_ci, paired_difference
from collabrl.training import loop
from collabrl.training.lockstep import Sample
from collabrl.training.metrics import signal_metrics
from collabrl.training.rewards import Scored


def test_paired_interval_matches_a_hand_worked_example() -> None:
    # differences 1, 2, 3, 4: mean 2.5, sd sqrt(5/3) = 1.29099, se 0.645497,
    # t(0.975, 3) = 3.182446, half width 2.054260
    d = paired_difference([1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0])
    assert (d.n, d.mean) == (4, 2.5)
    assert (d.low, d.high) == pytest.approx((0.445740, 4.554260), abs=1e-6)
    assert d.excludes_zero is True and d.cell() == "2.500 [0.446, 4.554]"
    assert json.dumps([d.low, d.high, d.excludes_zero])  # plain Python numbers, for results.json
    # the same differences in the other direction, and a pair with a missing value left out
    back = paired_difference([2.0, 4.0, 6.0, 8.0, math.nan], [1.0, 2.0, 3.0, 4.0, 7.0])
    assert (back.n, back.mean) == (4, -2.5) and back.high == pytest.approx(-0.445740, abs=1e-6)
    noisy = paired_difference([0.0, 1.0], [1.0, 0.0])  # mean 0: the interval spans zero
    assert not noisy.excludes_zero
    assert mean_ci([3.0, 3.0, 3.0]) == mean_ci([3.0]).__class__(3, 3.0, 3.0, 3.0)
    with pytest.raises(ValueError, match="differ in length"):
        paired_difference([1.0], [1.0, 2.0])


def _sample(group: int, episode: int) -> Sample:
    return Sample(group, episode, 0, 0, [1], [2], [0.0], "a", True, False, "", "")


def test_gradient_share_per_level_on_a_constructed_batch() -> None:
    # group 0: live at both levels; group 1: equal episode scores, step contrast only
    samples = [_sample(0, 0), _sample(0, 1), _sample(1, 0), _sample(1, 1)]
    scored = Scored(samples, [0.0] * 4, [0.0] * 4, False)
    parts = AdvantageParts(np.array([1.0, -1.0, 0.0, 0.0]), np.array([0.5, -0.5, 0.25, -0.25]))
    m = signal_metrics(scored, parts, keep=[0, 1, 2, 3])
    assert m["signal/live_groups"] == 0.5 and m["signal/live_step_groups"] == 1.0
    # |A_E| sums to 2, |omega A_S| to 1.5
    assert m["signal/episode_share"] == pytest.approx(2 / 3.5)
    assert m["signal/step_share"] == pytest.approx(1.5 / 3.5)
    only_group_1 = signal_metrics(scored, parts, keep=[2, 3])
    assert (only_group_1["signal/episode_share"], only_group_1["signal/step_share"]) == (0.0, 1.0)
    dead = signal_metrics(scored, AdvantageParts(np.zeros(4), np.zeros(4)), keep=[0, 1, 2, 3])
    assert dead == {
        "signal/live_groups": 0.0,
        "signal/live_step_groups": 0.0,
        "signal/episode_share": 0.0,
        "signal/step_share": 0.0,
    }


def test_gigpo_parts_add_up_to_the_contract_advantages() -> None:
    args = ([0, 0, 0, 0, 1, 1], [0, 0, 1, 1, 0, 1], list("abab" + "cc"))
    rewards, returns = [0.0, 1.0, 0.5, 0.0, 0.2, 0.1], [1.0, 1.0, 0.0, 0.0, 0.3, 0.3]
    parts = gigpo_parts(*args, rewards, returns, omega=0.5)
    total = gigpo_advantages(*args, rewards, returns, omega=0.5)
    np.testing.assert_allclose(parts.total, total)
    assert np.all(parts.episode[4:] == 0)  # group 1's episodes scored alike
    np.testing.assert_allclose(parts.step, total - parts.episode)


class RandomLetterEngine:
    """A seeded policy that picks one of the listed moves at random (a valid reply the trainer
    can learn from; never a message, which would need text), so episodes differ in outcome."""

    def __init__(self, inner: TransformersEngine) -> None:
        self.inner = inner

    def generate(self, conversations, params):
        rng = random.Random(params.seed)
        results = []
        for conv in conversations:
            prompt = self.inner.encode(conv)
            moves = re.findall(r"^([A-Z])\. \[go", conv[-1]["content"], flags=re.MULTILINE)
            reply = f"<think>go</think><message></message><action>{rng.choice(moves)}</action>"
            ids = self.inner.tokenizer(reply, add_special_tokens=False)["input_ids"]
            completion = Completion(reply, "stop", ids, [-1.0] * len(ids))
            results.append(GenerationResult([completion], prompt, len(prompt), len(ids)))
        return results


# The share of live groups per iteration of ``test_seeded_run_logs_live_groups`` (2 groups of 2
# episodes, the expert partner, a seeded random-move policy, no judge: every step reward is 0, so
# the whole gradient comes from the episode level).
LIVE_GROUPS = [1.0, 1.0]


@pytest.mark.slow
def test_seeded_run_logs_live_groups(tmp_path, monkeypatch) -> None:
    def engine(recipe, model, tokenizer, model_path):
        return RandomLetterEngine(TransformersEngine(model, tokenizer, TransformersOptions()))

    monkeypatch.setattr(loop, "_rollout_engine", engine)
    recipe = load_recipe(
        "cwah_gigpo_cpu",
        [
            "partner.kind=expert",
            "reward.judge.kind=none",
            "game.max_decisions=60",
            "rollout.episodes_per_group=2",
            "train.iterations=2",
            "train.checkpoint_every=0",
            "train.wandb=disabled",
            f"output_dir={tmp_path}",
        ],
    )
    loop.train(recipe)
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["signal/live_groups"] for r in rows] == LIVE_GROUPS
    for r in rows:
        assert r["signal/episode_share"] + r["signal/step_share"] == pytest.approx(1.0)
        assert r["signal/episode_share"] == 1.0 and r["success_rate"] == 1.0


def _rows(values: dict[str, float], seat: str = "Agent 1") -> list[dict]:
    return [
        {
            "game": "household",
            "task": task,
            "profile": "p1",
            "seat": seat,
            "seed": "0",
            "team_size": "",
            "structure": "",
            "efficiency_reward": str(v),
            "success": str(v > 0),
        }
        for task, v in values.items()
    ]


def test_compare_pairs_by_job_and_leaves_unpaired_jobs_out() -> None:
    a = _rows({"t1": 0.1, "t2": 0.2, "t3": 0.0, "t4": 0.3})
    b = _rows({"t1": 0.3, "t2": 0.3, "t3": 0.2, "t5": 0.9})  # t4 / t5 played by one side only
    c = compare(a, b, "SFT", "GiGPO")
    assert (c.jobs, c.unpaired) == (3, 2)
    d = c.difference["efficiency_reward"]
    assert d.n == 3 and d.mean == pytest.approx(0.5 / 3)
    assert c.means_a["success"].mean == pytest.approx(2 / 3) and c.means_b["success"].mean == 1
    assert "affective" not in c.difference  # a column neither side has is skipped
    table = comparison_markdown(c)
    assert "GiGPO - SFT [95% CI]" in table and "3 paired jobs; 2 unpaired left out" in table
    assert verdict(c).startswith("GiGPO is above SFT on efficiency reward by 0.167 [")
    with pytest.raises(CollabrlError, match="share no job"):
        compare(a, _rows({"t1": 0.1}, seat="Agent 2"))
    with pytest.raises(CollabrlError, match="appears twice"):
        compare(a + a[:1], b)


def _write_eval(folder: Path, rows: list[dict]) -> None:
    import csv

    folder.mkdir()
    with open(folder / "episodes.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_eval_compare_reads_two_folders(tmp_path, capsys) -> None:
    _write_eval(tmp_path / "a", _rows({"t1": 0.1, "t2": 0.2, "t3": 0.15}))
    _write_eval(tmp_path / "b", _rows({"t1": 0.1, "t2": 0.25, "t3": 0.1}))
    out = CliRunner().invoke(cli, ["eval", "--compare", str(tmp_path / "a"), str(tmp_path / "b")])
    assert out.exit_code == 0, out.output
    assert "3 paired jobs" in out.output
    assert re.search(r"is not distinguishable from zero\.\n$", out.output)
    assert len(read_episodes(tmp_path / "a")) == 3
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "--compare", str(tmp_path), str(tmp_path / "b")])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path}: no episodes.csv; is it a `collabrl eval` output folder?\n"
    )


def test_floor_and_ceiling_play_the_same_jobs(tmp_path) -> None:
    from collabrl.eval.protocol import run_evaluation
    from collabrl.eval.report import episode_rows

    def rows(kind: str) -> list[dict]:
        recipe = load_recipe(
            "cwah_gigpo_cpu",
            [
                "eval.tasks=[0_read_book]",
                "eval.max_profiles=2",
                "eval.seats=[1]",
                f"eval.policy.kind={kind}",
                f"eval.output_dir={tmp_path / kind}",
            ],
        )
        return episode_rows(run_evaluation(recipe.evaluation(), progress=False).outcomes)

    floor, ceiling = rows("idle"), rows("expert")
    assert all(r["valid_rate"] == 0 and r["message_ratio"] == 0 for r in floor)
    c = compare(floor, ceiling, "idle", "expert")
    assert c.jobs == 2 and c.unpaired == 0
    # the expert in the agent's seat adds to what the partner achieves alone
    assert c.means_b["efficiency_reward"].mean > c.means_a["efficiency_reward"].mean


def _benchmark():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "learning.py"
    spec = importlib.util.spec_from_file_location("learning_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_learning_benchmark_resumes_stages_and_states_each_claim(tmp_path, capsys) -> None:
    bench = _benchmark()
    calls = []
    saved = bench.stage(tmp_path / "s.json", lambda: calls.append(1) or {"x": 1})
    again = bench.stage(tmp_path / "s.json", lambda: calls.append(1) or {"x": 2})
    assert saved == again == {"x": 1} and calls == [1]  # a finished stage is never redone

    def rows(eff: list[float], msg: float) -> list[dict]:
        return [
            {**_rows({f"t{i}": v})[0], "message_ratio": msg, "affective": 2.0 + v}
            for i, v in enumerate(eff)
        ]

    def seed(shift: float) -> dict:
        return {
            "episodes": {
                bench.SFT: rows([0.1, 0.2, 0.0], 0.3),
                bench.FULL: rows([0.2 + shift, 0.3, 0.1], 0.6),
                bench.SILENT: rows([0.1, 0.25, 0.05], 0.2),
                bench.FLOOR: rows([0.0, 0.1, 0.0], 0.0),
                bench.CEILING: rows([0.4, 0.5, 0.3], 0.3),
            },
            "signal": {
                bench.FULL: {"nonzero_gradient": 1.0},
                bench.SILENT: {"nonzero_gradient": 0.5 + shift},
            },
        }

    lines = bench.report({0: seed(0.0), 1: seed(0.25)})
    out = capsys.readouterr().out
    assert "## pooled over seeds" in out and "seed pooled: SFT + GiGPO - SFT" in out
    assert lines[0].startswith("hybrid reward above SFT on held-out efficiency reward in 2/2 seeds")
    assert "(excludes zero)" in lines[0]
    assert lines[3] == (
        "w/o affective: non-zero gradient in 50%, 75% of iterations (goal: at least 75% in each)"
    )
    assert lines[4] == "w/o affective ends quieter than the full reward in 2/2 seeds"


def test_the_benchmark_counts_reward_gradients_not_the_kl_term(tmp_path) -> None:
    """An iteration whose groups are all dead still has a gradient from the KL term; it must not
    count as one in which the reward trained the policy."""
    bench = _benchmark()
    lines = [
        {"grad_norm": 0.0, "signal/live_groups": 0.0, "signal/live_step_groups": 0.0},
        {"grad_norm": 0.3, "signal/live_groups": 0.0, "signal/live_step_groups": 0.0},  # KL only
        {"grad_norm": 0.5, "signal/live_groups": 0.5, "signal/live_step_groups": 0.0},
        {"grad_norm": 0.4, "signal/live_groups": 0.0, "signal/live_step_groups": 1.0},
    ]
    rows = [{**r, "messages_per_step": 0.2, "success_rate": 0.5} for r in lines]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    signal = bench.gradient_signal(tmp_path)
    assert signal["nonzero_gradient"] == 0.5 and signal["final_train_msg"] == 0.2
