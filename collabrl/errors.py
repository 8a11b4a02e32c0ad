"""Errors that users cause (bad recipe, unknown task, missing extra): shown as one line, no traceback."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class CollabrlError(Exception):
    """A problem the user can fix; the CLI prints ``error: <message>`` and exits with code 2."""


class RecipeError(CollabrlError):
    """A recipe that cannot be read or does not validate."""


def missing_extra(package: str, extra: str) -> CollabrlError:
    """The one-line error for an optional dependency that is not installed."""
    return CollabrlError(
        f"{package} is not installed; install it with: pip install 'collabrl[{extra}]'"
    )


class NonFiniteError(CollabrlError):
    """A loss, gradient or weight that is NaN or infinite (training stops before saving it)."""


class UnknownNameError(CollabrlError, KeyError):
    """A task, layout or other named item that does not exist (also a KeyError for lookups)."""

    def __str__(self) -> str:  # KeyError would wrap the message in quotes
        return str(self.args[0]) if self.args else ""


def first_problem(err: ValidationError) -> str:
    """The first pydantic error of a file's record in plain words, with a count of the rest.

    Why not pydantic's own text: it spans lines and echoes the input, which for a record may be
    a whole prompt.
    """
    first = err.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    if first["type"] == "extra_forbidden":
        text = f"unknown key {field!r}"
    elif first["type"] == "missing":
        text = f"missing field {field!r}"
    else:
        message = first["msg"].removeprefix("Value error, ")
        text = f"{field}: {message}" if field else message
    more = err.error_count() - 1
    return f"{text} (and {more} more problem{'s' * (more > 1)})" if more else text
