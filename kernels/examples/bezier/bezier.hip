// A Bezier curve component B(t) = sum_j c_j C(D, j) t^j (1 - t)^(D - j), evaluated in double
// precision with de Casteljau's algorithm at the four Gauss-Legendre nodes of each of n
// subintervals of [0, 1] (their edges are an input), and its integral over each subinterval by
// that four-point rule. One thread per node, so the four lanes of a quad hold the four nodes of
// one subinterval and add their weighted values with width-4 shuffles.
//
// Memory spaces at work on CDNA:
//   constant: __constant__ is the AMDGPU constant address space (4). The control points are read
//             with a wavefront-uniform index, so they arrive through the scalar cache with
//             s_load_dwordx2; the Gauss-Legendre node is indexed by the lane within its quad, a
//             divergent address, so that read is an ordinary vector load (global_load_dwordx2).
//   scratch:  de Casteljau's workspace b[] is indexed at run time (the degree is a kernel
//             argument), so it goes to the private address space (5), per-lane scratch in device
//             memory: scratch_store / scratch_load on gfx942, buffer_store / buffer_load with
//             offen (a per-lane offset) on gfx90a. bezier_quads_fixed, the same code with the
//             degree a template parameter, keeps b[] in registers.
// The shuffle's width of 4 is the third argument of HIP's __shfl_xor (CUDA's masked shuffle takes
// it fourth); HIP's shuffles take no lane mask, and a wavefront has 64 lanes (16 quads).
#include <cmath>

#include "../../common/harness_hip.h"

constexpr int THREADS = 256;
constexpr int MAX_DEGREE = 31;

__constant__ double c_ctrl[MAX_DEGREE + 1];
// Nodes of the four-point Gauss-Legendre rule mapped to [0, 1], and its weights (summing to 1):
// the doubles NumPy's leggauss(4) gives for (1 + x) / 2 and w / 2.
__constant__ double c_node[4] = {0.06943184420297371, 0.33000947820757187, 0.6699905217924281, 0.9305681557970262};
__constant__ double c_weight[4] = {0.17392742256872679, 0.3260725774312732, 0.3260725774312732, 0.17392742256872679};

// Where one thread's node lies: subinterval i, node k (the lane within its quad) and position t.
struct Node {
  long g, i;
  int k;
  double width, t;
};

__device__ Node locate(const double* __restrict__ edges, long n) {
  Node p;
  p.g = (long)blockIdx.x * blockDim.x + threadIdx.x;
  p.i = p.g >> 2;
  p.k = threadIdx.x & 3;
  long ic = p.i < n ? p.i : n - 1;  // lanes past the end compute a valid value and stay in the shuffles
  double a = edges[ic];             // the quad's four lanes read the same two edges
  p.width = edges[ic + 1] - a;
  // c_node[k] differs across the quad: a divergent constant read, a vector load (global_load)
  p.t = fma(p.width, c_node[p.k], a);
  return p;
}

// The quad's four weighted values, added by butterflies that stay inside each group of 4 lanes.
__device__ void store(const Node& p, long n, double v, double* __restrict__ y, double* __restrict__ area) {
  double part = c_weight[p.k] * v;
  part += __shfl_xor(part, 1, 4);
  part += __shfl_xor(part, 2, 4);
  if (p.i < n) {
    y[p.g] = v;
    if (p.k == 0) area[p.i] = part * p.width;
  }
}

__global__ __launch_bounds__(THREADS) void bezier_quads(const double* __restrict__ edges, long n, int degree,
                                                        double* __restrict__ y, double* __restrict__ area) {
  Node p = locate(edges, n);
  // Per-lane workspace, indexed at run time: scratch memory.
  double b[MAX_DEGREE + 1];
  for (int j = 0; j <= degree; ++j) b[j] = c_ctrl[j];
  for (int r = degree; r > 0; --r)
    for (int j = 0; j < r; ++j) b[j] = fma(p.t, b[j + 1] - b[j], b[j]);  // lerp(b[j], b[j + 1], t): v_fmac_f64
  store(p, n, b[0], y, area);
}

// The same evaluation with the degree fixed at compile time: the loops unroll, every index into
// b[] is a constant, and b[] stays in registers. main() times it beside bezier_quads, so the run
// reports what the local-memory workspace costs.
template <int D>
__global__ __launch_bounds__(THREADS) void bezier_quads_fixed(const double* __restrict__ edges, long n,
                                                              double* __restrict__ y, double* __restrict__ area) {
  Node p = locate(edges, n);
  double b[D + 1];
#pragma unroll
  for (int j = 0; j <= D; ++j) b[j] = c_ctrl[j];
#pragma unroll
  for (int r = D; r > 0; --r) {
#pragma unroll
    for (int j = 0; j < r; ++j) b[j] = fma(p.t, b[j + 1] - b[j], b[j]);
  }
  store(p, n, b[0], y, area);
}

constexpr int FIXED_DEGREE = 15;  // the example's default degree

int main(int argc, char** argv) {
  auto args = harness::parse(argc, argv, 2, "N DEGREE");
  long n = args.sizes[0];
  int degree = (int)args.sizes[1];
  if (degree > MAX_DEGREE) {
    std::fprintf(stderr, "degree %d: at most %d (the size of the constant table)\n", degree, MAX_DEGREE);
    return 64;
  }
  auto ctrl = harness::read<double>(args, "ctrl", degree + 1);
  double* edges = harness::to_device(harness::read<double>(args, "edges", n + 1));
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(c_ctrl), ctrl.data(), ctrl.size() * sizeof(double)));
  double* y = harness::poisoned<double>(4 * n);
  double* area = harness::poisoned<double>(n);
  long blocks = (4 * n + THREADS - 1) / THREADS;

  // First the register version (only for the degree it was compiled for), then the outputs are
  // poisoned again and the local-memory version writes what the runner checks.
  float ms_registers = -1.0f;
  std::vector<double> y_registers;
  if (degree == FIXED_DEGREE) {
    auto fixed = [&] { hipLaunchKernelGGL(bezier_quads_fixed<FIXED_DEGREE>, dim3(blocks), dim3(THREADS), 0, 0, edges, n, y, area); };
    ms_registers = harness::median_ms(fixed, args.iters);
    y_registers = harness::to_host(y, 4 * n);
    CHECK(hipMemset(y, 0xFF, 4 * n * sizeof(double)));
    CHECK(hipMemset(area, 0xFF, n * sizeof(double)));
  }
  auto launch = [&] { hipLaunchKernelGGL(bezier_quads, dim3(blocks), dim3(THREADS), 0, 0, edges, n, degree, y, area); };
  float ms = harness::median_ms(launch, args.iters);
  auto out_y = harness::to_host(y, 4 * n);
  auto out_area = harness::to_host(area, n);
  harness::write(args, "y", out_y.data(), out_y.size());
  harness::write(args, "area", out_area.data(), out_area.size());

  char extra[200] = "";
  if (ms_registers > 0) {
    // the two versions run the same operations in the same order: their results must agree
    double diff = 0;
    for (size_t j = 0; j < out_y.size(); ++j) diff = std::max(diff, std::fabs(out_y[j] - y_registers[j]));
    if (!(diff <= 1e-12)) {
      std::fprintf(stderr, "register and local-memory versions differ by %g\n", diff);
      return 70;
    }
    std::snprintf(extra, sizeof extra, "\"ms_registers\": %.6f, \"local_memory_cost\": %.3f", ms_registers,
                  ms / ms_registers);
  }
  harness::report(ms, extra);
  CHECK(hipFree(edges));
  CHECK(hipFree(y));
  CHECK(hipFree(area));
  return 0;
}
