"""The two role prompts (collaborative agent, simulated player), their stamps, and who gets which."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from collabrl.agents.llm_player import LLMPlayer
from collabrl.agents.prompts import build_messages, role_prompt, role_prompt_stamps
from collabrl.config import load_recipe
from collabrl.engines.types import SamplingParams
from collabrl.envs.household.game import HouseholdGame
from collabrl.envs.kitchen.game import KitchenGame
from collabrl.testing.scripted import ScriptedEngine
from collabrl.training.groups import GroupPlan, make_slots


def system_text(game, role: str, persona: str | None = None) -> str:
    obs = next(iter(game.reset(seed=0).values()))
    return build_messages(game, obs, persona, role)[0]["content"]


def test_prompt_files_differ_by_role_and_carry_versions() -> None:
    agent, player = role_prompt("agent"), role_prompt("player")
    assert agent.version.startswith("agent-") and player.version.startswith("player-")
    assert agent.text != player.text
    stamps = role_prompt_stamps()
    assert set(stamps) == {"agent", "player", "agent_compact"}
    assert len(set(stamps.values())) == 3
    assert all("@" in s for s in stamps.values())


@pytest.mark.parametrize(
    "make_game", [lambda: HouseholdGame("0_read_book"), lambda: KitchenGame("cramped_room")]
)
def test_only_the_simulated_player_gets_the_player_rules_and_a_persona(make_game) -> None:
    game = make_game()
    agent = system_text(game, "agent")
    player = system_text(game, "player", "Talks a lot and worries.")
    bare_player = system_text(game, "player")
    for rule in ("do what they said", "wait on your own initiative"):
        assert rule in player and rule in bare_player and rule not in agent
    # the greeting rule only where the game opens with a greeting at the first decision
    greets = getattr(game, "opening", "first_decision") == "first_decision"
    assert ("greet" in player) is greets and ("greet" in bare_player) is greets
    assert "greet" not in agent
    assert "Talks a lot and worries." in player and "Who you are" not in bare_player
    assert "efficiently" in agent
    with pytest.raises(ValueError, match="simulated player"):
        system_text(game, "agent", "Talks a lot.")


def test_self_play_partner_uses_the_policy_engine_and_the_agent_prompt() -> None:
    recipe = load_recipe("cwah_gigpo_cpu", ["partner.kind=self"])
    engine = ScriptedEngine(lambda conv: "<think>t</think><action>A</action>")
    (slot,) = make_slots(
        recipe.model_copy(
            update={"rollout": recipe.rollout.model_copy(update={"episodes_per_group": 1})}
        ),
        [GroupPlan("1_read_book", None, 3)],
        partner_engine=engine,
    )
    (partner,) = slot.players.values()
    assert isinstance(partner, LLMPlayer) and partner.engine is engine
    assert partner.role == "agent" and partner.persona is None and partner.retries == 0
    obs = slot.game.reset(seed=3)[next(iter(slot.players))]
    partner.reset(obs.seat, 3)
    partner.act(obs)
    assert "collaborative AI teammate" in engine.calls[-1][0]["content"]


def test_homogeneous_training_partner_is_the_player_prompt_without_profile() -> None:
    recipe = load_recipe(
        "cwah_gigpo_cpu",
        [
            "partner.kind=llm",
            "partner.use_profile=false",
            "partner.engine.backend=openai",
            "partner.engine.model=m",
        ],
    )
    (slot, *_) = make_slots(recipe, [GroupPlan("1_read_book", None, 3)], partner_engine=object())
    (partner,) = slot.players.values()
    assert partner.role == "player" and partner.persona is None


@pytest.mark.slow
def test_self_play_partner_plays_from_the_policy_weights(tmp_path) -> None:
    """The partner's reply is what the policy's own weights generate, and it follows them when
    they change (the rollout engine shares the trained model object)."""
    import torch

    from collabrl.engines import make_engine
    from collabrl.models.tiny import make_tiny_model

    path = make_tiny_model(tmp_path / "tiny", seed=0)
    engine = make_engine({"backend": "transformers", "model": str(path)})
    game = HouseholdGame("1_read_book")
    params = SamplingParams(temperature=0, max_new_tokens=12, stop=())
    partner = LLMPlayer(engine, game, params, role="agent", retries=0, name="self-play")
    obs = game.reset(seed=0)["Bob"]

    def policy_reply() -> str:
        return engine.generate([build_messages(game, obs)], params)[0].text

    partner.reset("Bob", 0)
    before = partner.act(obs)
    assert before == policy_reply()
    with torch.no_grad():
        for p in engine.model.parameters():
            p.mul_(1.5)
    partner.reset("Bob", 0)
    after = partner.act(obs)
    assert after == policy_reply() and after != before


def test_the_compact_layout_is_the_seat_name_and_the_observation() -> None:
    game = HouseholdGame("0_read_book")
    obs = next(iter(game.reset(seed=0).values()))
    paper = build_messages(game, obs)
    compact = build_messages(game, obs, layout="compact")
    assert compact == [
        {"role": "system", "content": f"You are {obs.seat}."},
        {"role": "user", "content": obs.text},
    ]
    assert len(paper[0]["content"]) > 10 * len(compact[0]["content"])
    with pytest.raises(ValueError, match="only the agent role"):
        build_messages(game, obs, role="player", layout="compact")


def test_the_compact_layout_reaches_demos_training_and_evaluation(tmp_path) -> None:
    from collabrl.eval.players import policy_factory
    from collabrl.quickstart import QuickstartPlan, llm_policy
    from collabrl.sft.demos import record_demos

    recipe = load_recipe("cwah_sft_compact_cpu", [f"output_dir={tmp_path}"])
    spec = recipe.sft.demos.model_copy(update={"episodes": 1, "successful_only": False})
    row = next(iter(record_demos(recipe, spec, progress=False)))
    assert row["prompt"][0]["content"] == f"You are {recipe.game.seats[0]}."
    assert row["prompt_version"].startswith("agent-compact-")
    rl = load_recipe(
        "cwah_gigpo_compact_cpu", ["rollout.episodes_per_group=1", "partner.kind=expert"]
    )
    (slot,) = make_slots(rl, [GroupPlan("1_read_book", None, 3)])
    assert slot.prompt == "compact"
    evaluated = load_recipe(
        "cwah_gigpo_compact_cpu", llm_policy(QuickstartPlan(out=tmp_path), "some/folder")
    ).eval.policy
    assert evaluated.prompt == "compact"
    engine = ScriptedEngine(lambda conv: "<think>t</think><action>A</action>")
    build = policy_factory(evaluated, SimpleNamespace(get=lambda spec: engine))  # type: ignore[arg-type]
    game = HouseholdGame("0_read_book")
    obs = next(iter(game.reset(seed=0).values()))
    player = build(game, rl.game, 0)
    assert player.conversation(obs) == build_messages(game, obs, layout="compact")
