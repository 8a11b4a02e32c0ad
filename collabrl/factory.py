"""Build games, engines, players and judges from validated recipe sections: the one place that
maps a section to the object it describes. ``collabrl play``, ``serve``, demonstrations,
training rollouts and evaluation all build their seats here."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol

from collabrl.agents.player import IdlePlayer, Player
from collabrl.config import EngineSpec, JudgeSpec, PartnerSpec, PlayerSpec, SamplingSpec
from collabrl.config.roles import MOTION_PARTNERS
from collabrl.envs.base import Game
from collabrl.envs.registry import GameSection, get_game, load_addon
from collabrl.errors import CollabrlError

if TYPE_CHECKING:
    from collabrl.agents.prompts import Role
    from collabrl.engines.batching import LockstepBatcher
    from collabrl.profiles import Profile


def make_game(spec: GameSection) -> Game:
    """The game a recipe's ``game`` section describes."""
    return spec.make_game()


def make_engine_from_spec(spec: EngineSpec):
    """An inference engine for a recipe's ``engine`` section."""
    from collabrl.engines import make_engine

    return make_engine({"backend": spec.backend, "model": spec.model, **spec.options})


class SerializedEngine:
    """An engine whose ``generate`` calls run one at a time (callers on several threads share
    it)."""

    def __init__(self, engine: Any) -> None:
        self.engine, self.lock = engine, threading.Lock()

    def generate(self, conversations, params):
        with self.lock:
            return self.engine.generate(conversations, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


class EngineSource(Protocol):
    """Where players get their engines: an :class:`EngineCache` or a view of one."""

    def get(self, spec: EngineSpec | None) -> Any: ...


class EngineCache:
    """One engine per engine section for a whole run (evaluation, a study server): models load
    once, and their caches and limits are shared. ``serialized``: calls to one engine run one at
    a time, for callers on several threads."""

    def __init__(self, serialized: bool = False) -> None:
        self.serialized = serialized
        self._engines: dict[str, Any] = {}

    def get(self, spec: EngineSpec | None) -> Any:
        """The engine of ``spec`` (None for a role without one)."""
        if spec is None:
            return None
        key = spec.model_dump_json()
        if key not in self._engines:
            engine = make_engine_from_spec(spec)
            self._engines[key] = SerializedEngine(engine) if self.serialized else engine
        return self._engines[key]

    def close(self) -> None:
        for engine in self._engines.values():
            engine.close()
        self._engines.clear()


class LockstepEngines:
    """An :class:`EngineCache` as an evaluation's worker threads use it: engines that run a model
    here (transformers, vLLM) answer through one :class:`~collabrl.engines.batching.LockstepBatcher`,
    so the workers' calls merge into reproducible rounds; server engines (openai) are shared as
    they are, the threads being their concurrency."""

    def __init__(self, cache: EngineCache, batcher: LockstepBatcher) -> None:
        self.cache, self.batcher = cache, batcher
        self._wrapped: dict[int, Any] = {}
        self._lock = threading.Lock()  # workers ask at once: each model loads once

    def get(self, spec: EngineSpec | None) -> Any:
        with self._lock:
            engine = self.cache.get(spec)
            if spec is None or spec.backend == "openai":
                return engine
            if id(engine) not in self._wrapped:  # one wrapper per engine: act_all groups by it
                self._wrapped[id(engine)] = self.batcher.wrap(engine)
            return self._wrapped[id(engine)]


def player_label(spec: Any, profile: Profile | None = None) -> str:
    """How tables, records, pages and exports name a player section (a ``PlayerSpec`` or a study's
    simulated-player section): model ids and profile ids, never engine options or keys."""
    profile_id = profile.id if profile is not None else getattr(spec, "profile", None)
    if spec.kind == "llm" and spec.engine is not None:
        label = f"llm:{spec.engine.backend}:{spec.engine.model}"
        return f"{label}:{profile_id}" if profile_id else label
    if spec.kind == "persona":
        return f"persona:{profile_id}"
    return spec.kind


def sampling_params(spec: SamplingSpec, seed: int | None = None):
    """Engine sampling parameters for a recipe's ``sampling`` section."""
    from collabrl.engines import SamplingParams

    return SamplingParams(
        temperature=spec.temperature,
        top_p=spec.top_p,
        max_new_tokens=spec.max_new_tokens,
        seed=seed,
    )


def make_expert(game_spec: GameSection) -> Player:
    """The rule-based expert of the section's game."""
    return load_addon(game_spec.expert, "rule-based expert", game_spec.name)()


def make_persona(profile: Profile, vary_wording: bool = True) -> Player:
    """The persona-scripted player of ``profile`` (its game's persona class); ``vary_wording``:
    never the same chat line twice in an episode (a class without the option keeps its own)."""
    persona = load_addon(get_game(profile.game).persona, "persona player", profile.game)
    if vary_wording:
        return persona(profile)
    return persona(profile, vary_wording=False)


def make_llm_player(
    engine: Any,
    game: Game,
    sampling: SamplingSpec,
    seed: int,
    *,
    role: Role,
    persona: str | None = None,
    **options: Any,
) -> Player:
    """An LLM seat: ``role`` "agent" (the collaborative agent, no persona) or "player" (a
    simulated player, optionally role-playing ``persona``); ``options``: retries, name, layout
    (the agent's prompt layout)."""
    from collabrl.agents.llm_player import LLMPlayer

    params = sampling_params(sampling, seed)
    return LLMPlayer(engine, game, params, role=role, persona=persona, **options)


def make_player(
    spec: PlayerSpec, game_spec: GameSection, game: Game, seed: int = 0, engine: Any = None
) -> Player:
    """The player a recipe's ``players`` entry describes, for the given game (``engine``: a
    shared engine for an llm seat; built from ``spec.engine`` when None)."""
    from collabrl.profiles import get_profile

    if spec.kind == "llm":
        persona = get_profile(spec.profile).persona() if spec.profile else None
        role: Role = "player" if persona else "agent"  # a profiled seat is a simulated player
        assert spec.engine is not None, "PlayerSpec refuses an llm seat without an engine"
        engine = engine or make_engine_from_spec(spec.engine)
        layout = spec.prompt if role == "agent" else "paper"
        return make_llm_player(
            engine, game, spec.sampling, seed, role=role, persona=persona, layout=layout
        )
    if spec.kind == "persona":
        assert spec.profile is not None, "PlayerSpec refuses a persona seat without a profile"
        return make_persona(get_profile(spec.profile), spec.vary_wording)
    if spec.kind == "expert":
        return make_expert(game_spec)
    if spec.kind == "idle":
        return IdlePlayer()
    if spec.kind in ("silent", "random"):
        from collabrl.agents.baselines import RandomPlayer, SilentPlayer

        return SilentPlayer(make_expert(game_spec)) if spec.kind == "silent" else RandomPlayer()
    raise CollabrlError("a human seat is played in the browser: use `collabrl serve RECIPE`")


def make_partner(
    spec: PartnerSpec,
    game_spec: GameSection,
    game: Game,
    profile: Profile | None,
    seed: int,
    engine: Any = None,
    draws: int | None = None,
) -> Player:
    """A partner seat beside the policy, for ``profile`` (None: a profile-free partner).

    Training and evaluation share it; self-play partners are the training rollout's own.
    ``draws``: a motion partner's own random stream (see ``MotionPartner``)."""
    if spec.kind == "persona":
        if profile is None:
            raise CollabrlError(f"a persona partner needs a profile ({game_spec.name} game)")
        return make_persona(profile, spec.vary_wording)
    if spec.kind == "llm":
        persona = profile.persona() if profile is not None and spec.use_profile else None
        return make_llm_player(
            engine, game, spec.sampling, seed, role="player", persona=persona, retries=spec.retries
        )
    if spec.kind == "expert":
        return make_expert(game_spec)
    if spec.kind in MOTION_PARTNERS:
        from pathlib import Path

        from collabrl.envs.registry import human_partners_of

        source = human_partners_of(game_spec)
        if spec.kind == "human_proxy":
            return source.player(Path(spec.proxies).expanduser() if spec.proxies else None, draws)
        where = Path(spec.population).expanduser() if spec.population else None
        return source.population_player(spec.members, where, draws)
    raise CollabrlError(f"partner.kind={spec.kind} has no partner player to build")


def make_judge(spec: JudgeSpec, engine: Any = None):
    """The judge a ``judge`` section describes (None for kind none): the heuristic proxy, or an
    LLM judge through ``engine`` (built from ``spec.engine`` when None)."""
    if spec.kind == "none":
        return None
    if spec.kind == "heuristic":
        from collabrl.rewards.judges.heuristic import HeuristicJudge

        return HeuristicJudge()
    import dataclasses

    from collabrl.rewards.judges.llm import LLMJudge, default_judge_params

    params = dataclasses.replace(
        default_judge_params(),
        temperature=spec.sampling.temperature,
        top_p=spec.sampling.top_p,
        max_new_tokens=spec.sampling.max_new_tokens,
    )
    assert spec.engine is not None, "JudgeSpec refuses an llm judge without an engine"
    engine = engine or make_engine_from_spec(spec.engine)
    return LLMJudge(engine, name=spec.engine.model, params=params, retries=spec.retries)
