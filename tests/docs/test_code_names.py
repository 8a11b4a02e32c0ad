"""Every code name the Markdown writes in backticks exists (docs/hooks/code_names.py).

The strict site build runs the check on the manual's pages; these tests pin what the check finds
and run it on the Markdown outside the site.
"""

from __future__ import annotations

import sys

import pytest

from tests.docs.markdown import OUTSIDE_SITE, REPO, SITE_PAGES, docs_hook

code_names = docs_hook("code_names")


def test_stale_names_and_paths_are_found_and_live_ones_pass() -> None:
    page = "\n".join(
        [
            "`collabrl.agents.make_persona_player(profile)` and `collabrl.factory.make_persona`",
            "`collabrl/nowhere.py`, `collabrl/envs/base.py`, `collabrl/envs/*/expert.py`,",
            "`collabrl/envs/<game>/section.py` and the entry-point group `collabrl.games`",
            "```python",
            "from collabrl.envs import (check_game,",
            "    no_such_name)",
            "from collabrl.agents.protocol import parse_response",
            "```",
            "collabrl.prose.is.not.code",
        ]
    )
    assert code_names.stale_names(page) == [
        "collabrl.agents.make_persona_player",
        "collabrl/nowhere.py",
        "collabrl.envs.no_such_name",
    ]


@pytest.mark.parametrize("path", SITE_PAGES + OUTSIDE_SITE, ids=lambda p: str(p.relative_to(REPO)))
def test_markdown_names_only_code_that_exists(path) -> None:
    assert code_names.stale_names(path.read_text(encoding="utf-8")) == []


def test_names_in_a_module_whose_extra_is_missing_are_read_from_its_source(monkeypatch) -> None:
    """Without the openenv extra the server module raises its one-line error on import; the check
    then reads the module's source, so a live name passes and a stale one is still found."""
    for name in ["openenv", *(n for n in sys.modules if n.startswith("openenv."))]:
        monkeypatch.setitem(sys.modules, name, None)  # import openenv... -> ImportError
    monkeypatch.delitem(sys.modules, "collabrl.interop.openenv_server", raising=False)
    code_names.resolves.cache_clear()
    try:
        page = "`collabrl.interop.openenv_server.make_app` `collabrl.interop.openenv_server.gone`"
        assert code_names.stale_names(page) == ["collabrl.interop.openenv_server.gone"]
    finally:
        code_names.resolves.cache_clear()
