// case: a Jacobi solver class for a CSR Poisson system whose constructor allocates every member buffer except the inverse diagonal, which setup() and iterate() then pass as a null pointer to kernels that write and read it
// expect: unallocated_pointer=2
#include "jacobi_solver.cuh"

int main() {
  const int n = 1 << 16;
  std::vector<int> rowptr(n + 1), cols;
  std::vector<float> vals, b(n, 1.0f);
  cols.reserve(3 * n);
  vals.reserve(3 * n);
  for (int i = 0; i < n; ++i) {
    rowptr[i] = (int)cols.size();
    if (i > 0) { cols.push_back(i - 1); vals.push_back(-1.0f); }
    cols.push_back(i);
    vals.push_back(4.0f);
    if (i < n - 1) { cols.push_back(i + 1); vals.push_back(-1.0f); }
  }
  rowptr[n] = (int)cols.size();

  JacobiSolver solver(rowptr, cols, vals, b);
  solver.setup();
  solver.iterate(200, 0.8f);
  std::vector<float> x = solver.solution();

  double norm = 0.0;
  for (float v : x) norm += (double)v * v;
  printf("||x||^2 = %f (x[n/2] = %f)\n", norm, x[n / 2]);
  return 0;
}
