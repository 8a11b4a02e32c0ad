"""Images and videos on study pages: files in a ``media/`` folder next to the study file,
served under ``media/`` with path checks (nothing outside the folder, no hidden files, only
image, video and audio types), and checked by lint to exist."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from pydantic import Field, model_validator

from collabrl.errors import RecipeError
from collabrl.sections import Strict

FOLDER = "media"
KINDS = {
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".gif": "image",
    ".webp": "image",
    ".mp4": "video",
    ".webm": "video",
    ".ogv": "video",
    ".mp3": "audio",
    ".ogg": "audio",
    ".wav": "audio",
}
"""Served file types (no SVG: a drawing that may carry script)."""


class MediaItem(Strict):
    """An image, video or audio file shown on a page."""

    file: str = Field(min_length=1, max_length=200)
    """Path inside the media/ folder next to the study file (e.g. kitchen.png)."""
    alt: str = Field(min_length=1, max_length=300)
    """What it shows, in words (read to participants who cannot see it)."""
    caption: str = ""
    """Shown under it."""

    @model_validator(mode="after")
    def _servable(self) -> MediaItem:
        problem = path_problem(self.file)
        if problem:
            raise ValueError(f"media {self.file!r}: {problem}")
        return self

    @property
    def kind(self) -> str:
        return KINDS[PurePosixPath(self.file).suffix.lower()]


def path_problem(relative: str) -> str | None:
    """Why ``relative`` is not a servable media path (None: it is)."""
    path = PurePosixPath(relative)
    if (
        path.is_absolute()
        or "\\" in relative
        or any(p in ("", ".", "..") for p in relative.split("/"))
    ):
        return "give a plain path inside the media folder (no .., no leading /)"
    if any(part.startswith(".") for part in path.parts):
        return "hidden files are not served"
    if path.suffix.lower() not in KINDS:
        return f"not a served type (use {', '.join(KINDS)})"
    return None


def media_file(folder: Path | None, relative: str) -> Path | None:
    """The file ``relative`` names in ``folder``/media (None: not a servable file there)."""
    if folder is None or path_problem(relative):
        return None
    root = (folder / FOLDER).resolve()
    path = (root / relative).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path


def check_media(folder: Path | None, items: list[tuple[str, MediaItem]]) -> None:
    """Lint: every page's media file exists in the media folder; raises RecipeError."""
    for where, item in items:
        if media_file(folder, item.file) is None:
            place = f"{folder / FOLDER}" if folder else "a shipped study (none)"
            raise RecipeError(f"{where}: media file {item.file!r} not found in {place}")
