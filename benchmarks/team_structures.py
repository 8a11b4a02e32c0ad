"""Does the team-structures study's process-loss pattern appear on the analysis game? The grid.

Plays ``collabrl eval analysis_teams``'s composition grid (Single-agent; Default, Memory,
Gates and Scaffolded with the collaborators D, R and DR) on the 38 test tasks for 3 seeds, with
scripted players only: the reference analyst in the agent's seat, with full knowledge (the
expert) and with its own notes only (the novice, which falls into a trap whose note it never
hears); the collaborators either reference analysts (share everything at once) or persona
players of the task's test profiles (two profile teams per task; how much they share, and
whether they review, follows their traits; they also run the analysis and edit the shared
hypothesis by initiative; the novice lead leaves their rewrites, the expert restores its own,
and a third agent, the listener, knows every note like the expert but leaves rewrites). The players are not tuned
to make a pattern appear. ``--reliability`` plays the grid at each level: the chance that each
trap note a D or R collaborator holds is right (``eval.game_options.analysis.reliability``; a wrong note endorses the
trap's naive step and its holder believes it).

Prints Tables 2 and 3 per configuration, then the finding: paired differences across tasks
(task means over seeds and profile teams, 95% t intervals) of Performance and the hypothesis
match score for Default-D/R/DR against Single-agent (process loss: negative) and for
Scaffolded against Default with the same collaborators (recovery: positive).

    python benchmarks/team_structures.py [--seeds 0 1 2] [--partners expert persona]
        [--agents expert novice] [--reliability 1.0 0.8 0.6] [--collaborators D R DR]
        [--tasks discoverybench --root PATH/discoverybench/real/test]

``--tasks discoverybench`` plays the grid on the real DiscoveryBench tasks of ``--root`` (or of
``$COLLABRL_DISCOVERYBENCH``) instead of the shipped ones: their D/R guidance and traps are
derived from each task's metadata (:mod:`collabrl.envs.analysis.real_workflows`). They have no
test profiles, so persona collaborators borrow them: the k-th real task (in name order) is played
by the profile teams of the k-th shipped test task, the same simulated people on another task
(a persona's behaviour comes from its traits alone; its guidance from the task it plays).
``--collaborators DR`` plays only the D+R teams beside the single agent (the finding's teams:
less than half the episodes, for a machine that cannot afford the whole grid).

Each configuration also gets the process-loss decomposition per team variant (the gap between
the team's potential and its score, split into notes never surfaced, surfaced but not used and
used wrongly). Ends with one line per configuration and reliability: the HMS differences that carry the
finding (Default-DR against Single-agent; Gates, Memory and Scaffolded DR against Default-DR).
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tabulate import tabulate

from collabrl.agents.player import Player
from collabrl.config import load_recipe
from collabrl.config.evaluation import EvalSpec
from collabrl.envs.analysis.expert import AnalysisExpert, AnalysisNovice
from collabrl.envs.analysis.process_loss import LOSS_KEYS, decompose, mean_loss
from collabrl.envs.analysis.tasks import DISCOVERYBENCH_ENV, get_task, load_tasks, task_names
from collabrl.envs.base import Game
from collabrl.envs.registry import GameSection
from collabrl.eval.players import partner_factory
from collabrl.eval.runner import EpisodeOutcome, Job, play_all, select_jobs
from collabrl.eval.team_study import SINGLE, study_markdown, study_rows, variant_label
from collabrl.factory import EngineCache
from collabrl.stats import Interval, paired_difference


class AnalysisListener(AnalysisExpert):
    """The expert analyst that leaves a teammate's rewrite of its fields (as the novice does):
    an agent that knows the field but listens, the case where a team can cost it points."""

    name = "analysis-listener"

    def defers(self, field: str) -> bool:
        return True


AGENTS = {"expert": AnalysisExpert, "novice": AnalysisNovice, "listener": AnalysisListener}
PROFILE_TEAMS = {"expert": 1, "persona": 2}  # collaborator kind -> profile teams per task
METRICS = ("performance", "score")
SHIPPED_PREFIX = (
    "arch-"  # the shipped tasks' names (arch-test-NN); a DiscoveryBench one is <domain>-<id>-<qid>
)


COMPOSITIONS = {"D": ["D"], "R": ["R"], "DR": ["D", "R"]}  # --collaborators -> the teammates
SUMMARY = (("Default-DR", SINGLE), ("Gates-DR", "Default-DR"), ("Memory-DR", "Default-DR"),
           ("Scaffolded-DR", "Default-DR"))  # fmt: skip
"""The differences of HMS the closing summary shows, (variant, baseline)."""


def play(
    agent: str,
    partners: str,
    seeds: list[int],
    reliability: float,
    tasks: list[str] | None,
    collaborators: Sequence[str] = tuple(COMPOSITIONS),
) -> list[EpisodeOutcome]:
    """The grid's episodes with the ``agent`` analyst alone and beside each of ``collaborators``
    (keys of :data:`COMPOSITIONS`) played by ``partners`` collaborators whose trap notes are right
    with probability ``reliability``, on ``tasks`` (None: the shipped test tasks)."""
    teams = ", ".join(f"[{', '.join(COMPOSITIONS[c])}]" for c in collaborators)
    overrides = [
        f"eval.teams.compositions=[[], {teams}]",
        f"eval.partner.kind={partners}",
        f"eval.max_profiles={PROFILE_TEAMS[partners]}",
        f"eval.seeds={seeds}",
        f"eval.game_options={{analysis: {{reliability: {{D: {reliability}, R: {reliability}}}}}}}",
    ]
    spec = load_recipe("analysis_teams", overrides).evaluation()
    jobs = select_jobs(spec) if tasks is None else borrowed_jobs(spec, tasks)
    analyst = AGENTS[agent]

    def policy(_game: Game, _section: GameSection, _seed: int) -> Player:
        return analyst()

    return play_all(spec, jobs, policy, partner_factory(spec.partner, EngineCache(), policy))


def borrowed_jobs(spec: EvalSpec, tasks: list[str]) -> list[Job]:
    """The grid's jobs on the shipped test tasks, each re-pointed at the real task of the same
    position in name order (the profile teams borrowed: the real tasks have none)."""
    shipped = sorted(t for t in task_names("test") if t.startswith(SHIPPED_PREFIX))
    if len(shipped) < len(tasks):
        raise SystemExit(f"{len(tasks)} real tasks, but only {len(shipped)} shipped test tasks "
                         "to borrow profile teams from")  # fmt: skip
    real_of = dict(zip(shipped, sorted(tasks), strict=False))
    jobs = select_jobs(spec.model_copy(update={"tasks": list(real_of)}))
    return [replace(job, task=real_of[job.task]) for job in jobs]


def discoverybench_tasks(root: Path | None) -> list[str]:
    """The test tasks of the DiscoveryBench folder ``root`` (else the one the environment
    names), registered for this run (its subprocesses inherit the variable)."""
    if root is not None:
        os.environ[DISCOVERYBENCH_ENV] = str(root)
    if not os.environ.get(DISCOVERYBENCH_ENV):
        raise SystemExit(f"--tasks discoverybench needs --root or ${DISCOVERYBENCH_ENV}")
    load_tasks.cache_clear()
    return [t for t in task_names("test") if not t.startswith(SHIPPED_PREFIX)]


def task_means(outcomes: Sequence[EpisodeOutcome], key: str) -> dict[str, dict[str, float]]:
    """variant -> task -> mean of ``key`` over the task's episodes."""
    cells: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for o in outcomes:
        assert o.job.structure is not None and o.job.composition is not None
        label = variant_label(o.job.structure, o.job.composition)
        cells[label][o.job.task].append(float(o.record.summary[key]))
    return {v: {t: sum(x) / len(x) for t, x in tasks.items()} for v, tasks in cells.items()}


def difference(means: dict[str, dict[str, float]], variant: str, base: str) -> Interval:
    """``variant`` minus ``base``, paired by task."""
    tasks = sorted(means[base])
    return paired_difference([means[base][t] for t in tasks], [means[variant][t] for t in tasks])


def finding(outcomes: Sequence[EpisodeOutcome]) -> str:
    """Paired differences across tasks: Default teams against Single-agent, Scaffolded (and the
    diagnostics) against Default with the same collaborators."""
    rows = []
    for key in METRICS:
        means = task_means(outcomes, key)
        pairs = [(f"Default-{c}", SINGLE) for c in COMPOSITIONS]
        pairs += [
            (f"{s}-{c}", f"Default-{c}")
            for s in ("Memory", "Gates", "Scaffolded")
            for c in COMPOSITIONS
        ]
        for variant, base in (p for p in pairs if p[0] in means):
            diff = difference(means, variant, base)
            rows.append([key, f"{variant} - {base}", diff.cell(), diff.excludes_zero])
    head = ["metric", "difference", "mean [95% CI] over tasks", "excludes 0"]
    return tabulate(rows, head, tablefmt="github")


def loss_table(outcomes: Sequence[EpisodeOutcome]) -> str:
    """The process-loss decomposition (:mod:`collabrl.envs.analysis.process_loss`) per team variant:
    episode means of the potential, the gap and its parts."""
    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    for o in outcomes:
        assert o.job.structure is not None and o.job.composition is not None
        if o.job.composition:
            label = variant_label(o.job.structure, o.job.composition)
            rows[label].append(decompose(o.record.summary, get_task(o.job.task)))
    body = [[label, *(f"{v:.3f}" for v in mean_loss(r).values())] for label, r in rows.items()]
    return tabulate(body, ["variant", *LOSS_KEYS], tablefmt="github")


def summary_row(outcomes: Sequence[EpisodeOutcome]) -> list[str]:
    """The :data:`SUMMARY` differences of HMS, each ``mean [CI]`` with ``*`` when the interval
    excludes 0."""
    means = task_means(outcomes, "score")
    cells = []
    for variant, base in SUMMARY:
        if variant not in means:  # --collaborators without DR
            cells.append("not played")
            continue
        diff = difference(means, variant, base)
        cells.append(diff.cell() + (" *" if diff.excludes_zero else ""))
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--partners", nargs="+", default=list(PROFILE_TEAMS))
    parser.add_argument("--agents", nargs="+", default=list(AGENTS))
    parser.add_argument("--reliability", type=float, nargs="+", default=[1.0])
    parser.add_argument("--collaborators", nargs="+", choices=list(COMPOSITIONS),
                        default=list(COMPOSITIONS))  # fmt: skip
    parser.add_argument("--tasks", choices=("shipped", "discoverybench"), default="shipped")
    parser.add_argument("--root", type=Path, default=None,
                        help=f"the DiscoveryBench folder (default: ${DISCOVERYBENCH_ENV})")  # fmt: skip
    args = parser.parse_args()
    tasks = discoverybench_tasks(args.root) if args.tasks == "discoverybench" else None
    summary = []
    for reliability in args.reliability:
        for partners in args.partners:
            for agent in args.agents:
                start = time.perf_counter()
                outcomes = play(agent, partners, args.seeds, reliability, tasks, args.collaborators)
                took = time.perf_counter() - start
                title = f"{agent} agent, {partners} collaborators, reliability {reliability:g}"
                print(f"\n## {title} ({len(outcomes)} episodes, {took:.0f}s)\n")
                print(study_markdown(study_rows(outcomes), title))
                print(finding(outcomes))
                print(f"\nProcess loss by stage (episode means):\n\n{loss_table(outcomes)}")
                summary.append([f"{reliability:g}", agent, partners, *summary_row(outcomes)])
    head = ["reliability", "agent", "collaborators", *(f"{v} - {b}" for v, b in SUMMARY)]
    print("\n## HMS differences, mean [95% CI] over tasks (* excludes 0)\n")
    print(tabulate(summary, head, tablefmt="github"))


if __name__ == "__main__":
    main()
