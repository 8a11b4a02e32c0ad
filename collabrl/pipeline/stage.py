"""What a stage returns: a short, printable summary of what it read, made and dropped."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate


@dataclass
class StageSummary:
    """One stage's outcome as (what, value) rows plus the files it wrote."""

    stage: str
    rows: list[tuple[str, Any]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    extra: str = ""  # a longer text to print after the table (e.g. the fidelity report)

    def add(self, what: str, value: Any) -> None:
        self.rows.append((what, value))

    def render(self) -> str:
        table = tabulate(self.rows, headers=[self.stage, ""], tablefmt="github")
        parts = [table, *(f"wrote {f}" for f in self.files)]
        if self.extra:
            parts.append(self.extra)
        return "\n".join(parts)
