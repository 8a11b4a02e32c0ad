"""Does adding teammates cost the team (process loss), and does structure help? The team grid.

Plays the evaluation's team grid (``collabrl eval`` with ``eval.teams``): the agent seat is the
rule-based expert (the stand-in for a policy), beside 0-2 teammates, under the four collaboration
structures, on every test task, for 3 seeds, teammates holding the task's private guidance. It
runs twice: with expert teammates (profile-blind, they share everything at once) and with
persona teammates (test profiles, two per task: the spread is across them). The kitchen plays its
two chefs under the four structures. Prints the study-style tables, then the process-loss check:
per teammate kind and structure, steps (household) at sizes 2 and 3 against the agent alone, and
each structure against default at the same size (negative: fewer steps, better).

    python benchmarks/teams.py [--seeds 0 1 2] [--out runs/teams_benchmark]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tabulate import tabulate

from collabrl.config import load_recipe
from collabrl.eval.protocol import run_evaluation
from collabrl.eval.teams import team_markdown

PARTNERS = {"expert": 1, "persona": 2}  # teammate kind -> profile teams per task


def run(kind: str, seeds: list[int], out: Path) -> list[dict]:
    """The grid's rows with ``kind`` teammates."""
    spec = load_recipe(
        "teams",
        [
            f"eval.partner.kind={kind}",
            f"eval.max_profiles={PARTNERS[kind]}",
            f"eval.seeds={seeds}",
            "eval.seats=[1]",
            f"eval.output_dir={out / kind}",
        ],
    ).evaluation()
    start = time.perf_counter()
    result = run_evaluation(spec, progress=False)
    print(
        f"\n## {kind} teammates ({len(result.outcomes)} episodes, {time.perf_counter() - start:.0f}s)\n"
    )
    print(team_markdown(result.teams))
    return result.teams


def process_loss(rows_by_kind: dict[str, list[dict]]) -> str:
    """Household steps by size against the agent alone, and structures against default."""
    lines = []
    for kind, rows in rows_by_kind.items():
        steps = {
            (r["structure"], r["size"]): r["efficiency"] for r in rows if r["game"] == "household"
        }
        success = {
            (r["structure"], r["size"]): r["success"] for r in rows if r["game"] == "household"
        }
        for structure in dict.fromkeys(s for s, _ in steps):
            alone = steps[structure, 1]
            lines.append(
                [
                    kind,
                    structure,
                    *(
                        f"{steps[structure, n]:.1f} ({steps[structure, n] - alone:+.1f})"
                        for n in (1, 2, 3)
                    ),
                    *(f"{steps[structure, n] - steps['default', n]:+.1f}" for n in (2, 3)),
                    *(f"{success[structure, n]:.2f}" for n in (1, 2, 3)),
                ]
            )
    head = [
        "teammates",
        "structure",
        "steps 1",
        "steps 2 (vs 1)",
        "steps 3 (vs 1)",
        "vs default @2",
        "vs default @3",
        "success 1",
        "success 2",
        "success 3",
    ]
    return tabulate(lines, head, tablefmt="github", disable_numparse=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", type=Path, default=Path("runs/teams_benchmark"))
    args = parser.parse_args()
    rows = {kind: run(kind, args.seeds, args.out) for kind in PARTNERS}
    print("\n## Process-loss check (household; steps: lower is better)\n")
    print(process_loss(rows))


if __name__ == "__main__":
    main()
