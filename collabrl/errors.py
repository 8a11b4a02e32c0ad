"""Errors that users cause (bad recipe, unknown task, missing extra): shown as one line, no traceback."""


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
