// A Bezier curve component B(t) = sum_j c_j C(D, j) t^j (1 - t)^(D - j), evaluated in double
// precision with de Casteljau's algorithm at the four Gauss-Legendre nodes of each of n
// subintervals of [0, 1] (their edges are an input), and its integral over each subinterval by
// that four-point rule. One thread per node, so the four lanes of a quad hold the four nodes of
// one subinterval and add their weighted values with width-4 shuffles.
//
// Memory spaces at work:
//   constant: the control points (filled by the host with cudaMemcpyToSymbol before the launch)
//             and the Gauss-Legendre table. Every lane of a warp reads the same control point at
//             the same time, which the constant cache broadcasts in one access.
//   local:    de Casteljau's workspace b[], one per thread. The degree arrives at run time, so the
//             loops cannot be unrolled and b[] cannot live in registers (which are not indexable):
//             the compiler places it in local memory (LDL / STL in the SASS), which is cached in
//             L1 but is device memory all the same.
#include "../../common/harness.cuh"

constexpr int THREADS = 256;
constexpr int MAX_DEGREE = 31;
constexpr unsigned FULL = 0xffffffffu;

__constant__ double c_ctrl[MAX_DEGREE + 1];
// Nodes of the four-point Gauss-Legendre rule mapped to [0, 1], and its weights (summing to 1).
// These literals are the doubles NumPy's leggauss(4) gives for (1 + x) / 2 and w / 2.
__constant__ double c_node[4] = {0.06943184420297371, 0.33000947820757187, 0.6699905217924281, 0.9305681557970262};
__constant__ double c_weight[4] = {0.17392742256872679, 0.3260725774312732, 0.3260725774312732, 0.17392742256872679};

__global__ __launch_bounds__(THREADS) void bezier_quads(const double* __restrict__ edges, long n, int degree,
                                                        double* __restrict__ y, double* __restrict__ area) {
  long g = (long)blockIdx.x * blockDim.x + threadIdx.x;
  long i = g >> 2;            // subinterval
  int k = threadIdx.x & 3;    // Gauss node = lane within the quad
  long ic = i < n ? i : n - 1;  // lanes past the end compute a valid value and stay in the shuffles
  double a = edges[ic], width = edges[ic + 1] - a;  // the quad's four lanes read the same two edges
  // c_node[k] differs across the quad: four constant addresses per warp, read once per thread
  double t = fma(width, c_node[k], a);

  // Per-thread workspace, indexed at run time: local memory. With the degree a template parameter the
  // loops would unroll and b[] would stay in registers; the run-time degree is what keeps it here.
  double b[MAX_DEGREE + 1];
  for (int j = 0; j <= degree; ++j) b[j] = c_ctrl[j];
  for (int r = degree; r > 0; --r)
    for (int j = 0; j < r; ++j) b[j] = fma(t, b[j + 1] - b[j], b[j]);  // lerp(b[j], b[j + 1], t)
  double v = b[0];

  // the quad's four weighted values, added by butterflies that stay inside each group of 4 lanes
  double part = c_weight[k] * v;
  part += __shfl_xor_sync(FULL, part, 1, 4);
  part += __shfl_xor_sync(FULL, part, 2, 4);
  if (i < n) {
    y[g] = v;
    if (k == 0) area[i] = part * width;
  }
}

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
  CHECK(cudaMemcpyToSymbol(c_ctrl, ctrl.data(), ctrl.size() * sizeof(double)));
  double* y = harness::poisoned<double>(4 * n);
  double* area = harness::poisoned<double>(n);
  long blocks = (4 * n + THREADS - 1) / THREADS;
  auto launch = [&] { bezier_quads<<<blocks, THREADS>>>(edges, n, degree, y, area); };
  float ms = harness::median_ms(launch, args.iters);
  auto out_y = harness::to_host(y, 4 * n);
  auto out_area = harness::to_host(area, n);
  harness::write(args, "y", out_y.data(), out_y.size());
  harness::write(args, "area", out_area.data(), out_area.size());
  harness::report(ms);
  CHECK(cudaFree(edges));
  CHECK(cudaFree(y));
  CHECK(cudaFree(area));
  return 0;
}
