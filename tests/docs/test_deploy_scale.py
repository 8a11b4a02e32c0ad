"""The deployment page says what the serve command offers for many participants (issue 49, item
6): it said one process serves about 50 players and that several workers are not supported,
while `collabrl study serve` has `--workers` and the README sends large studies to it."""

from __future__ import annotations

import re
from pathlib import Path

from collabrl.cli import main

DEPLOY = Path(__file__).parents[2] / "docs" / "deploy.md"


def test_the_deploy_page_offers_the_workers_serve_has(capsys) -> None:
    main(["study", "serve", "--help"])
    assert "--workers" in capsys.readouterr().out
    text = DEPLOY.read_text()
    assert "--workers" in text and "not supported" not in text
    assert "results.md#studies-load" in text  # the measured figures live there
    assert not re.search(r"about \d+ concurrent", text)  # and only there
