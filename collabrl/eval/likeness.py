"""How human are collabrl's partners? Every partner type against recorded people.

For each task of a game with recorded human play (its :class:`~collabrl.envs.registry.
HumanPartners`), each partner type plays both seats (a pair of its own kind, as the recorded
people played with each other) for a recorded trial's length, and the game's statistics of how
people play are computed identically from those episodes and from the *test* trials. Per task,
type and statistic the distance to the people is the Wasserstein distance between the two sets of
episode values divided by the people's standard deviation (so 1.0 is one human standard
deviation, whatever the statistic's unit), with a 95% percentile bootstrap interval
(``scipy.stats.bootstrap``, both samples resampled).

Types: every persona player type of the game's test profiles (a pair of two of that type's
profiles, rotating), the rule-based expert, the random player, the human proxy (when built), and
an LLM player (the simulated player's prompt without a persona, both seats one engine) when an
engine is given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from collabrl.agents.baselines import RandomPlayer
from collabrl.agents.player import Player
from collabrl.envs.registry import GameSection, HumanPartners, human_partners_of
from collabrl.episode import Episode
from collabrl.errors import CollabrlError

PROXY = "human_proxy"
LLM = "llm"
HUMANS = "humans"
EXPERT, RANDOM = "expert", "random"
PERSONA_PREFIX = "persona:"
RESAMPLES = 400
CONFIDENCE = 0.95


@dataclass
class Distance:
    """One statistic of one type on one task: the people's and the type's means, and the
    distance (human standard deviations) with its interval."""

    human_mean: float
    type_mean: float
    distance: float
    low: float
    high: float


@dataclass
class Likeness:
    """The report: per task, per type, per statistic a :class:`Distance`."""

    game: str
    statistics: tuple[str, ...]
    types: list[str]
    episodes: int
    humans: dict[str, int]  # task -> test trials
    table: dict[str, dict[str, dict[str, Distance]]] = field(default_factory=dict)
    # task -> "humans" or a type -> the per-episode values of the first statistic (the score)
    scores: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    def score_check(self, task: str, kind: str = PROXY) -> tuple[float, float, float]:
        """The people's score quartiles (25%, 75%) on ``task`` and ``kind``'s median score."""
        q1, q3 = np.percentile(self.scores[task][HUMANS], [25, 75])
        return float(q1), float(q3), float(np.median(self.scores[task][kind]))

    def mean_distance(self, task: str, kind: str) -> float:
        """The type's mean distance over the statistics it has on ``task``."""
        values = [d.distance for d in self.table[task][kind].values() if math.isfinite(d.distance)]
        return float(np.mean(values)) if values else math.nan

    def closer_than_personas(self, task: str, kind: str = PROXY) -> tuple[int, int]:
        """On how many statistics ``kind`` is closer to the people than every persona type,
        out of the statistics they all have."""
        personas = [t for t in self.types if t.startswith(PERSONA_PREFIX)]
        wins = total = 0
        for stat in self.statistics:
            mine = self.table[task][kind][stat].distance
            theirs = [self.table[task][p][stat].distance for p in personas]
            if not math.isfinite(mine) or not all(math.isfinite(d) for d in theirs):
                continue
            total += 1
            wins += mine < min(theirs)
        return wins, total


def distance(humans: Sequence[float], simulated: Sequence[float], seed: int = 0) -> Distance:
    """Wasserstein distance in human standard deviations, with a bootstrap interval; NaN when
    either side has no finite value."""
    from scipy.stats import bootstrap, wasserstein_distance

    h = np.asarray([v for v in humans if math.isfinite(v)], dtype=float)
    s = np.asarray([v for v in simulated if math.isfinite(v)], dtype=float)
    if len(h) == 0 or len(s) == 0:
        return Distance(_mean(h), _mean(s), math.nan, math.nan, math.nan)
    scale = float(h.std(ddof=1)) if len(h) > 1 else 0.0
    scale = scale if scale > 1e-9 else 1.0  # people all alike: distances in the raw unit

    def normalised(a: np.ndarray, b: np.ndarray) -> float:
        return float(wasserstein_distance(a, b)) / scale

    value = normalised(h, s)
    if len(h) < 2 or len(s) < 2:
        return Distance(_mean(h), _mean(s), value, math.nan, math.nan)
    result = bootstrap(
        (h, s),
        normalised,
        n_resamples=RESAMPLES,
        confidence_level=CONFIDENCE,
        method="percentile",
        vectorized=False,
        paired=False,
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return Distance(_mean(h), _mean(s), value, float(ci.low), float(ci.high))


def _mean(a: np.ndarray) -> float:
    return float(a.mean()) if len(a) else math.nan


def partner_types(game: str, task: str, llm: bool = False) -> dict[str, list[Any]]:
    """Persona types (each with its test profiles on ``task``), then expert, random, proxy, and
    the LLM player where ``llm``."""
    from collabrl.profiles import has_profiles, load_profiles

    types: dict[str, list[Any]] = {}
    if has_profiles(game):
        for profile in load_profiles(game, "test", task):
            types.setdefault(PERSONA_PREFIX + profile.player_type, []).append(profile)
    return {**types, EXPERT: [], RANDOM: [], PROXY: [], **({LLM: []} if llm else {})}


def pair(
    kind: str,
    profiles: list[Any],
    section: GameSection,
    partners: HumanPartners,
    episode: int,
    proxies: Path | None,
    game: Any = None,
    engine: Any = None,
) -> list[Player]:
    """The players of both seats for episode ``episode`` of ``kind`` (``game`` and ``engine``:
    the episode's game and the engine of an LLM pair)."""
    from collabrl.config.roles import SamplingSpec
    from collabrl.factory import make_expert, make_llm_player, make_persona

    seats = len(section.seats)
    if kind == LLM:
        return [
            make_llm_player(engine, game, SamplingSpec(), episode, role="player")
            for _ in range(seats)
        ]
    if kind.startswith(PERSONA_PREFIX):
        return [make_persona(profiles[(episode + k) % len(profiles)]) for k in range(seats)]
    if kind == EXPERT:
        return [make_expert(section) for _ in range(seats)]
    if kind == RANDOM:
        return [RandomPlayer() for _ in range(seats)]
    return [partners.player(proxies) for _ in range(seats)]


def play(
    partners: HumanPartners,
    task: str,
    kind: str,
    profiles: list[Any],
    episodes: int,
    seed: int,
    proxies: Path | None,
    engine: Any = None,
) -> list[dict[str, float]]:
    """``episodes`` episodes of a pair of ``kind`` on ``task``, measured (``engine``: an LLM
    pair's)."""
    from collabrl.factory import make_game

    base = partners.section(task)
    section = partners.for_proxies(base, base.seats) if kind == PROXY else base
    out = []
    for e in range(episodes):
        game = make_game(section)
        recorder = partners.recorder(game)
        seated = pair(kind, profiles, section, partners, e, proxies, game, engine)
        players = dict(zip(section.seats, seated, strict=True))
        episode = Episode(game, players, seed + e)
        recorder.start()
        while not episode.done:
            for seat in episode.waiting():
                episode.answer(seat, players[seat].act(episode.pending[seat]))
            episode.advance()
        if kind == LLM:
            _check_answered(seated, task)
        out.append(partners.measure(recorder.play))
    return out


def _check_answered(players: Sequence[Any], task: str) -> None:
    """Refuse a row of an LLM pair whose engine answered none of an episode's requests (a
    server down or a wrong model name would otherwise read as an idle, unlike-human pair)."""
    calls = [c for p in players for c in p.calls]
    attempts = sum(c.attempts for c in calls)
    if attempts and sum(c.failures for c in calls) == attempts:
        first = next((e for c in calls for e in c.errors), "no reply")
        raise CollabrlError(
            f"the LLM pair's engine answered none of its {attempts} requests on {task}: {first}"
        )


def compare(
    section: type[GameSection],
    *,
    episodes: int = 6,
    seed: int = 0,
    data: Path | None = None,
    proxies: Path | None = None,
    tasks: Sequence[str] | None = None,
    progress: Callable[[str], None] = lambda _: None,
    engine: Any = None,
) -> Likeness:
    """The human-likeness report of every partner type of ``section``'s game (``engine``: add
    an LLM pair played through it)."""
    partners = human_partners_of(section)
    game = section.model_fields["name"].default
    people: dict[str, list[dict[str, float]]] = {}
    for trial in partners.trials("test", data):
        people.setdefault(partners.trial_task(trial), []).append(partners.measure_trial(trial))
    chosen = list(tasks) if tasks else [t for t in partners.tasks() if t in people]
    unknown = [t for t in chosen if t not in people]
    if unknown:
        raise CollabrlError(f"no recorded test trials on {unknown[0]!r}")
    report = Likeness(game, partners.statistics, [], episodes, {t: len(people[t]) for t in chosen})
    first = partners.statistics[0]
    for task in chosen:
        types = partner_types(game, task, llm=engine is not None)
        report.types = list(types)
        report.table[task] = {}
        report.scores[task] = {HUMANS: [h[first] for h in people[task]]}
        for kind, profiles in types.items():
            progress(f"{task}: {kind}")
            measured = play(partners, task, kind, profiles, episodes, seed, proxies, engine)
            report.scores[task][kind] = [m[first] for m in measured]
            report.table[task][kind] = {
                stat: distance([h[stat] for h in people[task]], [m[stat] for m in measured], seed)
                for stat in partners.statistics
            }
    return report
