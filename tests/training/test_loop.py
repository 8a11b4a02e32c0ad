"""Training pieces on CPU with a tiny model: batch layout, rollout samples, a short run, and an
exact resume after SIGKILL."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from collabrl.testing.fake_openai import FakeOpenAIServer, Fault
from collabrl.training.metrics import combine_ranks, failure_counts, failure_rates
from collabrl.training.update import collate

ROOT = Path(__file__).resolve().parents[2]
FAST = [
    "partner.kind=expert",
    "reward.judge.kind=none",
    "game.max_decisions=3",
    "rollout.episodes_per_group=2",
    "policy.sampling.max_new_tokens=12",
    "train.wandb=disabled",
    "algo.mini_batch=16",
    "algo.micro_batch=4",
    "algo.entropy_coef=0.01",
    "algo.lr=0.001",
]


def test_collate_puts_loss_only_on_response_tokens() -> None:
    batch = collate(
        [[5, 6, 7], [8]], [[1, 2], [3, 4, 9]], [[-0.5, -0.6], [-1, -2, -3]], [2.0, -1.0], 0
    )
    assert batch.input_ids.tolist() == [[5, 6, 7, 1, 2], [8, 3, 4, 9, 0]]
    assert batch.attention_mask.tolist() == [[1, 1, 1, 1, 1], [1, 1, 1, 1, 0]]
    # position t predicts token t+1: responses start at len(prompt)-1
    assert batch.response_mask.tolist() == [[0, 0, 1, 1], [1, 1, 1, 0]]
    assert batch.old_logprobs[0].tolist() == pytest.approx([0, 0, -0.5, -0.6])
    assert batch.advantages.tolist() == [[0, 0, 2, 2], [-1, -1, -1, 0]]


def train_cmd(out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        str(ROOT / "train.py"),
        "recipe=cwah_gigpo_cpu",
        f"output_dir={out}",
        *FAST,
        *extra,
    ]


def metrics(run: Path) -> list[dict]:
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [{k: v for k, v in r.items() if not k.startswith("time/")} for r in rows]


# 3 iterations of 3 mini-batches each (so clipping shows), judged by the heuristic judge
SEEDED = (
    "train.iterations=3",
    "train.checkpoint_every=1",
    "algo.mini_batch=4",
    "algo.micro_batch=2",
    "reward.judge.kind=heuristic",
    "policy.engine_options={batch_size: 64}",  # the rollout batched as when the numbers were pinned
)


@pytest.fixture(scope="module")
def seeded_run(tmp_path_factory) -> Path:
    """A tiny seeded 3-iteration CPU run (tiny model, expert partners), shared by the tests."""
    full = tmp_path_factory.mktemp("seeded") / "full"
    out = subprocess.run(
        train_cmd(full, *SEEDED),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return full


# Golden numbers of ``seeded_run`` (torchtune style), the loop end to end: rollout, pi_old, KL to
# the reference, entropy bonus, clipping. Its random tiny policy makes no valid decision, so its
# advantages are all zero; the policy-gradient arithmetic with real advantages is pinned by
# tests/training/test_ppo_update.py::test_seeded_update_matches_golden_numbers. Measured with torch 2.13.0
# on CPU; the run is deterministic, so the tolerance only absorbs summation order.
GOLDEN = {
    "loss": [-0.05657579998175303, -0.055666184412282806, -0.0540886614471674],
    "kl": [0.15757369250059128, 0.24976122209377452, 0.4705915202697118],
    "entropy": [5.8151538372039795, 5.8163796767853855, 5.879457871119182],
    "clip_fraction": [0.10416666666666667, 0.20723684184383928, 0.22222222139437994],
}


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_seeded_run_matches_golden_numbers(seeded_run: Path) -> None:
    rows = metrics(seeded_run)
    for key, expected in GOLDEN.items():
        assert [r[key] for r in rows] == pytest.approx(expected, rel=1e-4, abs=1e-6), key


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_a_run_records_the_role_prompts_it_used(seeded_run: Path) -> None:
    from collabrl.agents.prompts import role_prompt_stamps

    assert json.loads((seeded_run / "prompts.json").read_text()) == role_prompt_stamps()


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_short_run_learns_nothing_silly_and_resumes_exactly_after_sigkill(
    seeded_run: Path, tmp_path
) -> None:
    reference = metrics(seeded_run)
    assert [r["iteration"] for r in reference] == [0, 1, 2]
    first = reference[0]
    assert first["logprob_mismatch"] < 1e-4  # the sampler is the trainer's own model
    assert first["decisions"] > 0
    assert first["valid_rate"] == 0.0  # the random tiny policy makes no valid decision (GOLDEN)
    assert (seeded_run / "checkpoints" / "iter_000002" / "policy" / "config.json").is_file()
    assert reference[2]["entropy"] != reference[0]["entropy"]  # the weights really moved

    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        train_cmd(killed, *SEEDED),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    marker = killed / "checkpoints" / "iter_000000" / "trainer_state.json"
    deadline = time.time() + 300
    while not marker.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert marker.exists()
    out = subprocess.run(
        train_cmd(killed, *SEEDED, "train.resume=true"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "resumed from" in out.stdout
    resumed = metrics(killed)
    assert [r["iteration"] for r in resumed] == [0, 1, 2]
    for a, b in zip(resumed, reference, strict=True):
        assert a.keys() == b.keys()
        for key in a:
            assert a[key] == pytest.approx(b[key], rel=1e-5, abs=1e-7), key


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
@pytest.mark.parametrize(
    "recipe,extra",
    [
        ("cwah_gigpo_cpu", ["policy.lora.rank=8", "policy.lora.alpha=16"]),
        ("cook_gigpo_cpu", ["game.horizon=8"]),
        ("cwah_gigpo_cpu", ["partner.kind=persona", "reward.judge.kind=heuristic"]),
        ("cwah_gigpo_cpu", ["partner.kind=self", "game.max_decisions=6"]),
    ],
)
def test_recipe_variants_train_one_iteration(tmp_path, recipe: str, extra: list[str]) -> None:
    out = tmp_path / "run"
    cmd = train_cmd(out, "train.iterations=1", *extra)
    cmd[2] = f"recipe={recipe}"
    if recipe.startswith("cook"):  # the kitchen bounds episodes by its horizon, not decisions
        cmd = [c for c in cmd if not c.startswith("game.max_decisions")]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    (row,) = metrics(out)
    assert row["decisions"] > 0 and row["logprob_mismatch"] < 1e-4
    policy = out / "checkpoints" / "iter_000000" / "policy"
    assert (policy / "config.json").is_file() and not (policy / "adapter_config.json").exists()


def test_rank_metrics_combine_counts_times_and_means() -> None:
    rank0 = {"decisions": 10, "time/iteration": 3.0, "kl": 0.2, "type/a/steps": 40.0}
    rank1 = {"decisions": 14, "time/iteration": 5.0, "kl": 0.4, "type/b/steps": 60.0}
    combined = combine_ranks([rank0, rank1])
    assert combined["decisions"] == 24 and combined["time/iteration"] == 5.0
    assert combined["kl"] == pytest.approx(0.3)
    assert combined["type/a/steps"] == 40.0 and combined["type/b/steps"] == 60.0
    assert combine_ranks([rank0]) == rank0


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
@pytest.mark.parametrize(
    "override,error",
    [
        # no decision gets tokens: nothing could be learnt, the engine's reason is shown
        ("policy.max_prompt_tokens=1", "error: iteration 0: none of the"),
        # an absurd step size is refused before the run starts
        ("algo.lr=1e30", "algo.lr: Input should be less than or equal to 1"),
    ],
)
def test_runs_that_cannot_learn_stop_with_one_line_and_save_nothing(
    tmp_path, override: str, error: str
) -> None:
    out = tmp_path / "run"
    done = subprocess.run(
        train_cmd(out, "train.iterations=1", override), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert error in done.stderr.strip().splitlines()[-1]
    assert not (out / "checkpoints").exists()


@pytest.mark.slow  # trains a model: only the full suite (.ci/run) runs it
def test_failing_partner_server_is_counted_and_stops_the_run(tmp_path) -> None:
    partner = ("partner.kind=llm", "partner.engine={backend: openai, model: fake}")
    partner += ("partner.engine.options={max_retries: 0}", "train.iterations=1")
    with FakeOpenAIServer() as server:
        server.inject("", *[Fault.http(500)] * 100_000)  # every request fails
        env = {**os.environ, "COLLABRL_OPENAI_BASE_URL": server.base_url}
        counted, stopped = (
            subprocess.run(
                train_cmd(tmp_path / limit, *partner, f"train.max_failure_rate={limit}"),
                capture_output=True,
                text=True,
                timeout=600,
                env=env,
            )
            for limit in ("1.0", "0.5")
        )
    assert counted.returncode == 0, counted.stderr[-2000:]
    (row,) = metrics(tmp_path / "1.0")
    failed = row["failures/partner"]
    assert failed == row["requests/partner"] > 0 and row["failures/policy"] == 0
    assert row["requests/policy"] == row["decisions"] and row["requests/judge"] == 0
    assert f"| failed partner {failed}/{failed}" in counted.stdout
    assert stopped.returncode == 2, stopped.stderr[-2000:]
    assert stopped.stderr.strip().splitlines()[-1] == (
        "error: iteration 0: failure rate above train.max_failure_rate=0.5: "
        f"partner 1.00 ({failed} of {failed})"
    )
    assert not (tmp_path / "0.5" / "checkpoints").exists()


def test_judge_failures_are_counted_and_summed_over_ranks() -> None:
    levels = {(0, 0, 0): None, (0, 0, 1): 0.4, (0, 1, 0): None}  # None: the judge call failed
    counts = failure_counts([], levels)
    assert counts == {
        "failures/policy": 0,
        "requests/policy": 0,
        "failures/partner": 0,
        "requests/partner": 0,
        "failures/judge": 2,
        "requests/judge": 3,
        "retries/judge": 0,
    }
    assert failure_rates(counts) == {"judge": pytest.approx(2 / 3)}
    assert combine_ranks([counts, counts])["failures/judge"] == 4  # summed, not averaged


# Golden numbers of the quickstart's compact setup (recipe cwah_gigpo_compact_cpu: the tokenizer
# fitted to the game's text, the compact prompt, 4 groups an iteration) over the seeded run's
# settings, two iterations. Measured with torch 2.13.0 on CPU.
COMPACT_GOLDEN = {
    "loss": [-0.0645114853978157, -0.0646829300870498],
    "kl": [0.2982823463777701, 0.36489057665069896],
    "entropy": [6.7494310935338335, 6.833183765411377],
    "clip_fraction": [0.12847222139437994, 0.256944446824491],
}


@pytest.mark.slow
def test_compact_setup_seeded_run_matches_golden_numbers(tmp_path) -> None:
    out = tmp_path / "compact"
    cmd = train_cmd(out, *SEEDED, "train.iterations=2")
    cmd[2] = "recipe=cwah_gigpo_compact_cpu"
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = metrics(out)
    assert "prompt: compact" in (out / "recipe.yaml").read_text()
    assert (out / "tiny-game-model" / "tokenizer.json").is_file()
    for key, expected in COMPACT_GOLDEN.items():
        assert [r[key] for r in rows] == pytest.approx(expected, rel=1e-4, abs=1e-6), key
