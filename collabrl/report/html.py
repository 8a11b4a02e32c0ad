"""A self-contained HTML report of a run: a results table and PNG plots of training dynamics.

Reads the run's ``metrics.jsonl`` (one line per iteration, as written by the trainer) and writes
``report.html`` plus one PNG per plotted panel next to it, so the report opens from disk anywhere.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path

from collabrl.records import read_jsonl

# panel title -> metric keys drawn in it
PANELS: dict[str, tuple[str, ...]] = {
    "Reward parts": (
        "reward/efficiency",
        "reward/format",
        "reward/communication",
        "reward/judge",
    ),
    "Episode outcome": ("success_rate", "score"),
    "Where the gradient comes from": (
        "signal/live_groups",
        "signal/episode_share",
        "signal/step_share",
    ),
    "Messages per step": ("messages_per_step",),
    "Valid responses": ("valid_rate",),
    "Response length (tokens)": ("response_length",),
    "KL to reference": ("kl",),
    "How far each update moved": ("clip_fraction", "approx_kl"),
    "Entropy of the policy (nats per token)": ("entropy",),
}


def read_metrics(path: Path) -> list[dict]:
    """Rows of a metrics.jsonl file (blank lines skipped)."""
    return read_jsonl(path)


def plot_panels(rows: Sequence[Mapping], out_dir: Path) -> list[Path]:
    """One PNG per panel that has data; returns the written files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    written = []
    for k, (title, keys) in enumerate(PANELS.items()):
        present = [key for key in keys if any(key in r for r in rows)]
        if not present:
            continue
        fig, ax = plt.subplots(figsize=(5, 3.2), dpi=100)
        for key in present:
            xs = [r["iteration"] for r in rows if key in r]
            ys = [r[key] for r in rows if key in r]
            label = key.removeprefix("reward/").removeprefix("signal/")
            ax.plot(xs, ys, marker="o", markersize=3, label=label)
        ax.set_title(title)
        ax.set_xlabel("iteration")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # iterations are whole numbers
        ax.grid(alpha=0.3)
        if len(present) > 1:
            ax.legend(fontsize=8)
        fig.tight_layout()
        path = out_dir / f"plot_{k}_{title.split()[0].lower()}.png"
        fig.savefig(path)
        plt.close(fig)
        written.append(path)
    return written


def _table(rows: Sequence[Mapping]) -> str:
    """An HTML table from a list of dicts sharing keys."""
    if not rows:
        return "<p>(no results)</p>"
    keys = list(rows[0])
    head = "".join(f"<th>{html.escape(str(k))}</th>" for k in keys)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(k)))}</td>" for k in keys) + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _fmt(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def write_report(
    run_dir: Path,
    title: str,
    results: Sequence[Mapping],
    notes: Sequence[str] = (),
    tables: Mapping[str, Sequence[Mapping]] | None = None,
) -> Path:
    """Write ``run_dir/report.html`` with the results table, further titled ``tables`` (e.g. a
    paired comparison), notes and training-dynamics plots."""
    metrics_file = run_dir / "metrics.jsonl"
    rows = read_metrics(metrics_file) if metrics_file.is_file() else []
    images = plot_panels(rows, run_dir) if rows else []
    figures = "".join(
        f'<figure><img src="{p.name}" alt="{html.escape(p.stem)}"></figure>' for p in images
    )
    note_items = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    more = "".join(
        f"<h2>{html.escape(name)}</h2>\n{_table(rows)}" for name, rows in (tables or {}).items()
    )
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; max-width: 70em; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
th, td {{ border: 1px solid #ccc; padding: 4px 8px; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
figure {{ display: inline-block; margin: 0.5em; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<h2>Results</h2>
{_table(results)}
{more}
<ul>{note_items}</ul>
<h2>Training dynamics</h2>
{figures or "<p>(no training metrics)</p>"}
</body></html>
"""
    out = run_dir / "report.html"
    out.write_text(page, encoding="utf-8")
    return out
