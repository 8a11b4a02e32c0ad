"""``collabrl eval`` with ``partner.kind=human_proxy``: the proxy moves the partner's chef tick by
tick beside the evaluated policy, and a missing proxy is a one-line error."""

from pathlib import Path

from click.testing import CliRunner

from collabrl.envs.kitchen.human_data import read_frame, trials_of
from collabrl.envs.kitchen.human_proxy import save_proxy, train_proxy
from collabrl.errors import CollabrlError
from collabrl.eval.cli import eval_command
from tests.eval.conftest import MotionPartnerEval, kitchen_partner_args

FIXTURE = Path(__file__).parents[1] / "fixtures" / "human_trials"
ARGS = kitchen_partner_args("human_proxy", 40)


def test_a_human_proxy_partners_the_evaluated_policy(
    tmp_path: Path, motion_partner_moves_every_tick: MotionPartnerEval
) -> None:
    trials = [
        t for t in trials_of(read_frame("test", FIXTURE), "test") if t.layout == "cramped_room"
    ]
    save_proxy(train_proxy("cramped_room", trials, epochs=5, hidden=8), tmp_path / "proxies")
    motion_partner_moves_every_tick("human_proxy", 40, [f"partner.proxies={tmp_path / 'proxies'}"])


def test_without_built_proxies_the_evaluation_stops_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        eval_command, [*ARGS, f"partner.proxies={tmp_path}", f"output_dir={tmp_path / 'eval'}"]
    )
    assert isinstance(result.exception, CollabrlError)
    assert "no human proxy for cramped_room" in str(result.exception)
    assert "\n" not in str(result.exception)


def test_each_profile_job_gets_its_own_proxy_draws_beside_the_same_episode_seed() -> None:
    """The proxy ignores profiles: without draws of its own per profile job, the jobs of one
    task and seed would be one episode repeated (and a paired interval over them too narrow)."""
    from collabrl.config.roles import PartnerSpec
    from collabrl.envs.kitchen.section import KitchenSection
    from collabrl.eval.players import partner_factory
    from collabrl.factory import EngineCache
    from collabrl.profiles import load_profiles

    section = KitchenSection(layout="cramped_room")
    first, second = load_profiles(game="kitchen", split="test")[:2]
    build = partner_factory(PartnerSpec(kind="human_proxy"), EngineCache(), lambda *_: None)
    game = section.make_game()
    streams = []
    for profile in (first, first, second, None):
        partner = build(profile, game, section, 0)
        partner.reset("Player 1", 0)
        streams.append(partner.rng.random(4).tolist())
    assert streams[0] == streams[1]  # one profile job: reproducible
    assert streams[0] != streams[1 + 1]  # another profile of the same task and seed: new draws
    assert streams[3] not in streams[:3]  # profile-free: the episode seed's own stream
