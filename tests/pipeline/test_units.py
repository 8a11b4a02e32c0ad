"""Profile pipeline pieces on hand-made inputs: reply parsing, Eq. (1), fidelity metrics, k-means,
embedders, windows, descriptors and the scripted engine."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from collabrl.engines.types import SamplingParams
from collabrl.envs.registry import get_game, load_addon, registered_games
from collabrl.pipeline import (
    HashingEmbedder,
    PipelineError,
    Trajectory,
    combined,
    game_term,
    make_descriptors,
    make_embedder,
    profile_score,
    segment,
)
from collabrl.pipeline.config import Coefficients, load_config
from collabrl.pipeline.embed import packaged_model_folder
from collabrl.pipeline.fidelity import (
    cluster_count,
    consistency_score,
    d_intra,
    fidelity,
    knn_label_consistency,
    spread,
)
from collabrl.pipeline.judge import read_judgement
from collabrl.pipeline.kmeans import kmeans
from collabrl.pipeline.parsing import ReplyError, extract_object, is_fail
from collabrl.pipeline.prompting import load_prompt
from collabrl.pipeline.summarise import _read_reply
from collabrl.testing.scripted import ScriptedEngine

HOUSEHOLD = Coefficients(penalty=0.5, max_penalty=0.1, reward=0.1)
KITCHEN = Coefficients(penalty=0.1, max_penalty=0.1, reward=0.01)
CLUSTER = {"id": "household-all-c001", "game": "household", "task": "1_read_book"}
GOOD = {
    "big_five": {
        "openness": "High",
        "conscientiousness": "moderate",
        "extraversion": "low",
        "agreeableness": "medium",
        "neuroticism": "unknown",
    },
    "behavior": "Searches\nroom by room and reports each   goal object it finds.",
    "player_type": "Efficient Collaborator",
}


# ----------------------------------------------------------------- summariser replies
def test_summary_reply_parsed_tolerantly() -> None:
    text = "Sure!\n```json\n" + json.dumps(GOOD)[:-1] + ",}\n```\nHope that helps."
    profile = _read_reply(None, text, CLUSTER, "r1", "auto")
    assert profile.id == "r1-household-all-c001" and profile.provenance == "pipeline:r1"
    assert profile.big_five.conscientiousness == "medium" and profile.big_five.openness == "high"
    assert profile.behavior == "Searches room by room and reports each goal object it finds."
    assert profile.player_type == "efficient_collaborator" and profile.split == "train"
    test_task = {**CLUSTER, "task": "0_read_book"}
    assert _read_reply(None, json.dumps(GOOD), test_task, "r1", "auto").split == "test"


@pytest.mark.parametrize(
    ("error", "text", "reason"),
    [
        ("HTTP 500", "", "request failed: HTTP 500"),
        (None, "", "empty reply"),
        (None, "Fail", "summariser answered Fail"),
        (None, '```\n{"profile": "Fail"}\n```', "summariser answered Fail"),
        (None, "I think the player is calm.", "no JSON object in reply"),
        (None, '{"big_five": {"openness": "high"', "malformed JSON in reply"),
        (None, json.dumps({**GOOD, "big_five": "high"}), "big_five missing or not an object"),
        (None, json.dumps({**GOOD, "player_type": "wizard"}), "player_type not recognised"),
        (
            None,
            json.dumps({**GOOD, "big_five": {**GOOD["big_five"], "neuroticism": "very"}}),
            "big_five.neuroticism not low/medium/high/unknown",
        ),
        (None, json.dumps({**GOOD, "behavior": "Quiet."}), "invalid profile (behavior"),
    ],
)
def test_bad_summary_replies_are_dropped_with_a_reason(error, text, reason) -> None:
    with pytest.raises(ReplyError) as info:
        _read_reply(error, text, CLUSTER, "r1", "auto")
    assert str(info.value).startswith(reason)


def test_wrong_split_for_task_is_a_reason_not_a_crash() -> None:
    with pytest.raises(ReplyError, match="invalid profile"):
        _read_reply(None, json.dumps(GOOD), CLUSTER, "r1", "test")


def test_fail_detection_and_json_extraction() -> None:
    assert is_fail("Fail") and is_fail("**Fail** - nothing in common")
    assert not is_fail(json.dumps(GOOD)) and not is_fail("It failed twice")
    assert extract_object('noise {"a": 1} more {"b": 2}') == {"a": 1}
    assert extract_object("{\u201ca\u201d: [1, 2,]}") == {"a": [1, 2]}


# ----------------------------------------------------------------- judge replies
def test_judge_replies() -> None:
    reply = (
        '```json\n{"flaws": [{"reason": "x", "severity": 3}, {"reason": "y", "score": "2"}]}\n```'
    )
    assert read_judgement(None, reply) == [3, 2]
    assert read_judgement(None, '{"flaws": []}') == []
    for error, text, reason in [
        ("timeout", "", "request failed"),
        (None, "All good!", "no JSON object"),
        (None, '{"flaws": "none"}', "'flaws' missing"),
        (None, '{"flaws": [{"severity": 7}]}', "severity not an integer 1-5"),
        (None, '{"flaws": [{"severity": "bad"}]}', "severity not a number"),
        (None, '{"flaws": [3]}', "a flaw is not an object"),
    ]:
        with pytest.raises(ReplyError, match=reason):
            read_judgement(error, text)


# ----------------------------------------------------------------- Eq. (1)
def test_eq1_hand_computed() -> None:
    # game 1: windows with flaws [2], [], [1, 3]: D = 6, D^m = 4, L = 3
    #   5 - 0.5*6 - 0.1*4 + 0.1*3 = 1.9
    # game 2: one clean window: 5 + 0.1 = 5.1 -> clipped to 5
    # game 3: every judgement failed -> left out of the mean
    game1, game2 = [[2], [], [1, 3]], [[]]
    assert game_term(game1, HOUSEHOLD) == pytest.approx(1.9)
    assert game_term(game2, HOUSEHOLD) == 5.0
    assert profile_score([game1, game2, []], HOUSEHOLD) == pytest.approx((1.9 + 5.0) / 2)
    # kitchen: 5 - 0.1*6 - 0.1*4 + 0.01*3 = 4.03
    assert game_term(game1, KITCHEN) == pytest.approx(4.03)
    assert game_term([[5, 5, 5]] * 4, HOUSEHOLD) == 0.0  # clipped at 0
    assert profile_score([[], []], HOUSEHOLD) is None
    assert combined(4.0, 2.0, 0.5) == 3.0 and combined(4.0, 2.0, 0.25) == 2.5


def test_default_coefficients_are_the_papers() -> None:
    config = load_config(None, ["filter.coefficients.kitchen.reward=0.02"])
    assert config.filter.coefficients["household"] == HOUSEHOLD
    assert config.filter.coefficients["kitchen"].reward == 0.02
    assert config.filter.beta == 0.5 and config.filter.top_k == 30 and config.filter.games == 3
    assert config.report.gamma == 0.5 and config.report.xi == 0.1 and config.cluster.window == 3


# ----------------------------------------------------------------- fidelity metrics
# four 2-d points: a and b share profile "p", c and d profile "q"
X = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [-1.0, 0.0]])
LABELS = ["p", "p", "q", "q"]
R = 1 - 1 / np.sqrt(2)  # cosine distance at 45 degrees


def test_d_intra_hand_computed() -> None:
    # p: d(a, b) = R; q: d(c, d) = 1 (90 degrees); mean = (R + 1) / 2
    assert d_intra(X, LABELS) == pytest.approx((R + 1) / 2)
    assert d_intra(X, ["p", "q", "r", "s"]) is None  # no profile with two windows


def test_knn_label_consistency_hand_computed() -> None:
    # k = 1: a -> b (p, same), b -> a or c at R each (ties by order: a, same),
    # c -> b (R, other), d -> c (1, same; a is at 2, b at 1 + 1/sqrt2)
    assert knn_label_consistency(X, LABELS, 1) == pytest.approx(3 / 4)
    # k = 3 (all others): each window has 1 of 3 neighbours with its label
    assert knn_label_consistency(X, LABELS, 10) == pytest.approx(1 / 3)


def test_consistency_score_formula() -> None:
    assert consistency_score(0.6, 0.25, 0.5) == pytest.approx(0.5 * 0.6 + 0.5 / 1.25)
    assert consistency_score(0.6, 0.0, 0.5) == 0.0  # the "otherwise" branch
    assert consistency_score(None, 0.3, 0.5) == 0.0


def test_spread_hand_computed() -> None:
    pts = np.array([[1.0, 0.0], [0.0, 1.0]])  # centroid (0.5, 0.5): each at 45 degrees
    assert spread(pts) == pytest.approx(R)
    assert spread(np.array([[2.0, 0.0], [1.0, 0.0]])) == pytest.approx(0.0)


def test_cluster_xi_counts_linked_groups() -> None:
    pts = np.array([[1.0, 0.0], [1.0, 0.05], [1.0, 0.1], [0.0, 1.0], [-1.0, 0.0]])
    # the first three are within 0.1 of a neighbour (a chain), the others stand alone
    assert cluster_count(pts, 0.1) == 3
    assert cluster_count(pts, 1e-9) == 5 and cluster_count(pts, 2.0) == 1


def test_fidelity_bundle() -> None:
    out = fidelity(X, LABELS, k=1, gamma=0.5, xi=0.1)
    assert out["profiles"] == 2 and out["windows"] == 4 and out["cluster_xi"] == 4
    assert out["consistency"] == pytest.approx(0.5 * 0.75 + 0.5 / (1 + (R + 1) / 2))


# ----------------------------------------------------------------- clustering and embedding
def test_kmeans_separates_blobs_and_is_seeded() -> None:
    rng = np.random.default_rng(0)
    pts = np.vstack([rng.normal(0, 0.1, (10, 3)), rng.normal(5, 0.1, (10, 3))])
    labels = kmeans(pts, 2, seed=1)
    assert labels.tolist() == [0] * 10 + [1] * 10  # numbered in order of first appearance
    assert (kmeans(pts, 2, seed=1) == labels).all()


def test_kmeans_never_makes_more_clusters_than_distinct_points() -> None:
    pts = np.array([[1.0, 0.0]] * 4 + [[0.0, 1.0]] * 3)
    labels = kmeans(pts, 5, seed=0)
    assert labels.tolist() == [0, 0, 0, 0, 1, 1, 1]


def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    emb = HashingEmbedder(dim=64)
    a = emb.embed(["grab the onion now", "grab the onion now", "send a friendly message", ""])
    assert a.shape == (4, 64) and np.allclose(a[0], a[1])
    assert np.allclose(np.linalg.norm(a[:3], axis=1), 1.0) and not a[3].any()
    assert float(a[0] @ a[2]) < float(a[0] @ a[1])


def test_embedder_choice() -> None:
    assert make_embedder("hashing").name == "hashing-512"
    if packaged_model_folder() is None or importlib.util.find_spec("sentence_transformers") is None:
        assert make_embedder("auto").name == "hashing-512"
        with pytest.raises(PipelineError, match="pip install"):
            make_embedder("minilm")
    else:  # the packaged model loads offline and gives unit vectors
        embedder = make_embedder("auto")
        vectors = embedder.embed(["pick up an onion", "tell Bob the plan"])
        assert embedder.name.startswith("sentence-transformers") and vectors.shape == (2, 384)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


# ----------------------------------------------------------------- windows, descriptors, prompts
def test_segment_keeps_only_the_profiled_seat_and_drops_the_tail() -> None:
    turns = [
        {
            "tick": i,
            "seat": "A" if i % 3 else "B",
            "think": f"t{i}",
            "message": "m",
            "action": "x",
            "valid": True,
            "sent": False,
        }
        for i in range(12)
    ]  # seat A has 8 decisions -> two windows of 3, tail of 2 dropped
    traj = Trajectory("t", "kitchen", "cramped_room", "A", 0, "src", "p", turns, {})
    windows = segment(traj, 3)
    assert [w.id for w in windows] == ["t-w0", "t-w1"]
    assert [s["think"] for s in windows[1].steps] == ["t5", "t7", "t8"]
    assert "t1 m x" in windows[0].embedding_text()
    assert "Message (written but not sent): m" in windows[0].prompt_text()


def test_descriptors_cover_each_trait_and_level() -> None:
    descriptors = make_descriptors(3, seed=0)
    assert len(descriptors) == 18 and len({d.id for d in descriptors}) == 18
    single = descriptors[0]
    assert sum(v != "unknown" for v in single.levels.values()) == 1
    assert all("unknown" not in d.levels.values() for d in descriptors[15:])
    assert [d.levels for d in make_descriptors(3, seed=0)] == [d.levels for d in descriptors]


def test_prompts_are_versioned_and_fill_every_placeholder() -> None:
    for name in (
        "summarise",
        "judge_personality",
        "judge_action",
        "game_household",
        "game_kitchen",
    ):
        prompt = load_prompt(name)
        assert prompt.version.endswith("-v1") and "version:" not in prompt.body
    text = load_prompt("judge_action").render(game_context="G", window_size="3", window="W")
    assert "$" not in text and '{"flaws": []}' in text


# ----------------------------------------------------------------- scripted engine
def test_scripted_engine_records_and_fails_on_request() -> None:
    def reply(conv):
        last = conv[-1]["content"]
        return None if last == "drop" else RuntimeError("boom") if last == "err" else last.upper()

    engine = ScriptedEngine(reply)
    convs = [[{"role": "user", "content": c}] for c in ("hi", "drop", "err")]
    out = engine.generate(convs, SamplingParams(stop=()))
    assert out[0].text == "HI" and out[0].ok
    assert not out[1].ok and "no reply" in out[1].error
    assert "RuntimeError: boom" in out[2].error and out[2].text == ""
    assert [c[-1]["content"] for c in engine.calls] == ["hi", "drop", "err"]
    assert engine.params[0].stop == ()
    engine.close()
    assert engine.closed


def test_a_plugin_game_gets_profiles_once_it_has_coefficients() -> None:
    """The pipeline names no game: a plug-in's section plays like the shipped ones, and a game
    whose section declares no Eq. (1) coefficients is a one-line error naming the key to set."""
    from collabrl.pipeline.players import play_trajectory

    relay = ["games=[{name: relay, task: r6p3v1}]"]
    with pytest.raises(
        PipelineError, match=r"filter.coefficients: no Eq. \(1\) coefficients for relay"
    ):
        load_config(None, relay)
    coefficients = "filter.coefficients.relay={penalty: 0.5, max_penalty: 0.1, reward: 0.1}"
    config = load_config(None, [*relay, coefficients])
    section = config.section("relay", "r6p3v1")
    assert section is not config.games[0] and section == config.games[0]
    expert = get_game("relay").expert
    trajectory = play_trajectory(
        lambda persona, game: load_addon(expert, "expert", "relay")(),
        traj_id="relay-0",
        section=section,
        seed=0,
        source="scripted",
        persona="calm and careful",
    )
    assert (trajectory.game, trajectory.task) == ("relay", "r6p3v1")
    assert trajectory.turns and trajectory.summary["success"]


def test_default_games_come_from_the_game_sections() -> None:
    config = load_config()
    assert [(g.name, g.task) for g in config.games] == [
        (name, section.model_validate(section.profile_games).task)
        for name, section in registered_games().items()
        if section.profile_games is not None
    ]
    assert set(config.filter.coefficients) == {g.name for g in config.games}


def test_prompts_describe_a_plugin_game_by_its_section() -> None:
    from collabrl.pipeline.prompting import game_context

    assert game_context("household") == load_prompt("game_household").body.strip()
    assert game_context("relay") == f"Game: {get_game('relay').description}"
