"""Cross-play of trained partner populations: each agent beside each kind of partner.

Why: a self-play agent scores well beside itself and can fail beside anyone else (its
conventions are its own); Fictitious Co-Play trains against partners of several skill levels to
fix that. The table shows it: per task, each agent (by default the self-play agent's final
checkpoint and the FCP agent) plays beside every partner type, half the episodes in each seat:
the population's own members (the self-play agent itself, its middle checkpoint, the FCP
agent), the human proxy (when built) and the game's persona players (its test profiles on the
task, rotating). Per agent it gives the mean team score with a 95% Student-t interval per
partner type, and the worst type (robustness over held-out partners).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collabrl.envs.registry import GameSection, HumanPartners, human_partners_of
from collabrl.episode import Episode
from collabrl.errors import CollabrlError
from collabrl.stats import Interval, mean_ci

AGENTS = ("sp0_final", "fcp0")
MEMBER_PARTNERS = ("sp0_final", "sp0_mid50", "fcp0")
IF_TRAINED = ("mep0", "pbt0", "cole0")
"""Members that join both lists where every task has them stored (MEP, PBT and COLE are trained
on their own, so a population may lack them)."""
PROXY, PERSONA = "human_proxy", "persona"


@dataclass
class CrossPlay:
    """Per task, per agent, per partner type: the episode scores."""

    agents: tuple[str, ...]
    partners: list[str] = field(default_factory=list)
    scores: dict[str, dict[str, dict[str, list[float]]]] = field(default_factory=dict)

    def cell(self, task: str, agent: str, partner: str) -> Interval:
        return mean_ci(self.scores[task][agent].get(partner, []))

    def worst(self, task: str, agent: str) -> str:
        """The partner type ``agent`` scores least beside on ``task`` (its robustness)."""
        by_type = {p: mean_ci(s).mean for p, s in self.scores[task][agent].items() if s}
        return min(by_type, key=lambda p: by_type[p])


def _partner_player(
    kind: str,
    e: int,
    profiles: Sequence[Any],
    partners: HumanPartners,
    population: Path | None,
    proxies: Path | None,
) -> Any:
    from collabrl.factory import make_persona

    if kind == PERSONA:
        return make_persona(profiles[e % len(profiles)])
    if kind == PROXY:
        return partners.player(proxies)
    return partners.population_player([kind], population)


def play_pair(
    section: GameSection,
    partners: HumanPartners,
    agent: Any,
    partner: Any,
    agent_seat: int,
    seed: int,
) -> float:
    """One episode of ``agent`` in seat ``agent_seat`` beside ``partner``; the team's score."""
    from collabrl.factory import make_game

    game = make_game(section)
    recorder = partners.recorder(game)
    seats = list(section.seats)
    players = {seats[agent_seat]: agent, seats[1 - agent_seat]: partner}
    episode = Episode(game, players, seed)
    recorder.start()
    while not episode.done:
        for seat in episode.waiting():
            episode.answer(seat, players[seat].act(episode.pending[seat]))
        episode.advance()
    return float(partners.measure(recorder.play)[partners.statistics[0]])


def crossplay(
    section: type[GameSection],
    *,
    tasks: Sequence[str],
    episodes: int = 4,
    seed: int = 0,
    agents: Sequence[str] | None = None,
    population: Path | None = None,
    proxies: Path | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> CrossPlay:
    """Every agent (default: :data:`AGENTS`, and :data:`IF_TRAINED` where stored) beside every
    partner type on each of ``tasks``, ``episodes`` each."""
    from collabrl.profiles import has_profiles, load_profiles

    partners = human_partners_of(section)
    game = section.model_fields["name"].default
    trained = [m for m in IF_TRAINED if all(m in partners.members(t, population) for t in tasks)]
    members = [*MEMBER_PARTNERS, *trained]
    report = CrossPlay(tuple(agents) if agents is not None else (*AGENTS, *trained))
    for task in tasks:
        if task not in partners.tasks():
            raise CollabrlError(f"unknown task {task!r}; one of: {', '.join(partners.tasks())}")
        profiles = load_profiles(game, "test", task) if has_profiles(game) else []
        kinds = members + [PROXY] + ([PERSONA] if profiles else [])
        report.partners = kinds
        trial_length = partners.section(task)  # evaluation's horizon, not a recorded trial's
        base = section.model_validate({**trial_length.model_dump(), **section.eval_options})
        report.scores[task] = {}
        for agent_name in report.agents:
            report.scores[task][agent_name] = {}
            for kind in kinds:
                progress(f"{task}: {agent_name} with {kind}")
                scores = []
                for e in range(episodes):
                    agent_seat = e % 2
                    motion = base.seats if kind != PERSONA else [base.seats[agent_seat]]
                    played = partners.for_proxies(base, motion)
                    try:
                        partner = _partner_player(kind, e, profiles, partners, population, proxies)
                        agent = partners.population_player([agent_name], population)
                        scores.append(
                            play_pair(played, partners, agent, partner, agent_seat, seed + e)
                        )
                    except CollabrlError:
                        if kind == PROXY:  # no proxy built: the column stays empty
                            break
                        raise
                report.scores[task][agent_name][kind] = scores
    return report


def markdown(report: CrossPlay) -> str:
    """One table per agent: tasks by partner types, mean score [95% interval], and the worst."""
    from tabulate import tabulate

    parts = []
    for agent in report.agents:
        rows = [
            [task]
            + [report.cell(task, agent, p).cell(1) for p in report.partners]
            + [report.worst(task, agent)]
            for task in report.scores
        ]
        parts.append(f"#### {agent} beside each partner type (team score, mean [95% CI])\n")
        parts.append(tabulate(rows, ["task", *report.partners, "worst"], tablefmt="github"))
        parts.append("")
    return "\n".join(parts)
