"""A local fake of Prolific's REST API (the documented endpoints collabrl calls), served to
httpx through a MockTransport: no network. It keeps studies, submissions and bonus payments, and
answers as Prolific documents: 401 without the token, 400 for a transition a status forbids,
submissions a page at a time (https://docs.prolific.com/api-reference/submissions/get-submissions).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx

TOKEN = "fake-prolific-token-1234"
PAGE_SIZE = 20  # Prolific's default page size of GET submissions/


@dataclass
class FakeProlific:
    """Prolific's state for one lab, and every request it was sent."""

    studies: dict[str, dict[str, Any]] = field(default_factory=dict)
    submissions: dict[str, dict[str, Any]] = field(default_factory=dict)
    bulk: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[httpx.Request] = field(default_factory=list)
    unavailable: int = 0
    """The next this-many requests get a 503 (a busy server)."""

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def participant_submits(self, study_id: str, participant: str) -> str:
        sid = f"sub{len(self.submissions) + 1}"
        self.submissions[sid] = {
            "id": sid,
            "study_id": study_id,
            "participant_id": participant,
            "status": "AWAITING REVIEW",
        }
        return sid

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.unavailable:
            self.unavailable -= 1
            return httpx.Response(503, json={"error": {"detail": "busy"}})
        if request.headers.get("authorization") != f"Token {TOKEN}":
            return httpx.Response(401, json={"error": {"detail": "Invalid token."}})
        body = json.loads(request.content) if request.content else {}
        path = request.url.path.removeprefix("/api/v1/")
        for pattern, method, answer in ROUTES:
            match = re.fullmatch(pattern, path)
            if match and request.method == method:
                return answer(self, body, request, *match.groups())
        return httpx.Response(404, json={"error": {"detail": "Not found."}})

    def create_study(self, body: dict, request: httpx.Request) -> httpx.Response:
        missing = {"name", "external_study_url", "completion_codes", "reward"} - set(body)
        if missing:
            return httpx.Response(400, json={"error": {"detail": f"missing {sorted(missing)}"}})
        sid = f"study{len(self.studies) + 1}"
        self.studies[sid] = {**body, "id": sid, "status": "UNPUBLISHED"}
        return httpx.Response(201, json=self.studies[sid])

    def study_transition(self, body: dict, request: httpx.Request, sid: str) -> httpx.Response:
        study = self.studies.get(sid)
        if study is None:
            return httpx.Response(404, json={"error": {"detail": "Not found."}})
        if body.get("action") != "PUBLISH" or study["status"] != "UNPUBLISHED":
            return httpx.Response(400, json={"error": {"detail": "cannot transition"}})
        study["status"] = "ACTIVE"
        return httpx.Response(200, json=study)

    def list_submissions(self, body: dict, request: httpx.Request) -> httpx.Response:
        """Paginated as documented: ``page`` (from 1) of ``page_size`` (default 20)."""
        study = request.url.params.get("study")
        size = int(request.url.params.get("page_size", PAGE_SIZE))
        first = (int(request.url.params.get("page", 1)) - 1) * size
        found = [s for s in self.submissions.values() if s["study_id"] == study]
        return httpx.Response(200, json={"results": found[first : first + size]})

    def submission_transition(self, body: dict, request: httpx.Request, sid: str) -> httpx.Response:
        sub = self.submissions.get(sid)
        if sub is None:
            return httpx.Response(404, json={"error": {"detail": "Not found."}})
        if sub["status"] != "AWAITING REVIEW":
            return httpx.Response(400, json={"error": {"detail": "already reviewed"}})
        action = body.get("action")
        if action == "REJECT" and (
            len(body.get("message", "")) < 100 or not body.get("rejection_category")
        ):
            return httpx.Response(400, json={"error": {"detail": "message too short"}})
        sub["status"] = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}[action]
        return httpx.Response(200, json=sub)

    def set_up_bonus(self, body: dict, request: httpx.Request) -> httpx.Response:
        rows = [line.split(",") for line in body["csv_bonuses"].splitlines() if line]
        bid = f"bulk{len(self.bulk) + 1}"
        self.bulk[bid] = {
            "id": bid,
            "study": body["study_id"],
            "amounts": {pid: float(amount) for pid, amount in rows},
            "paid": False,
        }
        return httpx.Response(201, json={"id": bid, "study": body["study_id"]})

    def pay(self, body: dict, request: httpx.Request, bid: str) -> httpx.Response:
        self.bulk[bid]["paid"] = True
        return httpx.Response(202, json={})


ROUTES = (
    (r"studies/", "POST", FakeProlific.create_study),
    (r"studies/([^/]+)/transition/", "POST", FakeProlific.study_transition),
    (r"submissions/", "GET", FakeProlific.list_submissions),
    (r"submissions/([^/]+)/transition/", "POST", FakeProlific.submission_transition),
    (r"submissions/bonus-payments/", "POST", FakeProlific.set_up_bonus),
    (r"bulk-bonus-payments/([^/]+)/pay/", "POST", FakeProlific.pay),
)
