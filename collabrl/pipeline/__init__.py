"""The profile pipeline: from Big Five descriptors to filtered, high-fidelity player profiles.

Five stages, each reading and writing files in one run directory (CollabBench 4.1):
``generate`` (descriptor players play the games) -> ``cluster`` (windows, embeddings, k-means)
-> ``summarise`` (LLM names each cluster's profile) -> ``filter`` (play, judge, Eq. (1), top k)
-> ``report`` (fidelity metrics before vs after filtering). CLI: ``collabrl profiles ...``.
"""

from collabrl.pipeline.cluster import cluster
from collabrl.pipeline.config import PipelineConfig, PipelineError, load_config
from collabrl.pipeline.consistency import combined, game_term, profile_score
from collabrl.pipeline.descriptors import Descriptor, make_descriptors
from collabrl.pipeline.embed import HashingEmbedder, make_embedder
from collabrl.pipeline.fidelity import fidelity
from collabrl.pipeline.filtering import filter_profiles
from collabrl.pipeline.generate import generate
from collabrl.pipeline.players import PlayerFactory, Trajectory
from collabrl.pipeline.report import report
from collabrl.pipeline.run import STAGES, Resources, run_pipeline, run_stage
from collabrl.pipeline.rundir import RunDir
from collabrl.pipeline.stage import StageSummary
from collabrl.pipeline.summarise import summarise
from collabrl.pipeline.windows import Window, segment

__all__ = [
    "STAGES",
    "Descriptor",
    "HashingEmbedder",
    "PipelineConfig",
    "PipelineError",
    "PlayerFactory",
    "Resources",
    "RunDir",
    "StageSummary",
    "Trajectory",
    "Window",
    "cluster",
    "combined",
    "fidelity",
    "filter_profiles",
    "game_term",
    "generate",
    "load_config",
    "make_descriptors",
    "make_embedder",
    "profile_score",
    "report",
    "run_pipeline",
    "run_stage",
    "segment",
    "summarise",
]
