"""Build an engine from a small config, importing its backend only when asked for.

Why: heavy optional packages (vllm) must not be needed to import collabrl, and a missing one
should say in one line which extra to install.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from collabrl.engines.types import Engine
from collabrl.errors import CollabrlError

# backend name -> (module, class, packages it needs, install hint)
_BACKENDS: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "transformers": (
        "collabrl.engines.hf",
        "TransformersEngine",
        ("torch", "transformers"),
        "pip install 'collabrl'",
    ),
    "openai": (
        "collabrl.engines.openai_compat",
        "OpenAIEngine",
        ("aiohttp",),
        "pip install 'collabrl'",
    ),
    "vllm": (
        "collabrl.engines.vllm_engine",
        "VLLMEngine",
        ("vllm",),
        "pip install 'collabrl[vllm]'",
    ),
}


class EngineConfigError(CollabrlError, ValueError):
    """An engine config with a missing key, an unknown backend or an unknown option."""


class MissingExtraError(CollabrlError, ImportError):
    """An optional package a backend needs is not installed."""


@dataclass(frozen=True)
class EngineConfig:
    """Which backend, which model (a path, or a server-side model name) and backend options."""

    backend: str
    model: str
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any]) -> EngineConfig:
        """Accept the flat recipe form ``{"backend": ..., "model": ..., **options}``."""
        rest = dict(config)
        try:
            backend, model = rest.pop("backend"), rest.pop("model")
        except KeyError as e:
            raise EngineConfigError(f"engine config needs {e.args[0]!r}") from None
        nested = rest.pop("options", {})
        return cls(backend=str(backend), model=str(model), options={**nested, **rest})


def require(packages: tuple[str, ...], hint: str, what: str, *, load: bool = True) -> None:
    """Raise a one-line :class:`MissingExtraError` if any of ``packages`` cannot be imported.
    ``load=False`` only looks for them, without importing (for checks that must stay light,
    such as linting a recipe that names vLLM)."""
    for pkg in packages:
        try:
            found = importlib.import_module(pkg) if load else importlib.util.find_spec(pkg)
        except ImportError:
            found = None
        if found is None:
            raise MissingExtraError(f"{what} needs the '{pkg}' package: {hint}")


def require_backend(backend: str, what: str | None = None, *, load: bool = True) -> None:
    """Raise a one-line :class:`MissingExtraError` naming the extra when the packages the engine
    ``backend`` needs are missing (``load=False``: look for them without importing)."""
    _, _, packages, hint = _BACKENDS[backend]
    require(packages, hint, what or f"engine backend {backend!r}", load=load)


def build_options(options_cls: type, options: Mapping[str, Any], backend: str) -> Any:
    """Instantiate a backend's options dataclass, naming the valid keys on a typo."""
    valid = {f.name for f in dataclasses.fields(options_cls)}
    unknown = sorted(set(options) - valid)
    if unknown:
        raise EngineConfigError(
            f"unknown option(s) {unknown} for engine backend {backend!r}; valid: {sorted(valid)}"
        )
    return options_cls(**options)


def make_engine(config: EngineConfig | Mapping[str, Any]) -> Engine:
    """Create the engine named by ``config.backend`` (``transformers``, ``openai`` or ``vllm``)."""
    cfg = config if isinstance(config, EngineConfig) else EngineConfig.from_mapping(config)
    if cfg.backend not in _BACKENDS:
        raise EngineConfigError(
            f"unknown engine backend {cfg.backend!r}; choose from {sorted(_BACKENDS)}"
        )
    require_backend(cfg.backend)
    module, cls_name, _, _ = _BACKENDS[cfg.backend]
    engine_cls = getattr(importlib.import_module(module), cls_name)
    return engine_cls.from_config(cfg)
