#!/bin/bash
# Multi-node launch without SLURM: run this same command on every node, changing MACHINE_RANK.
#   NUM_MACHINES=2 MACHINE_RANK=0 MAIN_IP=10.0.0.1 launch/multinode.sh recipe=cwah_gigpo policy.backend=vllm
#   NUM_MACHINES=2 MACHINE_RANK=1 MAIN_IP=10.0.0.1 launch/multinode.sh recipe=cwah_gigpo policy.backend=vllm
# MAIN_IP must be reachable from every node; all nodes need the same checkout and recipe.
set -euo pipefail
: "${NUM_MACHINES:?set NUM_MACHINES}" "${MACHINE_RANK:?set MACHINE_RANK}" "${MAIN_IP:?set MAIN_IP}"
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
exec accelerate launch \
  --config_file "${ACCELERATE_CONFIG:-launch/zero3.yaml}" \
  --num_machines "$NUM_MACHINES" \
  --num_processes $((NUM_MACHINES * GPUS_PER_NODE)) \
  --machine_rank "$MACHINE_RANK" \
  --main_process_ip "$MAIN_IP" \
  --main_process_port "${MAIN_PORT:-29500}" \
  --rdzv_backend static \
  train.py "$@"
