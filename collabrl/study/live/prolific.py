"""Recruiting through Prolific's API: create and publish the study, approve or reject
submissions, pay the bonuses the study computed.

It follows Prolific's documented REST API (``https://api.prolific.com/api/v1/``, a
``Authorization: Token ...`` header): ``POST studies/``, ``POST studies/{id}/transition/``
(``PUBLISH``), ``GET submissions/?study={id}&page={n}`` (paginated, 20 a page by default),
``POST submissions/{id}/transition/`` (``APPROVE``, ``REJECT`` with a message of at least 100
characters and a ``rejection_category``), ``POST submissions/bonus-payments/`` then
``POST bulk-bonus-payments/{id}/pay/``. Checked against Prolific's API reference
(https://docs.prolific.com/api-reference/submissions/transition-submission for the rejection
fields and categories, .../submissions/get-submissions for the paging,
.../studies/the-study-object for the completion codes and their ``MANUALLY_REVIEW`` action,
.../bonuses for the bulk bonus); the categories also match Prolific's own CLI
(github.com/prolific-oss/cli). Reading only the first page of submissions was the one mismatch
found (a study of more than 20 participants lost the rest); :meth:`ProlificClient.submissions`
walks every page.

Every call is a dry run unless the caller asks to send: the requests are built, recorded and
returned, and nothing leaves the machine, so a lab sees what would be created or paid first. The
token is read from :data:`TOKEN_VARIABLE` only and never written to an output, an error or the
event log; sending without it is refused before any request. A request that meets a rate limit or
a server error (429, 5xx) or a dropped connection is retried at most :data:`ATTEMPTS` times with
a growing pause, since Prolific asks clients to back off; paying is never retried (Prolific pays
twice for a repeated pay call).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from collabrl.errors import CollabrlError

API_URL = "https://api.prolific.com/api/v1/"
TOKEN_VARIABLE = "PROLIFIC_TOKEN"
ATTEMPTS = 3
"""Tries of one request that meets a rate limit, a server error or a dropped connection."""
BACKOFF_S = 1.0
"""The pause before the second try (doubled before each further one)."""
RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
REJECTION_CATEGORIES = (
    "TOO_QUICKLY",
    "TOO_SLOWLY",
    "FAILED_INSTRUCTIONS",
    "INCOMP_LONGITUDINAL",
    "FAILED_CHECK",
    "LOW_EFFORT",
    "MALINGERING",
    "NO_CODE",
    "BAD_CODE",
    "NO_DATA",
    "UNSUPP_DEVICE",
    "OTHER",
)
"""The reasons Prolific accepts for a rejection (``rejection_category``)."""
MAX_PAGES = 1000
"""Pages of submissions read at most (20 000 at Prolific's default page size)."""
MIN_REJECTION_MESSAGE = 100
"""Prolific asks for a rejection message of at least this many characters."""


class ProlificError(CollabrlError):
    """A Prolific call that cannot be made or that Prolific refused (one line, no token)."""


@dataclass(frozen=True)
class Call:
    """One request to Prolific as sent (or, in a dry run, as it would be): no headers, so no
    token."""

    method: str
    path: str
    body: dict[str, Any] | None = None

    def line(self) -> str:
        """The request in one line, for the terminal and the event log."""
        return f"{self.method} {API_URL}{self.path}"


@dataclass
class ProlificClient:
    """Prolific's API for one lab; ``send=False`` (the default) records the calls only."""

    token: str | None = None
    send: bool = False
    transport: httpx.BaseTransport | None = None
    """The HTTP transport (tests pass a local fake of the API; None: the network)."""
    sleep: Callable[[float], None] = time.sleep
    calls: list[Call] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.send and not self.token:
            raise ProlificError(
                f"{TOKEN_VARIABLE} is not set: export your Prolific API token "
                "(Prolific: Settings > Go to API token) to send; without --send nothing is sent"
            )

    @classmethod
    def from_environment(
        cls, send: bool, transport: httpx.BaseTransport | None = None
    ) -> ProlificClient:
        """A client whose token is :data:`TOKEN_VARIABLE` from the environment."""
        return cls(os.environ.get(TOKEN_VARIABLE) or None, send, transport)

    def create_study(self, draft: dict[str, Any]) -> dict[str, Any]:
        """Create the study as a draft on Prolific (its ``id`` in the answer)."""
        return self._call(Call("POST", "studies/", draft))

    def publish(self, study_id: str) -> dict[str, Any]:
        """Open a draft study to participants."""
        return self._call(Call("POST", f"studies/{study_id}/transition/", {"action": "PUBLISH"}))

    def submissions(self, study_id: str) -> list[dict[str, Any]]:
        """The study's submissions (each with ``id``, ``participant_id``, ``status``), page by
        page until a page brings nothing new (an empty page, or one already seen)."""
        found: dict[str, dict[str, Any]] = {}
        for page in range(1, MAX_PAGES + 1):
            call = Call("GET", f"submissions/?study={study_id}&page={page}")
            results = self._call(call).get("results", [])
            fresh = [r for r in results if r.get("id") not in found]
            if not fresh:
                return list(found.values())
            found.update((r.get("id"), r) for r in fresh)
        raise ProlificError(f"study {study_id}: more than {MAX_PAGES} pages of submissions")

    def approve(self, submission_id: str) -> dict[str, Any]:
        """Approve a submission (Prolific pays its reward)."""
        return self._call(
            Call("POST", f"submissions/{submission_id}/transition/", {"action": "APPROVE"})
        )

    def reject(self, submission_id: str, message: str, category: str) -> dict[str, Any]:
        """Reject a submission, with the message the participant reads and a category."""
        if category not in REJECTION_CATEGORIES:
            raise ProlificError(
                f"rejection category {category!r}: use one of {', '.join(REJECTION_CATEGORIES)}"
            )
        if len(message.strip()) < MIN_REJECTION_MESSAGE:
            raise ProlificError(
                f"a rejection message needs at least {MIN_REJECTION_MESSAGE} characters "
                "(the participant reads it)"
            )
        body = {"action": "REJECT", "message": message, "rejection_category": category}
        return self._call(Call("POST", f"submissions/{submission_id}/transition/", body))

    def pay_bonuses(self, study_id: str, csv_bonuses: str) -> dict[str, Any]:
        """Set up the bulk bonus (``participant_id,amount`` lines) and pay it."""
        body = {"study_id": study_id, "csv_bonuses": csv_bonuses}
        bulk = self._call(Call("POST", "submissions/bonus-payments/", body))
        paid = self._call(
            Call("POST", f"bulk-bonus-payments/{bulk.get('id', 'BULK_ID')}/pay/"), retry=False
        )
        return {**bulk, "paid": paid}

    def _call(self, call: Call, retry: bool = True) -> dict[str, Any]:
        self.calls.append(call)
        if not self.send:
            return {"dry_run": True}
        attempts = ATTEMPTS if retry else 1
        with httpx.Client(
            base_url=API_URL,
            headers={"Authorization": f"Token {self.token}"},
            timeout=30.0,
            transport=self.transport,
        ) as client:
            for attempt in range(1, attempts + 1):
                try:
                    response = client.request(call.method, call.path, json=call.body)
                except httpx.TransportError as exc:
                    if attempt == attempts:
                        raise ProlificError(f"{call.line()}: {type(exc).__name__}") from None
                else:
                    if response.status_code not in RETRIED_STATUSES or attempt == attempts:
                        return _answer(call, response)
                self.sleep(BACKOFF_S * 2 ** (attempt - 1))
        raise AssertionError("unreachable: the last attempt returns or raises")


def _answer(call: Call, response: httpx.Response) -> dict[str, Any]:
    """The JSON answer of a successful call; a refused one is one line with Prolific's reason."""
    if response.is_success:
        return response.json() if response.content else {}
    try:
        reason = response.json().get("error", {}).get("detail") or response.text
    except ValueError:
        reason = response.text
    raise ProlificError(f"{call.line()}: Prolific answered {response.status_code}: {reason}"[:500])


def study_draft(
    *,
    title: str,
    internal_name: str,
    description: str,
    study_url: str,
    completion_code: str,
    places: int,
    minutes: int,
    reward_cents: int,
) -> dict[str, Any]:
    """The body of a new Prolific study whose link carries Prolific's ids as URL parameters
    and whose completion code sends finished participants to manual review (the lab approves
    or rejects them, after the study's own checks)."""
    return {
        "name": title,
        "internal_name": internal_name,
        "description": description,
        "external_study_url": study_url,
        "prolific_id_option": "url_parameters",
        "completion_codes": [
            {
                "code": completion_code,
                "code_type": "COMPLETED",
                "actions": [{"action": "MANUALLY_REVIEW"}],
            }
        ],
        "total_available_places": places,
        "estimated_completion_time": minutes,
        "reward": reward_cents,
    }
