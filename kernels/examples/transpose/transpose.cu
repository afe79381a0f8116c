// out = in^T for a rows x cols float matrix. Teaches shared-memory tiling: a block reads a
// 64x64 tile with coalesced row accesses, and writes it back transposed, again coalesced, by
// reading the tile column-wise. The extra column of padding (TILE + 1) puts the elements of a
// tile column in different banks, so the column read has no bank conflicts.
#include "../../common/harness.cuh"

// Tuning knobs (defaults measured best of the variants tried; see benchmarks/).
#ifndef TRANSPOSE_TILE
#define TRANSPOSE_TILE 64
#endif
#ifndef TRANSPOSE_BY
#define TRANSPOSE_BY 8
#endif
constexpr int TILE = TRANSPOSE_TILE;
constexpr int BX = 32, BY = TRANSPOSE_BY;  // 32x8: each thread moves (TILE/BX) * (TILE/BY) elements

__global__ __launch_bounds__(BX * BY) void transpose(const float* __restrict__ in, float* __restrict__ out,
                                                     int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
  // Constant trip counts let the compiler unroll fully and issue every load of a thread before
  // the barrier (16 in flight with the defaults); loops bounded by threadIdx would not unroll.
#pragma unroll
  for (int jj = 0; jj < TILE / BY; ++jj)
#pragma unroll
    for (int ii = 0; ii < TILE / BX; ++ii) {
      int j = threadIdx.y + jj * BY, i = threadIdx.x + ii * BX;
      if (x0 + i < cols && y0 + j < rows) tile[j][i] = in[(long)(y0 + j) * cols + x0 + i];
    }
  __syncthreads();  // the whole tile is loaded before any thread reads another thread's element
#pragma unroll
  for (int jj = 0; jj < TILE / BY; ++jj)
#pragma unroll
    for (int ii = 0; ii < TILE / BX; ++ii) {
      int j = threadIdx.y + jj * BY, i = threadIdx.x + ii * BX;
      if (y0 + i < rows && x0 + j < cols) out[(long)(x0 + j) * rows + y0 + i] = tile[i][j];
    }
}

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 2, "ROWS COLS");
  int rows = (int)args.sizes[0], cols = (int)args.sizes[1];
  size_t n = (size_t)rows * cols;
  float* in = harness::to_device(harness::read<float>(args, "a", n));
  float* out = harness::poisoned<float>(n);
  dim3 block(BX, BY);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  auto launch = [&] { transpose<<<grid, block>>>(in, out, rows, cols); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(out, n);
  harness::write(args, "t", host.data(), n);
  harness::report(ms);
  CHECK(cudaFree(in)); CHECK(cudaFree(out));
  return 0;
}
