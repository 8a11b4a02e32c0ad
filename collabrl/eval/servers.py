"""Before an evaluation plays: every LLM role that talks to an OpenAI-compatible server has one.

Why: the engine reads the server's URL from environment variables only when it sends a request,
and a request without a server is a recorded failure, not a crash. The paper's protocol
(``collabrl eval collabbench``: LLM partners and LLM judges) without a configured server would
play every episode with failed partner replies and leave every window unjudged; this check stops
it first, in one line naming the variables to set and the offline alternative.
"""

from __future__ import annotations

from collabrl.config import EvalSpec, JudgeSpec, PartnerSpec, PlayerSpec
from collabrl.engines.factory import EngineConfigError, build_options
from collabrl.engines.options import OpenAIOptions
from collabrl.errors import CollabrlError

OFFLINE_RECIPE = "collabbench_proxy"
MODEL_VARIABLES = ("COLLABRL_PARTNER_MODEL", "COLLABRL_JUDGE_MODEL")
"""The variables the shipped recipes read the partner's and the judge's model ids from."""


class NoServerError(CollabrlError):
    """An LLM role of the evaluation uses an OpenAI-compatible server and none is configured."""


def check_servers(spec: EvalSpec, *, judge: bool = True) -> None:
    """Raise :class:`NoServerError` (one line) when the policy, the partner or (``judge``) the
    judge is an LLM on the ``openai`` backend and none of its ``base_url_env`` variables is set.
    Roles with engines of their own (transformers, vLLM) or without an LLM need nothing."""
    roles: list[tuple[str, PlayerSpec | PartnerSpec | JudgeSpec]] = [
        ("policy", spec.policy),
        ("partner", spec.partner),
    ]
    if judge:
        roles.append(("judge", spec.judge))
    missing: list[tuple[str, str, OpenAIOptions]] = []
    for role, section in roles:
        engine = section.engine
        if section.kind != "llm" or engine is None or engine.backend != "openai":
            continue
        try:
            options = build_options(OpenAIOptions, engine.options, "openai")
        except (EngineConfigError, ValueError) as exc:
            raise CollabrlError(f"eval.{role}.engine.options: {exc}") from None
        if options.base_url() is None:
            missing.append((role, engine.model, options))
    if not missing:
        return
    roles_text = " and ".join(f"eval.{role} ({model})" for role, model, _ in missing)
    urls = sorted({name for *_, o in missing for name in o.base_url_env}, key=_order(missing))
    keys = sorted({name for *_, o in missing for name in o.api_key_env}, key=_order(missing))
    raise NoServerError(
        f"{roles_text} use an OpenAI-compatible server, but none is configured: set "
        f"{' or '.join(urls)} to its base URL (e.g. http://localhost:8000/v1), and "
        f"{' or '.join(keys)} if it needs a key ({' / '.join(MODEL_VARIABLES)} name other model "
        f"ids); offline, without LLMs: collabrl eval {OFFLINE_RECIPE}"
    )


def _order(missing: list[tuple[str, str, OpenAIOptions]]):
    """Sort variable names as the options list them (the first one set wins)."""
    ranked = [n for *_, o in missing for n in (*o.base_url_env, *o.api_key_env)]
    return lambda name: ranked.index(name)
