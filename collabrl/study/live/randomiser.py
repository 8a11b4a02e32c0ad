"""The study's randomisations as they run: each participant's cell, dealt on arrival at the
randomisation's page (:mod:`collabrl.study.spec.randomise`).

The balanced sequence's position is counted from the stored ``assignment`` events (so it holds
across restarts and every worker over one database); the assigned levels become the
participant's state variables in the same transaction as the event.
"""

from __future__ import annotations

from typing import Protocol

from collabrl.study.live.host import StudyHost
from collabrl.study.live.variables import StudyLogic
from collabrl.study.spec.expressions import ExpressionError, evaluate


class RandomiserHost(StudyHost, Protocol):
    """What the randomiser needs of the runtime: the state variables besides."""

    @property
    def logic(self) -> StudyLogic: ...


class Randomiser:
    """Deals the cells of every randomisation of one study runtime."""

    def __init__(self, rt: RandomiserHost) -> None:
        self.rt = rt

    def arrive(self, pid: str, page_id: str) -> None:
        """Assign ``pid`` every randomisation made on ``page_id`` that they have none of yet."""
        study, db = self.rt.study, self.rt.db
        due = [r for r in study.randomise if (r.at or self.rt.flow.first) == page_id]
        if not due:
            return
        had = {e["data"]["randomisation"] for e in db.events("assignment", pid=pid)}
        for r in due:
            if r.id in had:
                continue
            stratum = ""
            if r.strata is not None:
                try:
                    stratum = str(evaluate(r.strata, self.rt.logic.values(pid)))
                except ExpressionError as exc:
                    what = f"randomise {r.id} strata"
                    db.event("logic_error", pid=pid, node=page_id, what=what, error=str(exc))
            index = sum(
                e["data"]["randomisation"] == r.id and e["data"]["stratum"] == stratum
                for e in db.events("assignment")
            )
            cell = r.cell(study.seed, stratum, index, pid)
            levels = r.cells[cell]
            with db.batch():
                db.event(
                    "assignment",
                    pid=pid,
                    node=page_id,
                    randomisation=r.id,
                    method=r.method,
                    stratum=stratum,
                    index=index,
                    cell=cell,
                    levels=levels,
                )
                self.rt.logic.assign(pid, levels, page_id)
