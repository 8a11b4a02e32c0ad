#!/usr/bin/env bash
# Prepare .whl/: the wheels a lent GPU machine (Python 3.12, torch, transformers, accelerate and
# peft installed; no network) needs to run benchmarks/gpu_suite.sh: 5.1 MiB in all. Run here, in
# the repository root, once; then name .whl in the device call's carry. On a GPU, gpu_suite.py
# installs them (--no-deps) into a folder of its own, first on the stages' PYTHONPATH.
#   collabrl's own needs: pydantic (+ pydantic-core, annotated-types, typing-inspection and a
#     typing-extensions recent enough for it), omegaconf
#   the ZeRO-2/3 stage: deepspeed (no binary wheel on PyPI: built here with DS_BUILD_OPS=0, pure
#     Python; the suite passes torch's AdamW, so no DeepSpeed op is compiled there) + hjson
# (datasets is not carried: without it the demonstrations are written as JSONL only, which SFT
# reads; wandb is not needed: the suite logs to JSONL.)
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo /.whl/ >> .git/info/exclude
mkdir -p .whl
platforms=()
for n in 28 27 17; do platforms+=(--platform "manylinux_2_${n}_x86_64"); done
platforms+=(--platform manylinux2014_x86_64 --platform manylinux1_x86_64)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  "${platforms[@]}" -d .whl \
  pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5 \
  typing-extensions==4.16.0 omegaconf==2.4.0 hjson==3.1.0
ls .whl/deepspeed-*.whl >/dev/null 2>&1 || DS_BUILD_OPS=0 python3 -m pip wheel -q --no-deps -w .whl deepspeed==0.19.8
du -ch .whl/*.whl | tail -1
