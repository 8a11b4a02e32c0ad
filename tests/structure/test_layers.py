"""The package layer map (CONTRIBUTING.md): every import points down a layer or stays inside its
own, lazy function-level imports included, as import-linter's "layers" contract checks.

A package or top-level module belongs to exactly one layer; what is missing from the map fails the
test, so a new package must be placed on purpose.
"""

from __future__ import annotations

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
    ("sft", "study"),  # 7 supervised fine-tuning; user studies
    ("cli", "quickstart", "__main__"),  # 8 the commands
)


def part(module: str) -> str:
    """The top-level package or module of ``collabrl.x.y`` (``collabrl`` for the root)."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else pieces[0]


def layer_of(layers: tuple[tuple[str, ...], ...]) -> dict[str, int]:
    return {name: i for i, names in enumerate(layers) for name in names}


def upward_imports(
    graph: dict[str, set[str]], layers: tuple[tuple[str, ...], ...]
) -> list[tuple[str, str]]:
    """(importer, imported) pairs whose import points up the layer map."""
    level = layer_of(layers)
    return sorted(
        (module, imported)
        for module, imported_set in graph.items()
        for imported in imported_set
        if level[part(imported)] > level[part(module)]
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
