"""Does the team-structures study's process-loss pattern appear on the analysis game? The grid.

Plays ``collabrl eval analysis_teams``'s composition grid (Single-agent; Default, Memory,
Gates and Scaffolded with the collaborators D, R and DR) on the 38 test tasks for 3 seeds, with
scripted players only: the reference analyst in the agent's seat, with full knowledge (the
expert) and with its own notes only (the novice, which falls into a trap whose note it never
hears); the collaborators either reference analysts (share everything at once) or persona
players of the task's test profiles (two profile teams per task; how much they share, and
whether they review, follows their traits). The players are not tuned to make a pattern appear.

Prints Tables 2 and 3 per configuration, then the finding: paired differences across tasks
(task means over seeds and profile teams, 95% t intervals) of Performance and the hypothesis
match score for Default-D/R/DR against Single-agent (process loss: negative) and for
Scaffolded against Default with the same collaborators (recovery: positive).

    python benchmarks/team_structures.py [--seeds 0 1 2] [--partners expert persona]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Sequence

from tabulate import tabulate

from collabrl.config import load_recipe
from collabrl.envs.analysis.expert import AnalysisExpert, AnalysisNovice
from collabrl.eval.players import partner_factory
from collabrl.eval.runner import EpisodeOutcome, play_all, select_jobs
from collabrl.eval.team_study import SINGLE, study_markdown, study_rows, variant_label
from collabrl.factory import EngineCache
from collabrl.stats import paired_difference

AGENTS = {"expert": AnalysisExpert, "novice": AnalysisNovice}
PROFILE_TEAMS = {"expert": 1, "persona": 2}  # collaborator kind -> profile teams per task
METRICS = ("performance", "score")


def play(agent: str, partners: str, seeds: list[int]) -> list[EpisodeOutcome]:
    """The grid's episodes with the ``agent`` analyst beside ``partners`` collaborators."""
    spec = load_recipe(
        "analysis_teams",
        [
            f"eval.partner.kind={partners}",
            f"eval.max_profiles={PROFILE_TEAMS[partners]}",
            f"eval.seeds={seeds}",
        ],
    ).evaluation()
    analyst = AGENTS[agent]
    return play_all(
        spec,
        select_jobs(spec),
        lambda _game, _section, _seed: analyst(),
        partner_factory(spec.partner, EngineCache()),
    )


def task_means(outcomes: Sequence[EpisodeOutcome], key: str) -> dict[str, dict[str, float]]:
    """variant -> task -> mean of ``key`` over the task's episodes."""
    cells: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for o in outcomes:
        assert o.job.structure is not None and o.job.composition is not None
        label = variant_label(o.job.structure, o.job.composition)
        cells[label][o.job.task].append(float(o.record.summary[key]))
    return {v: {t: sum(x) / len(x) for t, x in tasks.items()} for v, tasks in cells.items()}


def finding(outcomes: Sequence[EpisodeOutcome]) -> str:
    """Paired differences across tasks: Default teams against Single-agent, Scaffolded (and the
    diagnostics) against Default with the same collaborators."""
    rows = []
    for key in METRICS:
        means = task_means(outcomes, key)
        pairs = [(f"Default-{c}", SINGLE) for c in ("D", "R", "DR")]
        pairs += [
            (f"{s}-{c}", f"Default-{c}")
            for s in ("Memory", "Gates", "Scaffolded")
            for c in ("D", "R", "DR")
        ]
        for variant, base in pairs:
            tasks = sorted(means[base])
            diff = paired_difference(
                [means[base][t] for t in tasks], [means[variant][t] for t in tasks]
            )
            rows.append([key, f"{variant} - {base}", diff.cell(), diff.excludes_zero])
    head = ["metric", "difference", "mean [95% CI] over tasks", "excludes 0"]
    return tabulate(rows, head, tablefmt="github")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--partners", nargs="+", default=list(PROFILE_TEAMS))
    parser.add_argument("--agents", nargs="+", default=list(AGENTS))
    args = parser.parse_args()
    for partners in args.partners:
        for agent in args.agents:
            start = time.perf_counter()
            outcomes = play(agent, partners, args.seeds)
            took = time.perf_counter() - start
            title = f"{agent} agent, {partners} collaborators"
            print(f"\n## {title} ({len(outcomes)} episodes, {took:.0f}s)\n")
            print(study_markdown(study_rows(outcomes), title))
            print(finding(outcomes))


if __name__ == "__main__":
    main()
