"""Wire the stages to real dependencies from the config, and run them one by one or all.

Why: the stage functions take their engines, player factory and embedder as arguments (so tests
can pass stand-ins); this module builds the real ones from ``engines.*`` and ``cluster.embedder``
and closes the engines afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from collabrl.engines.types import Engine, SamplingParams
from collabrl.pipeline.cluster import cluster
from collabrl.pipeline.config import PipelineConfig, PipelineError
from collabrl.pipeline.embed import Embedder, make_embedder
from collabrl.pipeline.filtering import filter_profiles
from collabrl.pipeline.generate import generate
from collabrl.pipeline.players import PlayerFactory, llm_player_factory
from collabrl.pipeline.report import report
from collabrl.pipeline.rundir import RunDir
from collabrl.pipeline.stage import StageSummary
from collabrl.pipeline.summarise import summarise

STAGES = ("generate", "cluster", "summarise", "filter", "report")


class Resources(AbstractContextManager["Resources"]):
    """Engines (one per distinct engine config, shared across roles), players and embedder.

    Anything passed in is used as is (test stand-ins); the rest is built on first use.
    """

    def __init__(
        self,
        config: PipelineConfig,
        *,
        player_factory: PlayerFactory | None = None,
        summariser: Engine | None = None,
        judge: Engine | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.config = config
        self._given: dict[str, Any] = {
            "player": player_factory,
            "summariser": summariser,
            "judge": judge,
            "embedder": embedder,
        }
        self._engines: dict[str, Engine] = {}

    def engine(self, role: str) -> Engine:
        given = self._given.get(role)
        if given is not None:
            return given
        spec = self.config.engines.for_role(role)
        key = spec.model_dump_json()
        if key not in self._engines:
            from collabrl.factory import make_engine_from_spec

            try:
                self._engines[key] = make_engine_from_spec(spec)
            except (ValueError, ImportError) as err:
                raise PipelineError(f"engines.{role}: {err}") from None
        return self._engines[key]

    def players(self, temperature: float, max_new_tokens: int) -> PlayerFactory:
        given = self._given["player"]
        if given is not None:
            return given
        params = SamplingParams(
            temperature=temperature, max_new_tokens=max_new_tokens, seed=self.config.seed
        )
        return llm_player_factory(self.engine("player"), params)

    def embedder(self) -> Embedder:
        if self._given["embedder"] is None:
            self._given["embedder"] = make_embedder(self.config.cluster.embedder)
        return self._given["embedder"]

    def __exit__(self, *exc: object) -> None:
        for engine in self._engines.values():
            engine.close()


def run_stage(stage: str, run: RunDir, res: Resources, progress: bool = True) -> StageSummary:
    """Run one stage against the files in ``run``; its outputs replace the previous ones together
    only when it finishes (:meth:`RunDir.staged`)."""
    config = res.config
    actions: dict[str, Callable[[RunDir], StageSummary]] = {
        "generate": lambda out: generate(
            out,
            config,
            res.players(config.generate.temperature, config.generate.max_new_tokens),
            progress=progress,
        ),
        "cluster": lambda out: cluster(out, config, res.embedder(), progress=progress),
        "summarise": lambda out: summarise(
            out, config, res.engine("summariser"), progress=progress
        ),
        "filter": lambda out: filter_profiles(
            out,
            config,
            res.players(config.filter.temperature, config.filter.max_new_tokens),
            res.engine("judge"),
            progress=progress,
        ),
        "report": lambda out: report(out, config, res.embedder()),
    }
    if stage not in actions:
        raise PipelineError(f"unknown stage {stage!r}; choose from {', '.join(STAGES)}")
    with run.staged(stage) as staged:
        return actions[stage](staged)


def run_pipeline(
    run: RunDir, res: Resources, stages: tuple[str, ...] = STAGES, progress: bool = True
) -> list[StageSummary]:
    """Run ``stages`` in order; each reads what the previous one wrote."""
    return [run_stage(stage, run, res, progress) for stage in stages]
