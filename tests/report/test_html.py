"""The HTML report writer: table, notes and one PNG per panel with data."""

import json

from collabrl.report.html import write_report


def test_report_has_table_notes_and_plots(tmp_path) -> None:
    rows = [
        {
            "iteration": i,
            "reward/efficiency": 0.1 * i,
            "reward/format": -0.1,
            "kl": 0.01 * i,
            "messages_per_step": 0.2,
            "valid_rate": 0.5 + 0.1 * i,
            "success_rate": 0.5,
            "clip_fraction": 0.01 * i,
            "entropy": 1.5 - 0.1 * i,
        }
        for i in range(3)
    ]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    results = [{"policy": "SFT", "efficiency": 0.25}, {"policy": "SFT + GiGPO", "efficiency": 0.5}]
    page = write_report(tmp_path, "Quickstart <demo>", results, notes=["proxy judge"])
    text = page.read_text()
    assert "Quickstart &lt;demo&gt;" in text and "SFT + GiGPO" in text and "0.500" in text
    assert "<li>proxy judge</li>" in text
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    # reward parts, outcome, messages, valid, KL, update size, entropy have data; response length
    # has none
    assert len(pngs) == 7
    assert "plot_8_entropy.png" in pngs
    assert all(f'src="{name}"' in text for name in pngs)
    assert all((tmp_path / n).read_bytes()[:4] == b"\x89PNG" for n in pngs)


def test_report_without_metrics(tmp_path) -> None:
    page = write_report(tmp_path, "empty", [])
    assert "(no training metrics)" in page.read_text() and "(no results)" in page.read_text()
