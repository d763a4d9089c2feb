// case: solver class: advance() enqueues diffusion steps that read the member d_kappa_ on the solver's stream, release_coefficients() cudaFree's it; main calls one right after the other
// expect: relies_on_implicit_sync=1
#include <cstdio>
#include <vector>

#include "stencil_solver.cuh"

int main() {
  const int n = 1 << 18;
  std::vector<float> u0(n, 0.0f), kappa(n), result(n);
  u0[n / 2] = 1000.0f;
  for (int i = 0; i < n; ++i) kappa[i] = (i < n / 3) ? 0.5f : 1.0f;

  DiffusionSolver solver;
  if (!solver.init(u0.data(), kappa.data(), n, 0.2f)) return 1;

  solver.advance(200);
  solver.release_coefficients();  // EXPECT: relies_on_implicit_sync

  solver.download(result.data());  // blocking copy: waits for the solver's blocking stream
  double mass = 0.0;
  for (float v : result) mass += v;
  std::printf("total heat after 200 steps: %f\n", mass);

  solver.destroy();
  return 0;
}
