"""Generated CUDA for replaying editor edits: the constructs real files mix, in random order.

Namespaces, templates, structs, macros and constants used by kernels, device helpers with warp
shuffles and votes, shared-memory tiles, atomics, cooperative groups, host code with launches and
runtime calls. The same seed gives the same file.
"""

from __future__ import annotations

import random

HEAD = """\
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define CHECK(x) do {{ cudaError_t e = (x); if (e != cudaSuccess) return 1; }} while (0)
#define FULL_MASK 0xffffffff
constexpr int WARP = 32;
constexpr int TILE_{n} = {tile};
"""

PIECES = [
    """\
__device__ float warp_sum_{n}(float v) {{
  for (int offset = WARP / 2; offset > 0; offset >>= 1)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}}
""",
    """\
__global__ void scale_{n}(const float* __restrict__ x, float* y, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = {k}.0f * x[i];
}}
""",
    """\
__global__ void reduce_{n}(const float* x, float* out, int n) {{
  __shared__ float partial[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}}
""",
    """\
template <int BLOCK>
__global__ void transpose_{n}(const float* in, float* out, int w, int h) {{
  __shared__ float tile[BLOCK][BLOCK + 1];
  int x = blockIdx.x * BLOCK + threadIdx.x, y = blockIdx.y * BLOCK + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * BLOCK + threadIdx.x; y = blockIdx.x * BLOCK + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}}
""",
    """\
struct Pair_{n} {{
  float a;
  int b;
}};
""",
    """\
namespace detail_{n} {{
__device__ unsigned active_lanes(bool p) {{
  unsigned votes = __ballot_sync(0xffffffff, p);
  return __popc(votes);
}}
}}  // namespace detail_{n}
""",
    """\
__global__ void groups_{n}(int* data) {{
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int lane = tile.thread_rank();
  data[block.group_index().x * 32 + lane] = tile.shfl(lane, 0);
  block.sync();
}}
""",
    """\
__global__ void big_tile_{n}(float* x) {{
  __shared__ float a[128][64];
  __shared__ float b[64][128];
  a[threadIdx.y][threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  b[threadIdx.x][threadIdx.y] = a[threadIdx.y][threadIdx.x];
  x[threadIdx.x] = b[0][0];
}}
""",
    """\
// Host side: allocate, copy, launch, check.
int run_{n}(const float* host, float* result, int n) {{
  float *d_x = nullptr, *d_y = nullptr;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CHECK(cudaMemcpy(d_x, host, n * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  scale_{m}<<<(n + 255) / 256, 256, 0, stream>>>(d_x, d_y, n);
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemcpyAsync(result, d_y, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  cudaFree(d_x);
  cudaFree(d_y);
  return 0;
}}
""",
    """\
__global__ void histogram_{n}(const unsigned char* in, unsigned* bins, int n) {{
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[in[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}}
""",
    """\
__global__ void __launch_bounds__(1024) wide_{n}(float* x) {{
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  float v = x[threadIdx.x];
  v = __shfl_xor_sync(FULL_MASK, v, 1);
  if (lane == 0) x[warp] = v;
}}
""",
    """\
extern "C" __global__ void plain_{n}(int* x) {{
  x[threadIdx.x] = __clz(x[threadIdx.x]) + __ffs(x[threadIdx.x]);
}}
""",
]


def generate(seed: int, lines: int = 600) -> str:
    """A CUDA file of about `lines` lines built from the pieces above in a random order."""
    rng = random.Random(seed)
    out = [HEAD.format(n=seed, tile=rng.choice([16, 32, 64]))]
    count, n, scales = out[0].count("\n"), 0, []
    while count < lines:
        template = rng.choice(PIECES)
        if "scale_{m}" in template and not scales:
            continue  # a launch needs a kernel above it
        text = template.format(n=n, k=rng.randint(2, 9), m=rng.choice(scales) if scales else 0) + "\n"
        if template.startswith("__global__ void scale_"):
            scales.append(n)
        out.append(text)
        count += text.count("\n")
        n += 1
    return "".join(out)
