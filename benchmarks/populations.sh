#!/usr/bin/env bash
# Kitchen partner populations on the five layouts, as docs/partner-populations.md trains them:
# the human proxies, a self-play agent, an FCP agent, an MEP population with its agent, a PBT
# population and a COLE agent per layout, then the cross-play table and Table 5's rows beside the paper's. Prints each member's
# CPU seconds (process time, one core) and its last ten updates' mean training score.
#   bash benchmarks/populations.sh OUT [UPDATES]      (UPDATES: PPO updates per run, default 200)
# Needs the recorded human play for the proxies: pip install --no-deps overcooked-ai==1.1.0
set -euo pipefail
out="${1:?usage: bash benchmarks/populations.sh OUT [UPDATES]}"
updates="${2:-200}"
export COLLABRL_POPULATIONS="$out/populations"
layouts=(cramped_room asymmetric_advantages coordination_ring forced_coordination counter_circuit)

collabrl partners build-human-proxy --out "$out/proxies"
for layout in "${layouts[@]}"; do collabrl partners train-sp "$layout" --updates "$updates"; done
for layout in "${layouts[@]}"; do collabrl partners train-fcp "$layout" --updates "$updates"; done
for layout in "${layouts[@]}"; do collabrl partners train-mep "$layout" --updates "$updates"; done
for layout in "${layouts[@]}"; do collabrl partners train-pbt "$layout" --updates "$updates"; done
for layout in "${layouts[@]}"; do collabrl partners train-cole "$layout" --updates "$updates"; done
collabrl partners crossplay --episodes 4 --proxies "$out/proxies" --out "$out/crossplay"
collabrl report baselines --populations "$out/crossplay" > "$out/baselines.md"

python - "$COLLABRL_POPULATIONS" <<'EOF'
import json
import sys
from pathlib import Path

from tabulate import tabulate

rows = []
for layout in sorted(Path(sys.argv[1]).iterdir()):
    for name in ("sp0_final", "fcp0", "mep0", "pbt0", "cole0"):
        facts = json.loads((layout / f"{name}.json").read_text())
        last = facts["scores"][-10:]
        rows.append([layout.name, name, facts["updates"], facts["cpu_seconds"], sum(last) / len(last)])
print(tabulate(rows, ["layout", "member", "updates", "CPU s", "last 10 updates' score"], "github"))
EOF
