"""MkDocs hook: the settings reference page (``settings.md``), generated at build time.

Every key's text is the docstring under its field in the section classes, the same text that
``collabrl lint --explain`` prints (``collabrl.config.explain.reference_rows``), so the page and
the code cannot drift apart and nothing is written twice. The page is never committed.
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

PAGE = "settings.md"

INTRO = """# Settings reference

Every key of a recipe, with its default and its one-line documentation. This page is generated
from the docstrings under each field of the section classes when the site is built; `collabrl lint
RECIPE --explain` prints the same text beside a recipe's resolved values. Override any key on the
command line as `a.b=c`; the items of a list are addressed by number (`players.0.kind=expert`,
`eval.games.0.max_ticks=100`), so a key shown below as `players.kind` is set per item.
"""


def _cell(text: str) -> str:
    """Text made safe for one Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _table(rows: list[tuple[str, str, str]]) -> list[str]:
    lines = ["| key | default | what it is |", "|---|---|---|"]
    for key, default, doc in rows:
        shown = f"`{_cell(default)}`" if default else ""
        lines.append(f"| `{key}` | {shown} | {_cell(doc)} |")
    return lines


def render() -> str:
    """The whole page: one table per recipe section, and one per built-in game's section."""
    from collabrl.config.explain import reference_rows
    from collabrl.config.recipe import Recipe
    from collabrl.envs.registry import registered_games

    lines = [INTRO]
    top = [(name, field) for name, field in Recipe.model_fields.items() if name != "game"]
    lines += ["## Run", ""]
    lines += _table([row for row in reference_rows(Recipe) if row[0] in {n for n, _ in top}])
    for name, field in top:
        nested = [row for row in reference_rows(Recipe) if row[0].startswith(f"{name}.")]
        if nested:
            lines += ["", f"## `{name}`", "", " ".join((field.description or "").split()), ""]
            lines += _table(nested)
    for game, section in sorted(registered_games().items()):
        if not section.__module__.startswith("collabrl."):
            continue  # plug-in games document themselves; the site covers the built-in ones
        lines += ["", f"## `game` ({game})", "", (section.__doc__ or "").strip().split("\n")[0], ""]
        lines += _table(reference_rows(section, "game."))
    return "\n".join(lines) + "\n"


def on_files(files: Files, config: Any) -> Files:
    """Add the generated page to the site's files."""
    files.append(File.generated(config, PAGE, content=render()))
    return files
