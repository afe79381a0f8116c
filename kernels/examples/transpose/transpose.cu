// out = in^T for a rows x cols float matrix. Teaches shared-memory tiling: a block reads a
// 32x32 tile with coalesced row accesses, and writes it back transposed, again coalesced, by
// reading the tile column-wise. The extra column of padding puts the 32 elements of a tile
// column in 32 different banks, so the column read has no bank conflicts.
#include "../../common/harness.cuh"

constexpr int TILE = 32;
constexpr int ROWS = 8;  // a 32x8 block: each thread moves TILE / ROWS = 4 elements

__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(long)(y + j) * cols + x];
  __syncthreads();  // the whole tile is loaded before any thread reads another thread's element
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
  dim3 block(TILE, ROWS);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  auto launch = [&] { transpose<<<grid, block>>>(in, out, rows, cols); };
  float ms = harness::median_ms(launch, args.iters);
  auto host = harness::to_host(out, n);
  harness::write(args, "t", host.data(), n);
  harness::report(ms);
  CHECK(cudaFree(in)); CHECK(cudaFree(out));
  return 0;
}
