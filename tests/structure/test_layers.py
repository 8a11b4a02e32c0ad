"""The package layer map (CONTRIBUTING.md): every import points down a layer or stays inside its
own, lazy function-level and type-only (``if TYPE_CHECKING:``) imports included, as
import-linter's "layers" contract checks. The study package has a map of its own sub-packages.

A package or top-level module belongs to exactly one layer; what is missing from the map fails the
test, so a new package must be placed on purpose.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.structure.test_import_graph import GRAPH, MODULES

LAYERS: tuple[tuple[str, ...], ...] = (
    # 0 foundation: errors, numbers, settings files and their base, records, statistics, the
    #   inference engines, the advantage and loss maths, tiny models, engine fakes for tests
    (
        "collabrl",
        "errors",
        "numbers",
        "settings_files",
        "sections",
        "records",
        "stats",
        "prompt_files",
        "engines",
        "algos",
        "models",
        "testing",
        "data",
        "recipes",
        "studies",
    ),
    ("envs",),  # 1 the games, their registry and checker
    ("profiles", "rewards"),  # 2 partner profiles; reward terms and judges
    ("agents", "config", "cli_options"),  # 3 players and prompts; recipe settings
    ("episode", "factory"),  # 4 the one episode loop; sections -> objects
    ("eval", "pipeline", "report"),  # 5 evaluation; the profile pipeline; the HTML report
    ("training", "web"),  # 6 GiGPO training; the web app
    ("sft", "study", "interop"),  # 7 supervised fine-tuning; user studies; exported environments
    ("cli", "quickstart", "__main__"),  # 8 the commands
)

STUDY = "collabrl.study"
STUDY_LAYERS: tuple[tuple[str, ...], ...] = (
    ("spec",),  # 0 the study file: schema, compile, pure logic, lint, submitted forms
    ("store",),  # 1 the database, its migrations, rooms folded from its events
    ("results",),  # 2 the export and the report
    ("live",),  # 3 the running study: runtime, rounds, rooms, matchmaking, workers
    ("pretest", "server"),  # 4 simulated participants; the web app and admin page
    ("cli",),  # 5 the study commands
)


def part(module: str) -> str:
    """The top-level package or module of ``collabrl.x.y`` (``collabrl`` for the root)."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else pieces[0]


def study_part(module: str) -> str:
    """The sub-package (or module) of ``collabrl.study.x.y``: ``x``."""
    return module.split(".")[2]


def in_study(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The imports among the study's sub-packages (the package's own ``__init__`` left out)."""
    inside = {m for m in graph if m.startswith(f"{STUDY}.")}
    return {m: graph[m] & inside for m in inside}


def layer_of(layers: tuple[tuple[str, ...], ...]) -> dict[str, int]:
    return {name: i for i, names in enumerate(layers) for name in names}


def upward_imports(
    graph: dict[str, set[str]],
    layers: tuple[tuple[str, ...], ...],
    part_of: Callable[[str], str] = part,
) -> list[tuple[str, str]]:
    """(importer, imported) pairs whose import points up the layer map."""
    level = layer_of(layers)
    return sorted(
        (module, imported)
        for module, imported_set in graph.items()
        for imported in imported_set
        if level[part_of(imported)] > level[part_of(module)]
    )


def test_every_package_is_on_the_map() -> None:
    parts = {part(m) for m in MODULES}
    assert parts - set(layer_of(LAYERS)) == set()
    assert set(layer_of(LAYERS)) - parts <= {"data", "recipes", "studies"}  # data-only folders


def test_no_import_points_up_a_layer() -> None:
    assert upward_imports(GRAPH, LAYERS) == []


def test_the_layer_check_catches_an_upward_import() -> None:
    """The real graph plus one deliberate upward import (a game reaching into training)."""
    broken = {m: set(imported) for m, imported in GRAPH.items()}
    broken["collabrl.envs.base"].add("collabrl.training.loop")
    assert upward_imports(broken, LAYERS) == [("collabrl.envs.base", "collabrl.training.loop")]


def test_every_study_sub_package_is_on_the_map() -> None:
    parts = {study_part(m) for m in in_study(GRAPH)}
    assert parts == set(layer_of(STUDY_LAYERS))


def test_no_study_import_points_up_a_layer() -> None:
    assert upward_imports(in_study(GRAPH), STUDY_LAYERS, study_part) == []


def test_the_study_check_catches_an_upward_import() -> None:
    """The real graph plus one deliberate upward import (the schema reaching into the runtime)."""
    broken = {m: set(imported) for m, imported in in_study(GRAPH).items()}
    broken["collabrl.study.spec.schema"].add("collabrl.study.live.runtime")
    assert upward_imports(broken, STUDY_LAYERS, study_part) == [
        ("collabrl.study.spec.schema", "collabrl.study.live.runtime")
    ]
