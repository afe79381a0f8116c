// out = in^T for a rows x cols float matrix, for AMD GPUs. The tile is staged in LDS (HIP still
// spells it __shared__). With 64-lane wavefronts the natural tile is 64 wide: one wavefront
// reads one whole 256-byte tile row, and reads a tile column back for the coalesced store. LDS
// has 32 four-byte banks, so a column of an unpadded 64-wide tile would hit one bank; the
// TILE + 1 padding spreads it over all of them.
#include "../../common/harness_hip.h"

constexpr int TILE = 64;
constexpr int ROWS = 4;  // a 64x4 block: four wavefronts, each thread moves 16 elements

__global__ __launch_bounds__(TILE * ROWS) void transpose(const float* __restrict__ in, float* __restrict__ out,
                                                         int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(long)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(long)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 2, "ROWS COLS");
  int rows = (int)args.sizes[0], cols = (int)args.sizes[1];
  size_t n = (size_t)rows * cols;
  float* in = harness::to_device(harness::read<float>(args, "a", n));
  float* out = harness::poisoned<float>(n);
  dim3 block(TILE, ROWS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  auto launch = [&] { hipLaunchKernelGGL(transpose, grid, block, 0, 0, in, out, rows, cols); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(out, n);
  harness::write(args, "t", host.data(), n);
  harness::report(ms);
  CHECK(hipFree(in)); CHECK(hipFree(out));
  return 0;
}
