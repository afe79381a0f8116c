#!/usr/bin/env bash
# One batched GPU session: every CUDA and Triton example built, checked against NumPy, timed
# against same-run references, and recorded in kernels/evidence/ (packed into $OUT when set).
#   bash benchmarks/run_gpu_batch.sh [EXAMPLE ...]
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/xlate-cache}
out=${OUT:-/tmp/xlate-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
python3 benchmarks/bench_kernels.py ${1:+--only "$@"} 2>&1 | tee "$out/bench.log"
status=$?
tar czf "$out/evidence.tgz" kernels/evidence
exit $status
