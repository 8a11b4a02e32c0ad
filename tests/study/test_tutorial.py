"""The practice round (a conditions page's ``tutorial``): the pretest plays it before the real
rounds, it is recorded apart (its own events, ``practice: true`` in its trajectory), and the
export's rows, the report and the bonus are those of the same study without it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from collabrl.cli import main
from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.live.signals import run_coroutine
from collabrl.study.pretest.run import run_pretest
from collabrl.study.results.export import export_study
from collabrl.study.results.report import summarize
from collabrl.study.server.admin import admin_state
from collabrl.study.store.db import StudyDB, open_database
from collabrl.web.session import Session
from tests.study.helpers import compiled, runtime

STUDY = "paper_user_study_cpu"
PAGE = "pages.3"  # the rounds page of paper_user_study (consent, intake, instructions, rounds)
TUTORIAL = f"{PAGE}.tutorial={{task: 5_read_book, name: Coach, game_options: {{max_ticks: 12}}}}"
SHORT = "game.max_ticks=20"
BONUS = "payment={base: 1.0, bonus: '0.1 * rounds + 0.01 * sum([r[\"decisions\"] for r in round])', max_bonus: 5}"
COMPARED = ("position", "condition", "task", "seed", "steps", "success", "decisions", "messages")


def pretest(tmp_path: Path, name: str, *overrides: str) -> tuple[Path, dict]:
    """Three simulated participants through the study; its export folder and manifest."""
    study = compiled(STUDY, SHORT, BONUS, *overrides)
    run_pretest(study, tmp_path / f"{name}.sqlite", 3, progress=False)
    out = tmp_path / name
    info = export_study(study.loaded, StudyDB(tmp_path / f"{name}.sqlite"), out)
    return out, info


def session_of(rt: StudyRuntime, pid: str) -> Session:
    group = rt.group_of(pid)
    assert group is not None and group.session is not None
    return group.session


def read_csv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> tuple[Path, dict, Path, dict]:
    """The same pretest with and without the practice round."""
    tmp = tmp_path_factory.mktemp("tutorial")
    return (*pretest(tmp, "with", TUTORIAL), *pretest(tmp, "without"))


def test_the_pretest_plays_the_practice_round_first_and_records_it_apart(both) -> None:
    out, info, _, plain = both
    events = jsonl(out / "events.jsonl")
    kinds = [e["kind"] for e in events]
    assert kinds.count("practice_start") == kinds.count("practice_end") == 3
    for gid in {e["gid"] for e in events if e["kind"] == "practice_start"}:
        mine = [e["kind"] for e in events if e["gid"] == gid]
        begin, end = mine.index("practice_start"), mine.index("practice_end")
        assert begin < end < mine.index("episode_start")  # before round 1, which follows it
        assert "questionnaire" not in mine[begin : end + 1]
    start = next(e for e in events if e["kind"] == "practice_start")
    assert start["node"] == "rounds.practice" and start["data"]["task"] == "5_read_book"
    assert start["data"]["agent"] == "expert"  # no condition named: the rule-based expert
    practice_moves = [
        e for e in events if e["kind"] == "decision" and e["node"] == "rounds.practice"
    ]
    assert practice_moves and all(e["data"]["position"] == -1 for e in practice_moves)
    assert not [
        e for e in events if e["kind"] == "questionnaire" and e["node"] == "rounds.practice"
    ]
    trajectories = jsonl(out / "trajectories.jsonl")
    practice = [t for t in trajectories if t["practice"]]
    assert len(practice) == 3 and len(trajectories) == 12
    assert all(t["stamp"]["practice"] and t["stamp"]["position"] is None for t in practice)
    assert all(t["summary"]["steps"] <= 12 for t in practice)  # the tutorial's own limit
    assert not any(t["practice"] for t in trajectories if t["stamp"]["position"])
    assert info["counts"]["rows"] == plain["counts"]["rows"] == 9
    assert info["counts"]["episodes"] == plain["counts"]["episodes"] + 3


def test_rows_report_and_bonus_leave_the_practice_round_out(both) -> None:
    out, _, plain_out, _ = both
    rows, plain = read_csv(out / "responses.csv"), read_csv(plain_out / "responses.csv")
    assert sorted(r["position"] for r in rows) == ["1", "1", "1", "2", "2", "2", "3", "3", "3"]
    # the real rounds are those of the study without a tutorial: same seeds, same play, ratings
    key = [*COMPARED, "q_help_plan", "q_empathy"]
    assert [[r[k] for k in key] for r in rows] == [[r[k] for k in key] for r in plain]
    study = compiled(STUDY).study
    typed = [{**r, "steps": float(r["steps"]), "empathy": float(r["empathy"])} for r in rows]
    typed_plain = [{**r, "steps": float(r["steps"]), "empathy": float(r["empathy"])} for r in plain]
    assert summarize(study, typed) == summarize(study, typed_plain)
    paid = read_csv(out / "participants.csv")
    paid_plain = read_csv(plain_out / "participants.csv")
    assert sorted(p["payment.bonus"] for p in paid) == sorted(
        p["payment.bonus"] for p in paid_plain
    )
    decisions = {r["participant"]: 0 for r in rows}
    for r in rows:
        decisions[r["participant"]] += int(r["decisions"])
    for p in paid:  # three rounds, and only the real rounds' decisions
        assert float(p["payment.bonus"]) == pytest.approx(0.3 + 0.01 * decisions[p["participant"]])


def test_the_graph_shows_the_practice_round(capsys) -> None:
    main(["study", "lint", STUDY, "--graph", TUTORIAL])
    out = capsys.readouterr().out
    assert "instructions: --continue--> rounds.practice;" in out
    assert "rounds.practice: --practice over--> rounds.play1" in out


@pytest.mark.parametrize(
    "tutorial, error",
    [
        (
            "{condition: nope}",
            "error: page rounds: tutorial.condition 'nope' is not a condition of this study "
            "(conditions: base, no_affective, full)",
        ),
        (
            "{task: 99_read_book}",
            "error: page rounds: tutorial.task: unknown household task '99_read_book'",
        ),
        (
            "{game_options: {task: 5_read_book}}",
            "error: page rounds: tutorial.game_options may not change task (give the practice "
            "task as tutorial.task)",
        ),
        (
            "{game_options: {max_ticks: -3}}",
            "error: page rounds: tutorial.game_options.max_ticks: Input should be greater than 0",
        ),
        (
            "{ticks: 30}",
            "(conditions page).tutorial: unknown key 'ticks'; allowed: condition, task",
        ),
    ],
)
def test_lint_refuses_a_bad_tutorial_in_one_line(tutorial: str, error: str, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["study", "lint", STUDY, f"{PAGE}.tutorial={tutorial}"])
    assert exc.value.code != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and error in err, err


def test_lint_refuses_a_tutorial_before_chat_rounds(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["study", "lint", "chat_rounds_study", "pages.2.tutorial={}"])
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "tutorial: a practice round is a game episode" in err, err


def test_a_condition_partners_the_practice_under_the_tutorial_name(tmp_path) -> None:
    out, _ = pretest(tmp_path, "full", f"{PAGE}.tutorial={{condition: full, task: 5_read_book}}")
    events = jsonl(out / "events.jsonl")
    start = next(e for e in events if e["kind"] == "practice_start")
    assert start["data"]["condition"] == "full"
    assert start["data"]["agent"] == "persona:cwah-0_read_book-test-01"
    practice = next(t for t in jsonl(out / "trajectories.jsonl") if t["practice"])
    assert practice["stamp"]["condition"] == "full" and practice["condition_name"] == "Agent C"


def test_a_restart_mid_practice_replays_it_then_round_one_follows(tmp_path) -> None:
    overrides = (SHORT, TUTORIAL)
    steps = (
        {"node": "consent", "agree": True},
        {"node": "intake", "answers": {"gaming": "weekly", "ai_familiarity": 3}},
        {"node": "instructions"},
    )

    async def before() -> tuple[str, list]:
        rt = runtime(tmp_path, STUDY, *overrides)
        await rt.recover()
        pid, _ = await rt.join()
        for step in steps:
            await rt.submit(pid, step)
        assert rt.node(pid) == "rounds.practice" and rt.view(pid)["practice"] is True
        assert admin_state(rt)["groups"][0]["round"] == "practice"
        session = session_of(rt, pid)
        for _ in range(3):
            obs = session.seats["Alice"].obs
            assert obs is not None
            await rt.decide(pid, obs.actions[-1], "")
        turns = [t["response"] for t in session.turns]
        rt.shutdown()
        rt.db.close()
        return pid, turns

    async def after(pid: str) -> tuple[list, list, str]:
        study = compiled(STUDY, *overrides)
        rt = StudyRuntime(study, open_database(study.loaded, tmp_path / "study.sqlite"))
        await rt.recover()
        session = session_of(rt, pid)
        replayed = [t["response"] for t in session.turns]
        while rt.node(pid) == "rounds.practice":  # finish the practice
            obs = session.seats["Alice"].obs
            if obs is not None and not session.done:
                await rt.decide(pid, obs.actions[-1], "")
            else:
                await rt.wait(pid, rt.notifier.version(pid))
        kinds = [e["kind"] for e in rt.db.events()]
        node = rt.node(pid)
        rt.shutdown()
        return replayed, kinds, node

    pid, turns = run_coroutine(before())
    replayed, kinds, node = run_coroutine(after(pid))
    assert replayed == turns and node == "rounds.play1"
    assert kinds.count("practice_start") == 1 and "episode_replayed" in kinds
    assert kinds.index("practice_end") < kinds.index("episode_start")
