#!/usr/bin/env bash
# The GPU suite in one command (see benchmarks/gpu_suite.py): writes OUT/suite.json, OUT/summary.md
# and OUT/suite.log, in at most 9 minutes on one H200; refuses to start without a GPU unless
# --cpu-smoke (tiny shapes on the CPU: 52 s on 2 idle cores, 3-4 minutes beside other work; CI
# runs it).
#   benchmarks/gpu_suite.sh OUT [--cpu-smoke] [--only STAGE ...]
# On a lent GPU machine, carry .whl (benchmarks/gpu_carry.sh makes it): the suite installs it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
exec "${PYTHON:-python3}" benchmarks/gpu_suite.py "$@"
