"""Several trainer ranks, each with its own vLLM: the engine runs inside the rank's process (vLLM's
``external_launcher``), so it uses the rank's GPU instead of every rank's vLLM landing on the
first visible one. Checked on the options the loop hands the engine (no GPU needed)."""

from __future__ import annotations

import sys
import types

import pytest

from collabrl.config import load_recipe
from collabrl.engines.options import VLLMOptions
from collabrl.errors import CollabrlError
from collabrl.training import loop
from collabrl.training.loop import colocated_vllm_options


def test_one_process_keeps_vllms_own_executor():
    options = {"gpu_memory_utilization": 0.35}
    assert colocated_vllm_options(options, processes=1) == options


def test_each_rank_runs_its_vllm_in_process_keeping_the_recipes_other_llm_kwargs():
    options = {"gpu_memory_utilization": 0.35, "llm_kwargs": {"max_num_seqs": 64}}
    got = colocated_vllm_options(options, processes=4)
    assert got["llm_kwargs"] == {
        "distributed_executor_backend": "external_launcher",
        "max_num_seqs": 64,
    }
    assert got["gpu_memory_utilization"] == 0.35 and options["llm_kwargs"] == {"max_num_seqs": 64}


def test_tensor_parallel_vllm_across_trainer_ranks_is_refused():
    with pytest.raises(CollabrlError, match="tensor_parallel_size=2: with 2 trainer processes"):
        colocated_vllm_options({"tensor_parallel_size": 2}, processes=2)


def test_the_loop_hands_a_multi_rank_vllm_the_in_process_executor(monkeypatch):
    made = []
    fake = types.ModuleType("collabrl.engines.vllm_engine")
    fake.VLLMOptions = VLLMOptions
    fake.VLLMEngine = lambda path, options, template: made.append(options) or "engine"
    monkeypatch.setitem(sys.modules, "collabrl.engines.vllm_engine", fake)

    class TwoRanks:
        num_processes = 2

    monkeypatch.setattr("accelerate.PartialState", TwoRanks)
    recipe = load_recipe("cwah_gigpo", [])
    assert loop._rollout_engine(recipe, None, None, "model-folder") == "engine"
    (options,) = made
    assert options.llm_kwargs["distributed_executor_backend"] == "external_launcher"
    assert options.enable_sleep_mode  # the recipe's own options are kept
