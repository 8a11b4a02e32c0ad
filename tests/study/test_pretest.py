"""In-silico pretests and the export: simulated participants run the same protocol, and the
files hold what the design promised."""

from __future__ import annotations

import csv
import json
from collections import Counter

import pytest

from collabrl.cli import main
from collabrl.errors import CollabrlError
from collabrl.study.pretest.answers import AnswerModel, RoundFacts, parse_ratings, persona_ratings
from collabrl.study.pretest.run import run_pretest
from collabrl.study.results.export import export_study
from collabrl.study.spec.design import latin_square
from collabrl.study.spec.schema import Answers
from collabrl.study.store.db import StudyDB
from tests.study.helpers import compiled


def read_csv(path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_a_pretest_writes_the_export_and_the_report(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    main(
        [
            "study",
            "pretest",
            "paper_user_study_cpu",
            "--participants",
            "6",
            f"output_dir={tmp_path}",
            "--out",
            str(out),
        ]
    )
    printed = capsys.readouterr().out
    assert "| base " in printed and "wilcoxon" in printed and "6 simulated participants" in printed
    assert (
        f"database {out / 'study.sqlite'}; export in {out / 'export'}, report in {out / 'report'}"
        in printed
    )
    folder, out = out, out / "export"  # --out is the pretest's folder: database and export
    rows = read_csv(out / "responses.csv")
    assert len(rows) == 18 and {r["status"] for r in rows} == {"completed"}
    orders = Counter(r["order"] for r in rows if r["position"] == "1")
    square = [">".join(["base", "no_affective", "full"][i] for i in row) for row in latin_square(3)]
    assert orders == dict.fromkeys(square, 2)
    tasks = Counter(r["task"] for r in rows if r["position"] == "1")
    assert tasks == {"0_read_book": 2, "20_prepare_food": 2, "40_setup_table": 2}
    assert Counter((r["position"], r["condition"]) for r in rows) == {
        (p, c): 2 for p in "123" for c in ("base", "no_affective", "full")
    }
    for row in rows:
        assert row["profile"].startswith("cwah-" + row["task"].split("_")[0] + "_")
        assert all(
            1 <= int(row[f"q_{i}"]) <= 5
            for i in ("help_plan", "help_talk", "trust_follow", "trust_update", "empathy")
        )
        assert int(row["steps"]) > 0 and row["intake.gaming"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert (
        manifest["study_sha256"]
        == compiled("paper_user_study_cpu", f"output_dir={tmp_path}").loaded.sha256
    )
    assert manifest["conditions"][1]["agent"] == "expert"
    assert [s["where"] for s in manifest["sources"]] == [
        "studies/paper_user_study_cpu.yaml",
        "studies/paper_user_study.yaml",
    ]
    people = read_csv(out / "participants.csv")
    assert len(people) == 6 and not any("token" in column for column in people[0])
    assert "join_key" not in (out / "manifest.json").read_text()
    events = (out / "events.jsonl").read_text().splitlines()
    assert len(events) == manifest["counts"]["events"]
    trajectory = json.loads((out / "trajectories.jsonl").read_text().splitlines()[0])
    assert {"game", "task", "turns", "summary", "stamp", "efficiency"} <= set(trajectory)
    assert trajectory["stamp"]["source"] == "study" and trajectory["stamp"]["condition"]
    assert (out / "trajectories_hf" / "dataset_info.json").exists()
    assert (out / "responses_hf" / "dataset_info.json").exists()
    assert (out.parent / "report" / "report.png").stat().st_size > 10_000
    main(
        [
            "study",
            "report",
            "paper_user_study_cpu",
            f"output_dir={tmp_path}",
            "--db",
            str(folder / "study.sqlite"),
            "--out",
            str(tmp_path / "r"),
        ]
    )
    assert "helpfulness (95% CI)" in (tmp_path / "r" / "report.md").read_text()


def test_a_group_pretest_matches_simulated_participants_in_pairs(tmp_path) -> None:
    study = compiled("household_group_study", "game.max_ticks=40")
    run_pretest(study, tmp_path / "db.sqlite", 4, progress=False)
    db = StudyDB(tmp_path / "db.sqlite")
    groups = db.groups()
    assert len(groups) == 2 and all(None not in g["members"].values() for g in groups)
    assert [g["conditions"] for g in groups] == [["expert", "persona"], ["persona", "expert"]]
    rows = export_study(study.loaded, db, tmp_path / "export")["counts"]
    assert rows["rows"] == 8 and rows["completed"] == 4


def test_a_database_belongs_to_one_protocol(tmp_path) -> None:
    import pytest

    from collabrl.errors import CollabrlError
    from collabrl.study.store.db import open_database

    open_database(compiled("paper_user_study_cpu").loaded, tmp_path / "db.sqlite").close()
    with pytest.raises(CollabrlError, match="holds study paper_user_study_cpu"):
        open_database(compiled("paper_user_study_cpu", "seed=3").loaded, tmp_path / "db.sqlite")


def test_the_persona_answer_model_follows_what_happened() -> None:
    questionnaire = compiled("paper_user_study_cpu").study.questionnaire
    silent = RoundFacts(efficiency=0.9, talk=0.0, replies=0.0, warmth=0.0, valid=1.0)
    warm = RoundFacts(efficiency=0.9, talk=1.0, replies=1.0, warmth=0.8, valid=1.0)
    a = persona_ratings(questionnaire, silent, None, "seed")
    b = persona_ratings(questionnaire, warm, None, "seed")
    assert b["empathy"] > a["empathy"] and b["trust_update"] > a["trust_update"]


class FakeEngine:
    """An engine that answers every prompt with a fixed text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def generate(self, conversations, params):
        from collabrl.engines.types import Completion, GenerationResult

        return [GenerationResult([Completion(self.text, "stop")]) for _ in conversations]


def test_an_llm_answers_in_character_and_falls_back_item_by_item() -> None:
    questionnaire = compiled("paper_user_study_cpu").study.questionnaire
    reply = "help_plan: 5\nhelp_talk = 2\ntrust_follow: 9\nsomething else"
    assert parse_ratings(reply, questionnaire) == {"help_plan": 5, "help_talk": 2}
    spec = Answers(kind="llm", engine={"backend": "openai", "model": "m"})

    class Engines:
        def get(self, engine_spec):
            assert engine_spec == spec.engine
            return FakeEngine(reply)

    engines = Engines()
    model = AnswerModel(spec, questionnaire, engines)
    facts = RoundFacts(efficiency=0.5, talk=0.5, replies=0.5, warmth=0.5, valid=1.0)
    record = {"summary": {"success": True, "steps": 40}, "turns": []}
    answers = model.answer(facts, None, record, "Agent A", "[send_message]", "s")
    assert answers["help_plan"] == 5 and answers["help_talk"] == 2 and model.fallbacks == 3


KITCHEN = """base: paper_user_study_cpu
name: kitchen_study
game: {name: kitchen, layout: cramped_room, seats: [Player 0, Player 1], horizon: 40}
seats: {humans: [Player 0], agents: [Player 1]}
tasks: [cramped_room, forced_coordination, coordination_ring]
conditions:
  - {id: base, name: Agent A, agent: {kind: expert}}
  - {id: no_affective, name: Agent B, agent: {kind: persona, profile: cook-cramped_room-test-01}}
  - {id: full, name: Agent C, agent: {kind: expert}}
"""


def test_the_same_protocol_runs_on_another_game(tmp_path) -> None:
    (tmp_path / "kitchen.yaml").write_text(KITCHEN)
    study = compiled(str(tmp_path / "kitchen.yaml"))
    assert study.study.game.name == "kitchen" and study.flow.rounds == 3
    run_pretest(study, tmp_path / "db.sqlite", 3, progress=False)
    rows = export_study(study.loaded, StudyDB(tmp_path / "db.sqlite"), tmp_path / "out")
    table = read_csv(tmp_path / "out" / "responses.csv")
    assert rows["counts"]["rows"] == 9 and {r["task"] for r in table} == {
        "cramped_room",
        "forced_coordination",
        "coordination_ring",
    }
    assert all(r["score"] != "" for r in table)


STRUCTURES = """base: paper_user_study_cpu
name: structures_study
game: {name: analysis, task: arch-test-01, teammates: [D]}
seats: {humans: [Ada], agents: [Bea]}
tasks: [arch-test-01, arch-test-02, arch-test-03]
simulated: {kind: expert}
pretest: {participants: {kind: expert}}
conditions:
  - {id: default, name: Team A, agent: {kind: expert}}
  - {id: memory, name: Team B, agent: {kind: expert}, game_options: {structure: memory}}
  - {id: scaffolded, name: Team C, agent: {kind: expert}, game_options: {structure: scaffolded}}
"""


def test_a_study_makes_the_collaboration_structure_a_condition(tmp_path) -> None:
    """The team-structures study as a within-subject design: each condition a structure, the
    export carrying each round's structure and process metrics."""
    (tmp_path / "structures.yaml").write_text(STRUCTURES)
    study = compiled(str(tmp_path / "structures.yaml"))
    run_pretest(study, tmp_path / "db.sqlite", 3, progress=False)
    export_study(study.loaded, StudyDB(tmp_path / "db.sqlite"), tmp_path / "out")
    table = read_csv(tmp_path / "out" / "responses.csv")
    assert len(table) == 9
    by_condition = {r["condition"]: r["structure"] for r in table}
    assert any(r["process.profile_alignment"] != "" for r in table)  # a D collaborator judged
    assert by_condition == {"default": "default", "memory": "memory", "scaffolded": "scaffolded"}
    for row in table:
        assert float(row["score"]) == 1.0  # the reference analysts solve the tasks
        assert float(row["process.workflow_coverage"]) == 1.0
        board = row["structure"] in ("memory", "scaffolded")
        assert (int(row["process.board_total"]) > 0) == board


def test_a_condition_may_not_change_the_shared_game(tmp_path) -> None:
    bad = STRUCTURES.replace(
        "game_options: {structure: memory}", "game_options: {task: arch-test-05}"
    )
    (tmp_path / "bad.yaml").write_text(bad)
    with pytest.raises(CollabrlError, match="condition memory: game_options may not change task"):
        compiled(str(tmp_path / "bad.yaml"))
    wrong = STRUCTURES.replace("{structure: memory}", "{structure: hierarchy}")
    (tmp_path / "wrong.yaml").write_text(wrong)
    with pytest.raises(CollabrlError, match="condition memory: game_options.structure"):
        compiled(str(tmp_path / "wrong.yaml"))


def _made_by_an_older_collabrl(path, drop: str, **changed) -> None:
    """Rewrite a study database's protocol as an older collabrl, without the option ``drop``
    (a dotted path), would have written it."""
    import sqlite3

    import yaml

    conn = sqlite3.connect(path)
    ((text,),) = conn.execute("SELECT value FROM meta WHERE key = 'study_yaml'").fetchall()
    protocol = yaml.safe_load(text)
    *parents, last = drop.split(".")
    node = protocol
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node.pop(last, None)
    protocol.update(changed)
    meta = {"study_yaml": yaml.safe_dump(protocol), "study_sha256": "0" * 64, "collabrl": "0.1"}
    conn.executemany("UPDATE meta SET value = ? WHERE key = ?", [(v, k) for k, v in meta.items()])
    conn.commit()
    conn.close()


def test_a_newer_collabrl_goes_on_with_a_study_whose_protocol_only_gained_options(tmp_path) -> None:
    """Upgrading collabrl mid-study adds its new options at their defaults: the same files and
    overrides are the same protocol, so the database opens and records the upgrade once; a
    value that resolves differently, or another file, is refused in one line."""
    from collabrl.study.store.db import open_database

    study = compiled("paper_user_study_cpu").loaded
    path = tmp_path / "db.sqlite"
    open_database(study, path).close()
    _made_by_an_older_collabrl(path, "seats.names")
    for _ in range(2):  # a restart records nothing new
        db = open_database(study, path)
        (upgrade,) = json.loads(db.meta()["upgrades"])
        assert upgrade["added"] == ["seats.names"] and upgrade["study_sha256"] == study.sha256
        assert db.meta()["study_sha256"] == "0" * 64
        db.close()

    _made_by_an_older_collabrl(path, "seats.names", seed=12345)
    with pytest.raises(CollabrlError, match=r"resolves the same file differently \(seed\)"):
        open_database(study, path)
    with pytest.raises(CollabrlError, match="the study file or its overrides changed"):
        open_database(compiled("paper_user_study_cpu", "seed=3").loaded, path)
