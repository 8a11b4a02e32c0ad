#!/bin/bash
# Data-parallel training over N CPU processes on one machine (gloo), to exercise the DDP code
# paths without GPUs:  NPROC=2 launch/multi_cpu.sh recipe=cwah_gigpo_cpu train.iterations=2
# accelerate launch cannot start several CPU processes without mpirun (its MULTI_CPU launcher
# is MPI-based), so this calls torchrun; accelerate picks MULTI_CPU + gloo from the environment.
set -euo pipefail
export ACCELERATE_USE_CPU=true
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
exec torchrun --nproc_per_node "${NPROC:-2}" --master_port "${MAIN_PORT:-29511}" train.py "$@"
