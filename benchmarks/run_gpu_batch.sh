#!/usr/bin/env bash
# One batched GPU session: each example built, checked against NumPy, timed against same-run
# references and recorded in kernels/evidence/, one process per example under a time limit so
# that a hung kernel costs only its own slot. The evidence is packed into $OUT when set.
#   bash benchmarks/run_gpu_batch.sh SECONDS EXAMPLE...
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/xlate-cache}
out=${OUT:-/tmp/xlate-out}
mkdir -p "$out"
limit=$1
shift
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
status=0
for name in "$@"; do
  echo "=== $(date -u +%T) $name" | tee -a "$out/bench.log"
  timeout -k 5 "$limit" python3 benchmarks/bench_kernels.py --only "$name" 2>&1 | tee -a "$out/bench.log"
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || { echo "=== $name exited with $rc" | tee -a "$out/bench.log"; status=1; }
  tar czf "$out/evidence.tgz" kernels/evidence
done
exit $status
