"""Recruitment platforms: the ids a platform puts in the study link, what a returning participant
gets, and where a finished participant is sent.

A platform preset names the link's query parameters that carry the platform's participant,
study and session ids, the completion link (Prolific: one per study, with the study's completion
code) and the bulk-bonus file format :mod:`collabrl.study.spec.payment` writes. Participant ids are
personal data, kept as ``privacy.platform_ids`` declares:

- ``hash`` (default): the research files (responses, participants, events, trajectories) hold a
  keyed hash (HMAC-SHA256) of each id but the study's; the raw ids stay in the database's
  ``identities`` table only, for the bonus file and the SONA completion link;
- ``keep``: the raw ids are in the research files too;
- ``drop``: only the keyed hash of the participant id is stored (to recognise a returning
  participant); nothing can be paid per participant.

The hash key is ``COLLABRL_ID_SALT`` from the environment (the same key in several studies makes
their hashes linkable); without it each study database draws its own key, so hashes link only
within that study.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import quote

SALT_VARIABLE = "COLLABRL_ID_SALT"

Role = Literal["participant", "study", "session"]
"""What a link id names: the person, the platform's study, this attempt at it."""


@dataclass(frozen=True)
class Platform:
    """What one recruitment platform puts in the link and expects at the end."""

    label: str
    """The platform's name as participants know it."""
    ids: dict[Role, str] = field(default_factory=dict)
    """Role -> the query parameter that carries it."""
    placeholders: dict[Role, str] = field(default_factory=dict)
    """Role -> what the platform replaces with the id when it opens the link (what the printed
    study link carries; empty: the platform appends its parameters itself)."""
    completion_url: str | None = None
    """Where a finished participant goes ({code}: the completion code; {participant}: the raw
    participant id); None: the code is shown to paste."""
    bonus_format: Literal["prolific", "mturk", "plain"] = "plain"
    """The bulk-bonus file :func:`collabrl.study.spec.payment.bonus_file` writes."""


PLATFORMS: dict[str, Platform] = {
    "prolific": Platform(
        "Prolific",
        {"participant": "PROLIFIC_PID", "study": "STUDY_ID", "session": "SESSION_ID"},
        {
            "participant": "{{%PROLIFIC_PID%}}",
            "study": "{{%STUDY_ID%}}",
            "session": "{{%SESSION_ID%}}",
        },
        "https://app.prolific.com/submissions/complete?cc={code}",
        "prolific",
    ),
    "mturk": Platform(
        "Amazon Mechanical Turk",
        {"participant": "workerId", "session": "assignmentId", "study": "hitId"},
        bonus_format="mturk",
    ),
    "cloudresearch": Platform(
        "CloudResearch",
        {"participant": "workerId", "session": "assignmentId", "study": "hitId"},
        bonus_format="mturk",
    ),
    "sona": Platform("SONA Systems", {"participant": "id"}, {"participant": "%SURVEY_CODE%"}),
    "link": Platform("the study link"),
}
"""The presets ``recruitment.platform`` names (``link``: a plain link, no platform ids)."""


def link_ids(platform: Platform, query: dict[str, str]) -> dict[str, str]:
    """Role -> raw id, for each of the platform's ids the link carries (at most 200 chars)."""
    return {
        role: str(query[param])[:200] for role, param in platform.ids.items() if query.get(param)
    }


def study_link(platform: Platform, base: str) -> str:
    """The link to give the platform: ``base`` (the join link) with the platform's placeholders."""
    extra = "".join(
        f"&{platform.ids[role]}={value}" for role, value in platform.placeholders.items()
    )
    return base + extra


def id_salt(stored: str) -> bytes:
    """The hash key: ``COLLABRL_ID_SALT`` if set, else the study database's own key."""
    return (os.environ.get(SALT_VARIABLE) or stored).encode("utf-8")


def id_hash(value: str, salt: bytes) -> str:
    """The keyed hash of a platform id (what the research files hold under ``hash``)."""
    return hmac.new(salt, value.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


def exported_ids(ids: dict[str, str], kept: str, salt: bytes) -> dict[str, str]:
    """``platform.<role>`` columns of the research files: raw under ``keep``, else hashed
    (the platform's study id, the same for every participant, stays as it is)."""
    return {
        f"platform.{role}": value if kept == "keep" or role == "study" else id_hash(value, salt)
        for role, value in ids.items()
    }


def completion_link(template: str | None, code: str | None, participant: str | None) -> str | None:
    """The completion link with the code and the participant id filled in (None: no link)."""
    if template is None:
        return None
    return template.replace("{code}", quote(code or "", safe="")).replace(
        "{participant}", quote(participant or "", safe="")
    )
