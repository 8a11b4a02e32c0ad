"""Custom page components and media (issue 33, item 5): a component is a page script and a
server-side class next to the study file; lint refuses one without its class or with a class
missing a method; its answers are checked by the class before they are stored and exported.
Media files are served from the study's media/ folder and nothing outside it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from collabrl.cli import main
from collabrl.study.live.runtime import StudyRuntime
from collabrl.study.live.signals import run_coroutine
from collabrl.study.spec.compile import compile_study
from collabrl.study.spec.forms import FormError
from collabrl.study.spec.load import load_study
from collabrl.study.spec.media import media_file, path_problem
from collabrl.study.store.db import open_database

EXAMPLE = Path(__file__).parents[2] / "examples" / "study_components"
ADMIN = "admin-token-for-tests"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the example study's folder (study file, components, media)."""
    target = tmp_path / "study"
    shutil.copytree(EXAMPLE, target)
    path = target / "study.yaml"
    path.write_text(path.read_text() + f"\noutput_dir: {tmp_path / 'runs'}\n")
    return target


def lint_error(capsys, path: Path) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(["study", "lint", str(path)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    return err


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_a_component_without_a_schema_is_refused(folder, capsys) -> None:
    edit(
        folder / "study.yaml", "    server: components/confidence_slider.py:ConfidenceSlider\n", ""
    )
    err = lint_error(capsys, folder / "study.yaml")
    assert "components.confidence_slider: no server-side schema: give server: FILE.py:CLASS" in err


def test_a_component_class_lacking_a_method_is_refused(folder, capsys) -> None:
    edit(folder / "components" / "confidence_slider.py", "def sample(", "def sampled(")
    err = lint_error(capsys, folder / "study.yaml")
    assert "class ConfidenceSlider lacks sample (a component class needs" in err


@pytest.mark.parametrize(
    ("file", "old", "new", "message"),
    [
        (
            "study.yaml",
            "component: confidence_slider\n",
            "component: slider\n",
            "unknown component 'slider'",
        ),
        ("study.yaml", "script: components/", "script: ../", "is outside the study's folder"),
        ("study.yaml", "{min: 0, max: 10,", "{min: 10, max: 0,", "config needs numbers min < max"),
        ("study.yaml", ":ConfidenceSlider", ":Slider", "has no class 'Slider'"),
        (
            "components/confidence_slider.py",
            "import math",
            "import not_a_module",
            "fails to import",
        ),
        (
            "study.yaml",
            "file: kitchen.png",
            "file: missing.png",
            "media file 'missing.png' not found",
        ),
        ("study.yaml", "file: kitchen.png", "file: ../study.yaml", "no .., no leading /"),
    ],
)
def test_component_and_media_mistakes_are_one_line(folder, capsys, file, old, new, message) -> None:
    edit(folder / file, old, new)
    assert message in lint_error(capsys, folder / "study.yaml")


def _runtime(folder: Path, tmp_path: Path) -> StudyRuntime:
    compiled = compile_study(load_study(str(folder / "study.yaml")))
    return StudyRuntime(compiled, open_database(compiled.loaded, tmp_path / "study.sqlite"))


def test_component_answers_are_checked_by_its_class_and_stored(folder, tmp_path) -> None:
    rt = _runtime(folder, tmp_path)

    async def run() -> tuple[str, str]:
        await rt.recover()
        pid, _ = await rt.join()
        await rt.submit(pid, {"node": "consent", "agree": True})
        bad = {"cooks": "daily", "guess": {"estimate": 11, "confidence": 50}}
        with pytest.raises(FormError) as refused:
            await rt.submit(pid, {"node": "intake", "answers": bad})
        assert refused.value.problems == {"guess": "choose an estimate from 0 to 10"}
        with pytest.raises(FormError):
            await rt.submit(pid, {"node": "intake", "answers": {**bad, "guess": "ten"}})
        good = {"cooks": "daily", "guess": {"estimate": 3, "confidence": 80, "extra": "x"}}
        await rt.submit(pid, {"node": "intake", "answers": good})
        return pid, rt.view(pid)["html"]

    pid, html = run_coroutine(run())
    (stored,) = rt.db.events("answers", pid=pid)
    assert stored["data"]["answers"]["guess"] == {"estimate": 3.0, "confidence": 80.0}
    assert rt.node(pid) == "instructions"  # a daily cook skips the tips
    assert "You guessed 3.0 soups" in html
    rt.shutdown()


def test_the_page_gets_the_component_script_and_the_media(folder, tmp_path) -> None:
    rt = _runtime(folder, tmp_path)

    async def run() -> dict:
        await rt.recover()
        pid, _ = await rt.join()
        consent = rt.view(pid)
        await rt.submit(pid, {"node": "consent", "agree": True})
        return {"consent": consent, "intake": rt.view(pid)}

    views = run_coroutine(run())
    assert views["consent"]["media"] == [
        {
            "url": "media/kitchen.png",
            "kind": "image",
            "alt": "The kitchen: a pot, onions and dishes",
            "caption": "The kitchen",
        }
    ]
    guess = views["intake"]["questions"][1]
    assert guess["script"] == "components/confidence_slider.js"
    assert guess["config"]["estimate_label"] == "Soups"
    rt.shutdown()


@pytest.mark.parametrize(
    "relative",
    ["../study.yaml", "/etc/passwd", "a/../../study.yaml", ".hidden.png", "x.svg", "x\\y.png", ""],
)
def test_media_paths_outside_the_folder_or_of_other_types_are_refused(folder, relative) -> None:
    assert media_file(folder, relative) is None
    (folder / "media" / ".hidden.png").write_bytes(b"x")
    assert media_file(folder, relative) is None
    assert path_problem("kitchen.png") is None and media_file(folder, "kitchen.png") is not None


def test_media_and_components_are_served_and_nothing_else(folder, tmp_path) -> None:
    from starlette.testclient import TestClient

    from collabrl.study.server.app import make_study_app

    (tmp_path / "secret.png").write_bytes(b"not yours")
    (folder / "media" / "link.png").symlink_to(tmp_path / "secret.png")
    app = make_study_app(_runtime(folder, tmp_path), ADMIN)
    with TestClient(app) as client:
        image = client.get("/media/kitchen.png")
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"
        assert image.content == (folder / "media" / "kitchen.png").read_bytes()
        assert "media-src 'self'" in image.headers["content-security-policy"]
        for path in (
            "/media/../study.yaml",
            "/media/%2e%2e/study.yaml",
            "/media/..%2fstudy.yaml",
            "/media/%2e%2e%2f%2e%2e%2fsecret.png",
            "/media/link.png",
            "/media/nothing.png",
        ):
            assert client.get(path).status_code == 404, path
        script = client.get("/components/confidence_slider.js")
        assert script.status_code == 200 and "export function render" in script.text
        assert "javascript" in script.headers["content-type"]
        assert client.get("/components/other.js").status_code == 404


def test_expressions_read_a_components_answer_and_lint_simulates_it(folder, capsys) -> None:
    """A branch on the slider's confidence: lint tries the class's sample answers, so a branch
    that no sample takes leaves its page unreachable, and one that some take passes."""
    study = folder / "study.yaml"
    edit(study, "'state.experience == \"novice\"'", "'answers.intake.guess.confidence < 10'")
    assert "no participant reaches tips" in lint_error(capsys, study)
    edit(study, "guess.confidence < 10", "guess.confidence <= 50")
    main(["study", "lint", str(study)])
