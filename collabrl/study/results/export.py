"""``collabrl study export``: the study's database as files a lab can analyse and audit.

- ``responses.csv`` (and ``responses_hf/``): one row per participant x condition played. Every
  round's row has its order position, condition, agent and task, the round's factor levels
  (``factor.*``, multi-factor designs) and state as it stood when the round ended
  (``state.*``, ``group.*``), every Likert rating, the dimension means, free text, intake
  answers (a custom component's mapping answer as one column per key) and declared fields
  (:class:`ResponseSheet`). A game round adds the game's efficiency column (steps) and
  success, the participant's decisions and messages, the round's collaboration ``structure``
  and its process metrics (``process.*``, :mod:`collabrl.eval.process`, seen from the
  participant's seat: ``*_agent`` is the participant, ``*_teammates`` everyone else; the
  analysis game adds the trace judgements); a chat or document round adds its ``round`` kind,
  the participant's ``turns`` and the room's messages and versions;
- ``participants.csv``: one row per participant (status, completion code, the recruitment
  platform's ids as ``privacy.platform_ids`` keeps them, ``payment.*``: base fee, bonus and a
  bonus that could not be computed, final ``state.*``, declared fields);
- ``bonuses.csv`` (studies with a bonus): the platform's bulk-bonus file, with the raw platform
  ids: the one export file with personal ids under ``platform_ids: hash``;
- in both CSVs a text cell starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return gets a
  leading ``'`` (:func:`collabrl.records.csv_cell`), so no cell runs as a spreadsheet formula;
  ``events.jsonl`` and the HF copies keep the raw text;
- ``events.jsonl``: every event, in order;
- ``trajectories.jsonl`` (and ``trajectories_hf/``): every round in ``collabrl eval``'s
  trajectory schema, stamped with study, group, position and condition, with the condition
  and its participant-facing name also as top-level ``condition`` and ``condition_name``
  columns (what an analysis filters on first), and ``practice`` (true: the tutorial's
  practice round, which no row counts);
- ``chat_transcripts.csv``, ``documents.csv`` and ``document_history.jsonl``: chat rooms and
  shared documents (:mod:`collabrl.study.results.room_export`);
- ``assignments.csv``, ``agent_replies.jsonl``, ``workspace_edits.csv`` and ``page_events.csv``:
  randomisations, agent replies, shared workspaces and component and media events
  (:mod:`collabrl.study.results.design_export`);
- ``checks.csv``: every comprehension-quiz attempt and attention check, passed or failed
  (:mod:`collabrl.study.results.checks_export`);
- ``manifest.json``: the resolved study and its hash, the files it came from, the agents' model
  identifiers, collabrl's version, and each exported file's hash.

All files are written as one set (:func:`collabrl.records.output_set`): a killed export leaves
the previous one whole.
"""

from __future__ import annotations

import json
import platform
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collabrl import records
from collabrl.envs.base import sends_message
from collabrl.eval.process import JUDGEMENT_KEYS, PROCESS_KEYS, episode_process
from collabrl.factory import player_label
from collabrl.records import file_sha256, output_set, write_hf_dataset, write_jsonl, write_text
from collabrl.study.results.checks_export import check_rows
from collabrl.study.results.design_export import (
    agent_replies,
    assignment_rows,
    page_event_rows,
    workspace_rows,
)
from collabrl.study.results.room_export import (
    RoomRounds,
    chat_transcript_rows,
    document_history,
    document_rows,
)
from collabrl.study.spec.load import LoadedStudy
from collabrl.study.spec.payment import bonus_file
from collabrl.study.spec.recruitment import PLATFORMS
from collabrl.study.spec.schema import Condition, Study
from collabrl.study.spec.state import initial_state
from collabrl.study.store.db import GroupRow, StudyDB
from collabrl.web.recording import HF_NESTED

STAND_IN = ("stand-in", "idle-substitute")
ROUND_PROCESS = (*PROCESS_KEYS, *JUDGEMENT_KEYS)  # per round, from the participant's seat


def _intake(db: StudyDB) -> dict[str, dict[str, Any]]:
    """Each participant's survey answers as ``<page>.<question>`` columns."""
    out: dict[str, dict[str, Any]] = defaultdict(dict)
    for event in db.events("answers"):
        for question, value in event["data"]["answers"].items():
            column = f"{event['data']['form']}.{question}"  # page.question
            if isinstance(value, dict):  # a custom component's answer: one column per key
                out[event["pid"]].update({f"{column}.{k}": v for k, v in value.items()})
            else:
                out[event["pid"]][column] = value
    return out


def _state_after_rounds(
    loaded: LoadedStudy, db: StudyDB, rooms: RoomRounds
) -> dict[tuple, dict[str, Any]]:
    """(participant, group, position) -> ``state.*`` and ``group.*`` columns as they stood
    when that round ended (a game round's ``episode_end``, a chat or document round's
    ``room_close``; the initial values before anything set them)."""
    study = loaded.study
    if not study.state:
        return {}
    ends = [e for e in db.events() if e["kind"] in ("state", "episode_end", "room_close")]
    mine: dict[str, dict[str, Any]] = defaultdict(lambda: initial_state(study.state, "participant"))
    ours: dict[str, dict[str, Any]] = defaultdict(lambda: initial_state(study.state, "group"))
    out: dict[tuple, dict[str, Any]] = {}
    groups = {g["gid"]: g for g in db.groups()}
    for event in ends:
        data = event["data"]
        if event["kind"] == "state":
            held = ours if data.get("scope") == "group" else mine
            held[event["gid"] if data.get("scope") == "group" else event["pid"]] = data["values"]
            continue
        if event["kind"] == "episode_end":
            position = data["position"]
        else:
            room = rooms.rooms.get(data["room"])
            if room is None or room.position is None:
                continue  # a chat or document page's room, not a round
            position = room.position
        group = groups.get(event["gid"])
        for pid in filter(None, group["members"].values() if group else []):
            columns = {f"state.{k}": v for k, v in mine[pid].items()}
            columns.update({f"group.{k}": v for k, v in ours[event["gid"]].items()})
            out[(pid, event["gid"], position)] = columns
    return out


def _final_state(loaded: LoadedStudy, db: StudyDB) -> dict[str, dict[str, Any]]:
    """Each participant's ``state.*`` columns at the end (participants.csv)."""
    study = loaded.study
    if not study.state:
        return {}
    out: dict[str, dict[str, Any]] = defaultdict(
        lambda: {f"state.{k}": v for k, v in initial_state(study.state, "participant").items()}
    )
    for event in db.events("state"):
        if event["data"].get("scope") != "group":
            out[event["pid"]] = {f"state.{k}": v for k, v in event["data"]["values"].items()}
    return out


def round_facts(
    record: dict[str, Any], seat: str, metric: str, message_action: str
) -> dict[str, Any]:
    """What one round was from ``seat``: the game's efficiency column ``metric`` (as
    ``steps``), success, and the seat's decisions and messages (the export's columns and the
    bonus expression's)."""
    summary = record["summary"]
    mine = [t for t in record["turns"] if t["seat"] == seat]
    return {
        "steps": summary.get(metric),
        "success": summary.get("success"),
        "decisions": len(mine),
        "messages": sum(sends_message(t["action"], t["message"], message_action) for t in mine),
    }


@dataclass(frozen=True)
class OwnColumns:
    """A round kind's own columns of a ``responses.csv`` row, around those every round has
    (:class:`ResponseSheet`): what the round measured, what kind of round it was, and its
    process metrics."""

    measures: dict[str, Any]
    """After the task: game: seed, efficiency column, success, decisions, messages, stand-in
    decisions; chat or document: success (none), turns, the room's messages and versions."""
    kind: dict[str, Any]
    """After ``rated``: game: the collaboration ``structure``; chat or document: ``round``."""
    process: dict[str, Any] = field(default_factory=dict)
    """After the state: game: ``process.*``."""


class ResponseSheet:
    """The columns of ``responses.csv`` every round shares, whatever was played in it: who
    (participant, group, seat), the design (order, position, condition, agent, task), the
    questionnaire (each item, each dimension's mean, free text), the factor levels, the state
    after the round, intake answers and declared fields."""

    def __init__(self, loaded: LoadedStudy, db: StudyDB, rooms: RoomRounds) -> None:
        self.study = loaded.study
        self.people = {p["pid"]: p for p in db.participants()}
        self.rated = {
            (e["pid"], e["data"]["position"]): e["data"] for e in db.events("questionnaire")
        }
        self.intake = _intake(db)
        self.states = _state_after_rounds(loaded, db, rooms)

    def row(
        self, group: GroupRow, seat: str, pid: str, position: int, own: OwnColumns
    ) -> dict[str, Any]:
        """The row of participant ``pid`` in ``seat`` for round ``position`` (from 0) of ``group``."""
        study = self.study
        person = self.people[pid]
        cid = group["conditions"][position]
        condition = study.condition(cid)
        answers = self.rated.get((pid, position), {})
        return {
            "study": study.name,
            "participant": pid,
            "kind": person["kind"],
            "profile": person["profile"],
            "status": person["status"],
            "group": group["gid"],
            "unit": group["unit"],
            "seat": seat,
            "design": study.design.kind,
            "order": ">".join(group["conditions"]),
            "position": position + 1,
            "condition": cid,
            "condition_name": condition.name,
            "agent": agent_label(condition),
            "task": group["task"],
            **own.measures,
            "rated": bool(answers),
            **own.kind,
            **{f"factor.{k}": v for k, v in condition.levels.items()},
            **self.states.get((pid, group["gid"], position), {}),
            **own.process,
            **rating_columns(study, answers),
            **self.intake[pid],
            **{f"field.{k}": v for k, v in person["fields"].items()},
        }


def rating_columns(study: Study, answers: dict[str, Any]) -> dict[str, Any]:
    """A round's questionnaire columns: each item, each dimension's mean, free text (empty
    where the round was not rated)."""
    items = study.questionnaire.items if study.questionnaire else []
    given = answers.get("ratings", {})
    row: dict[str, Any] = {f"q_{item.id}": given.get(item.id) for item in items}
    for dim in dict.fromkeys(item.dimension for item in items):
        values = [given[i.id] for i in items if i.dimension == dim and i.id in given]
        row[dim] = sum(values) / len(values) if values else None
    row["free_text"] = answers.get("free_text", "")
    return row


def agent_label(condition: Condition) -> str:
    """The condition's agent as the export names it: a game round's player label, a chat or
    document round's ``kind:name``."""
    if condition.agent is not None:
        return player_label(condition.agent)
    assert condition.chat_agent is not None  # the schema: a room round needs one
    return f"{condition.chat_agent.kind}:{condition.chat_agent.name}"


class GameRounds:
    """A study's game rounds as the database recorded them (the game side of
    :func:`response_rows`)."""

    def __init__(self, loaded: LoadedStudy, db: StudyDB) -> None:
        game = loaded.study.played_game
        self.game = game.name
        self.metric = type(game).efficiency_metric
        self.message_action = game.make_game().message_action
        self.episodes = {(e["gid"], e["position"]): e["record"] for e in db.episodes()}
        self.stood_in: dict[tuple, int] = defaultdict(int)
        for event in db.events("decision"):
            d = event["data"]
            if d["by"] in STAND_IN:
                self.stood_in[(event["gid"], d["position"], d["seat"])] += 1

    def columns(self, gid: str, position: int, seat: str) -> OwnColumns | None:
        """A game round's own columns from ``seat`` (None: the round was not played)."""
        record = self.episodes.get((gid, position))
        if record is None:
            return None
        facts = round_facts(record, seat, self.metric, self.message_action)
        summary = record["summary"]
        process = episode_process(self.game, summary, seat)
        return OwnColumns(
            measures={
                "seed": record["seed"],
                self.metric: facts["steps"],
                "success": facts["success"],
                "decisions": facts["decisions"],
                "messages": facts["messages"],
                "stand_in_decisions": self.stood_in[(gid, position, seat)],
            },
            kind={"structure": summary.get("structure")},
            process={f"process.{k}": process.get(k) for k in ROUND_PROCESS if k in process},
        )


def response_rows(loaded: LoadedStudy, db: StudyDB) -> list[dict[str, Any]]:
    """One row per participant x round played (rated or not), in group, seat and order
    position: the columns every round has (:class:`ResponseSheet`) around its kind's own
    (:class:`GameRounds`, :class:`collabrl.study.results.room_export.RoomRounds`)."""
    study = loaded.study
    rooms = RoomRounds(loaded, db)
    games = GameRounds(loaded, db) if study.game is not None else None
    sheet = ResponseSheet(loaded, db, rooms)
    rows = []
    for group in db.groups():
        for seat, pid in group["members"].items():
            if pid is None:
                continue
            for position, cid in enumerate(group["conditions"]):
                condition = study.condition(cid)
                own: OwnColumns | None
                if condition.round == "game":
                    own = games.columns(group["gid"], position, seat) if games else None
                else:
                    measures = rooms.measures(group["gid"], position, pid)
                    own = (
                        None
                        if measures is None
                        else OwnColumns(measures, {"round": condition.round})
                    )
                if own is not None:
                    rows.append(sheet.row(group, seat, pid, position, own))
    return rows


def participant_rows(db: StudyDB, loaded: LoadedStudy | None = None) -> list[dict[str, Any]]:
    """One row per participant: who, how far, completion code, platform ids as the privacy
    section keeps them, payment, final state (with ``loaded``), declared fields."""
    intake = _intake(db)
    final = _final_state(loaded, db) if loaded is not None else {}
    joined = {e["pid"]: e["data"].get("platform", {}) for e in db.events("join")}
    paid = {e["pid"]: e["data"] for e in db.events("payment")}
    return [
        {
            "participant": p["pid"],
            "kind": p["kind"],
            "profile": p["profile"],
            "status": p["status"],
            "page": p["page"],
            "group": p["gid"],
            "seat": p["seat"],
            "code": p["code"],
            "joined": _iso(p["created"]),
            "last_change": _iso(p["updated"]),
            **joined.get(p["pid"], {}),
            **_payment_columns(paid.get(p["pid"])),
            **intake[p["pid"]],
            **(final[p["pid"]] if final else {}),
            **{f"field.{k}": v for k, v in p["fields"].items()},
        }
        for p in db.participants()
    ]


def _payment_columns(paid: dict[str, Any] | None) -> dict[str, Any]:
    if paid is None:
        return {}
    return {f"payment.{k}": paid[k] for k in ("base", "bonus", "currency", "error")}


def bonus_rows(loaded: LoadedStudy, db: StudyDB) -> str | None:
    """The platform's bulk-bonus file of every paid bonus (raw platform ids: personal data;
    None: the study pays no bonus)."""
    study = loaded.study
    if study.payment is None or not study.payment.bonus:
        return None
    platform = PLATFORMS[study.recruitment.platform]
    ids = db.identities()
    rows = [
        {
            "participant": ids.get(e["pid"], {}).get("participant", e["pid"]),
            "session": ids.get(e["pid"], {}).get("session"),
            "bonus": e["data"]["bonus"],
            "currency": e["data"]["currency"],
        }
        for e in db.events("payment")
    ]
    return bonus_file(platform.bonus_format, rows, study.payment.reason)


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}Z"


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """``rows`` as a CSV of every column any row has, with formula-leading text neutralised
    (:func:`collabrl.records.csv_cell`: participants write free text, answers and link fields;
    ``events.jsonl`` keeps them raw)."""
    records.write_csv(path, rows)


def manifest(loaded: LoadedStudy, db: StudyDB, counts: dict[str, int]) -> dict[str, Any]:
    """What the data can be audited against: the protocol, its sources, models, versions."""
    from collabrl import __version__

    study = loaded.study
    meta = db.meta()
    return {
        "study": study.name,
        "study_sha256": loaded.sha256,
        "study_yaml": loaded.resolved_yaml,
        "sources": [{"where": s.where, "sha256": s.sha256, "text": s.text} for s in loaded.sources],
        "overrides": loaded.overrides,
        "database": {
            "study_sha256": meta.get("study_sha256"),
            "created": meta.get("created"),
            "collabrl": meta.get("collabrl"),
            "upgrades": json.loads(meta.get("upgrades", "[]")),
        },
        "conditions": [
            {
                "id": c.id,
                "name": c.name,
                "round": c.round,
                "agent": agent_label(c),
                **(_agent_manifest(c.agent) if c.agent else _chat_agent_manifest(c.chat_agent)),
            }
            for c in study.conditions
        ],
        "stand_in": player_label(study.simulated) if study.game is not None else None,
        "collabrl": __version__,
        "python": platform.python_version(),
        "exported": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "counts": counts,
    }


def _agent_manifest(agent: Any) -> dict[str, Any]:
    """A game round's agent, as the manifest records it."""
    return {
        "kind": agent.kind,
        "backend": agent.engine.backend if agent.engine else None,
        "model": agent.engine.model if agent.engine else None,
        "sampling": agent.sampling.model_dump() if agent.kind == "llm" else None,
        "profile": agent.profile,
    }


def _chat_agent_manifest(agent: Any) -> dict[str, Any]:
    """A chat or document round's agent, as the manifest records it."""
    llm = agent.kind == "llm"
    return {
        "kind": agent.kind,
        "backend": agent.engine.backend if llm else None,
        "model": agent.engine.model if llm else None,
        "sampling": agent.sampling.model_dump() if llm else None,
        "profile": None,
    }


def _with_condition(loaded: LoadedStudy, record: dict[str, Any]) -> dict[str, Any]:
    """A round's trajectory with its condition as top-level columns (from its stamp), and
    whether it was the practice round (:mod:`collabrl.study.spec.tutorial`)."""
    cid = (record.get("stamp") or {}).get("condition")
    name = next((c.name for c in loaded.study.conditions if c.id == cid), None)
    practice = bool(record.get("practice"))
    return {**record, "condition": cid, "condition_name": name, "practice": practice}


def export_study(loaded: LoadedStudy, db: StudyDB, out: Path) -> dict[str, Any]:
    """Write every export file into ``out``; the manifest."""
    import datasets

    datasets.disable_progress_bars()  # a CLI export prints its own summary
    rows = response_rows(loaded, db)
    events = db.events()
    trajectories = [_with_condition(loaded, e["record"]) for e in db.episodes()]
    people = participant_rows(db, loaded)
    bonuses = bonus_rows(loaded, db)
    counts = {
        "participants": len(people),
        "completed": sum(p["status"] == "completed" for p in people),
        "rows": len(rows),
        "episodes": len(trajectories),
        "events": len(events),
    }
    with output_set(out, "export") as staging:
        write_csv(staging / "responses.csv", rows)
        write_csv(staging / "participants.csv", people)
        write_jsonl(staging / "events.jsonl", ({**e, "time": _iso(e["t"])} for e in events))
        write_jsonl(staging / "trajectories.jsonl", trajectories)
        if bonuses is not None:
            write_text(staging / "bonuses.csv", bonuses)
        write_csv(staging / "chat_transcripts.csv", chat_transcript_rows(db, _iso))
        write_csv(staging / "documents.csv", document_rows(db))
        write_jsonl(staging / "document_history.jsonl", document_history(db, _iso))
        write_csv(staging / "assignments.csv", assignment_rows(db))
        write_jsonl(staging / "agent_replies.jsonl", agent_replies(db, _iso))
        write_csv(staging / "workspace_edits.csv", workspace_rows(db, _iso))
        write_csv(staging / "page_events.csv", page_event_rows(db, _iso))
        write_csv(staging / "checks.csv", check_rows(db, _iso))
        if rows:
            write_hf_dataset(staging / "responses_hf", rows)
        if trajectories:
            write_hf_dataset(staging / "trajectories_hf", trajectories, HF_NESTED)
        info = manifest(loaded, db, counts)
        info["files"] = {p.name: file_sha256(p) for p in sorted(staging.iterdir()) if p.is_file()}
        write_text(staging / "manifest.json", json.dumps(info, indent=2) + "\n")
    return info
