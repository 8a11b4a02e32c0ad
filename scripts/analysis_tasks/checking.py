"""Each drafted task checked in the analysis language (the workflow gives the designed value,
every set of trap steps another relation) and redrawn until it holds; the whole task set.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

from analysis_tasks.draft import Draft, Redraw
from analysis_tasks.plan import PLAN
from collabrl.envs.analysis.language import Workspace
from collabrl.envs.analysis.scoring import normalise
from collabrl.envs.analysis.tasks import AnalysisTask, Hypothesis, frames
from collabrl.envs.registry import Split

DEFAULT_SEED = 0
ATTEMPTS = 500  # draws per task before giving up (a handful suffice; more means a bug)


def final_value(task: AnalysisTask, replaced: dict[int, str]) -> Any:
    """The last step's value of the workflow with some steps replaced, run in a fresh
    Workspace; a failing step is a bug in the family, not bad luck."""
    workspace = Workspace(frames(task))
    value = None
    for index, s in enumerate(task.workflow):
        outcome = workspace.run(replaced.get(index, s.step))
        if outcome.error:
            raise RuntimeError(f"{task.name} step {index}: {outcome.error}")
        value = outcome.value
    return value


def finish(draft: Draft, name: str, split: Split) -> AnalysisTask:
    """The task with its gold hypothesis, after checking it in the analysis language: the
    workflow yields the designed value and each alternative step keeps it (else a bug: raise);
    every non-empty set of naive steps words another relation (else :class:`Redraw`)."""
    task = AnalysisTask(
        name=name,
        split=split,
        query=draft.query,
        tables=draft.tables,
        notes=draft.notes,
        gold=Hypothesis(context=draft.context, variables=draft.variables, relation="", sentence=""),
        workflow=draft.workflow,
        relation_template=draft.template,
        traps=draft.traps,
    )
    if any(not 8 <= len(t.rows) <= 60 for t in task.tables):
        raise Redraw
    value = final_value(task, {})
    if value != draft.expected:
        raise RuntimeError(f"{name}: the workflow gives {value!r}, the design {draft.expected!r}")
    for index, s in enumerate(task.workflow):
        for alternative in s.alternatives:
            if final_value(task, {index: alternative}) != value:
                raise RuntimeError(f"{name}: alternative {alternative!r} changes the answer")
    relation = draft.template.format(value=value)
    for size in range(1, len(task.traps) + 1):
        for chosen in itertools.combinations(task.traps, size):
            naive = final_value(task, {t.at: t.naive_step for t in chosen})
            if normalise(draft.template.format(value=naive)) == normalise(relation):
                raise Redraw
    gold = Hypothesis(
        context=draft.context,
        variables=draft.variables,
        relation=relation,
        sentence=draft.sentence.format(relation=relation),
    )
    return task.model_copy(update={"gold": gold})


def make_task(seed: int, name: str, split: Split, family: str, variant: str) -> AnalysisTask:
    """Draw the task's numbers from its own seed until the family's design holds."""
    builder = PLAN[family].builder
    rng = random.Random(f"{seed}:{name}")
    for _ in range(ATTEMPTS):
        try:
            return finish(builder(rng, variant), name, split)
        except Redraw:
            continue
    raise RuntimeError(f"{name}: no draw made a {family}/{variant} task in {ATTEMPTS} tries")


def build_tasks(seed: int = DEFAULT_SEED) -> list[AnalysisTask]:
    """Every task of both splits; within a split the families are interleaved by the seed."""
    tasks = []
    splits: tuple[Split, ...] = ("test", "train")
    for split in splits:
        plan = [
            (name, family.variants[i % len(family.variants)])
            for name, family in PLAN.items()
            for i in range(family.count(split))
        ]
        random.Random(f"{seed}:{split}").shuffle(plan)
        for number_, (family, variant) in enumerate(plan, 1):
            tasks.append(make_task(seed, f"arch-{split}-{number_:02d}", split, family, variant))
    return tasks


SHIPPED_DEFAULTS: dict[str, Any] = {"context_template": True, "notes": {"__all__": {"profile"}}}
"""Fields a shipped task leaves at their defaults (its context is the gold's, its notes go by
trap), so the file does not spell them."""


def build(seed: int = DEFAULT_SEED) -> dict[str, str]:
    """File name -> JSON text of the whole task set for ``seed``."""
    records = [t.model_dump(mode="json", exclude=SHIPPED_DEFAULTS) for t in build_tasks(seed)]
    return {"tasks.json": json.dumps(records, indent=1, ensure_ascii=True) + "\n"}
