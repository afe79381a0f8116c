#!/usr/bin/env bash
# Which construct of compaction.cu stalls on the GPU: copies of it with one construct replaced
# each, built and run on a small input under a time limit.
cd "$(dirname "$0")/.."
mkdir -p /tmp/cd
python3 -c "import numpy as np; np.random.default_rng(0).standard_normal(100000, dtype=np.float32).tofile('/tmp/cd/in_x.bin')"
src=kernels/examples/compaction/compaction.cu
cp $src /tmp/cd/v0.cu
sed 's|unsigned leader = elect_lane(FULL, &elected);|unsigned leader = 0; elected = lane == 0;|' $src > /tmp/cd/v1.cu
sed 's|base = shfl_idx(base, leader);|base = __shfl_sync(FULL, base, leader);|' $src > /tmp/cd/v2.cu
sed 's|unsigned offset = cg::exclusive_scan(warp, t);|unsigned offset = 0; { unsigned inc = t; for (int d = 1; d < 32; d *= 2) { unsigned up = __shfl_up_sync(FULL, inc, d); if (lane >= d) inc += up; } offset = inc - t; }|' $src > /tmp/cd/v3.cu
sed -e 's|unsigned leader = elect_lane(FULL, &elected);|unsigned leader = 0; elected = lane == 0;|' -e 's|base = shfl_idx(base, leader);|base = __shfl_sync(FULL, base, leader);|' -e 's|unsigned offset = cg::exclusive_scan(warp, t);|unsigned offset = 0; { unsigned inc = t; for (int d = 1; d < 32; d *= 2) { unsigned up = __shfl_up_sync(FULL, inc, d); if (lane >= d) inc += up; } offset = inc - t; }|' $src > /tmp/cd/v4.cu
for v in 0 1 2 3 4; do
  sed -i "s|#include \"../../common/harness.cuh\"|#include \"$PWD/kernels/common/harness.cuh\"|" /tmp/cd/v$v.cu
  nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -o /tmp/cd/v$v /tmp/cd/v$v.cu &
done
wait
for v in 0 1 2 3 4; do
  timeout 15 /tmp/cd/v$v /tmp/cd 3 100000 > /tmp/cd/out.txt 2>&1
  echo "variant $v: rc=$? $(tail -c 200 /tmp/cd/out.txt)"
done
