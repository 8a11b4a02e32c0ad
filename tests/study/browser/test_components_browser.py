"""A custom component and an image in Chromium (issue 33, item 5): the example study's
confidence slider is drawn by its own ES module, its answer is refused until both sliders moved,
checked by its server class and shown back through {answers...}; the page's image loads from the
study's media folder under the study's content security policy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.load import load_study
from collabrl.study.store.db import open_database
from collabrl.web.server import background
from tests.study.helpers import ADMIN

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).parents[3] / "examples" / "study_components"


def test_a_custom_component_and_an_image_on_the_page(tmp_path, new_page, shot) -> None:
    from collabrl.study.server.app import make_study_app

    folder = tmp_path / "study"
    shutil.copytree(EXAMPLE, folder)
    compiled = compile_study(load_study(str(folder / "study.yaml"), [f"output_dir={tmp_path}"]))
    rt = StudyRuntime(compiled, open_database(compiled.loaded, tmp_path / "study.sqlite"))
    app = make_study_app(rt, ADMIN)
    with background(app) as base:
        page = new_page()
        page.goto(f"{base}/join?key={app.state.join_key}")
        image = page.get_by_test_id("media").locator("img")
        expect(image).to_have_attribute("alt", "The kitchen: a pot, onions and dishes")
        page.wait_for_function("() => document.querySelector('figure img').naturalWidth > 0")
        page.get_by_test_id("agree").click()
        page.get_by_test_id("q-cooks-3").check()
        page.get_by_test_id("submit").click()  # the sliders were not moved: no answer yet
        expect(page.get_by_test_id("problem-guess")).to_have_text("please answer this question")
        page.get_by_test_id("q-guess-estimate").fill("7")
        page.get_by_test_id("q-guess-confidence").fill("90")
        shot(page, "study_custom_component")
        page.get_by_test_id("submit").click()
        expect(page.locator("body")).to_have_attribute("data-node", "instructions")
        expect(page.get_by_test_id("body")).to_contain_text("You guessed 7.0 soups")
    (answers,) = rt.db.events("answers")
    assert answers["data"]["answers"]["guess"] == {"estimate": 7.0, "confidence": 90.0}
