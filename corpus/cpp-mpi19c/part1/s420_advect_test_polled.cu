// case: Upwind advection near miss: MPI_Test is polled in a while (!arrived) loop until the inflow MPI_Irecv is done before the inflow kernel reads d_inflow.
// expect: none
#include <cuda_runtime.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                                             \
  do {                                                                            \
    cudaError_t err = (x);                                                        \
    if (err != cudaSuccess) {                                                     \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
      abort();                                                                    \
    }                                                                             \
  } while (0)
#define CHECK_MPI(x)                                                              \
  do {                                                                            \
    int err = (x);                                                                \
    if (err != MPI_SUCCESS) {                                                     \
      fprintf(stderr, "%s:%d: MPI error %d\n", __FILE__, __LINE__, err);          \
      MPI_Abort(MPI_COMM_WORLD, err);                                             \
      abort();                                                                    \
    }                                                                             \
  } while (0)

// Second-order upwind scheme for q_t + a q_x = 0 with a > 0: information flows from
// rank r to rank r + 1, so each rank needs the last G cells of its upstream neighbour.
constexpr int G = 2;

__global__ void init_pulse(double* q, int n, long long offset, long long nglobal) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = (double)(offset + i) / (double)nglobal - 0.25;
  q[i] = exp(-400.0 * x * x);
}

__global__ void extract_outflow(const double* q, int n, double* out) {
  int i = threadIdx.x;
  if (i < G) out[i] = q[n - G + i];
}

// Cells i >= G need only local values.
__global__ void advect_interior(const double* q, double* qn, int n, double c) {
  int i = G + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  qn[i] = q[i] - c * (1.5 * q[i] - 2.0 * q[i - 1] + 0.5 * q[i - 2]);
}

// Cells 0 .. G-1 read the upstream rank's last G cells: inflow[G + k] stands for q[k], k < 0.
__global__ void advect_inflow(const double* q, const double* inflow, double* qn, int n, double c) {
  int i = threadIdx.x;
  if (i >= G || i >= n) return;
  double qm1 = i - 1 >= 0 ? q[i - 1] : inflow[G + i - 1];
  double qm2 = i - 2 >= 0 ? q[i - 2] : inflow[G + i - 2];
  qn[i] = q[i] - c * (1.5 * q[i] - 2.0 * qm1 + 0.5 * qm2);
}

__global__ void total_mass(const double* q, int n, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, q[i]);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  const int n = 1 << 20, nsteps = 2000;
  const double courant = 0.4;
  const int upstream = (rank + nranks - 1) % nranks, downstream = (rank + 1) % nranks;
  const int grid = (n + 255) / 256;

  double *d_q, *d_qn, *d_inflow, *d_outflow, *d_mass;
  CHECK_CUDA(cudaMalloc(&d_q, n * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_qn, n * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_inflow, G * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_outflow, G * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&d_mass, sizeof(double)));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  init_pulse<<<grid, 256, 0, s>>>(d_q, n, (long long)rank * n, (long long)nranks * n);
  CHECK_CUDA(cudaMemsetAsync(d_qn, 0, n * sizeof(double), s));
  CHECK_CUDA(cudaMemsetAsync(d_inflow, 0, G * sizeof(double), s));
  CHECK_CUDA(cudaStreamSynchronize(s));

  long late_steps = 0;
  MPI_Request rreq = MPI_REQUEST_NULL, sreq = MPI_REQUEST_NULL;
  for (int step = 0; step < nsteps; ++step) {
    extract_outflow<<<1, 32, 0, s>>>(d_q, n, d_outflow);
    CHECK_CUDA(cudaStreamSynchronize(s));  // outflow ready, last step's kernels done
    CHECK_MPI(MPI_Irecv(d_inflow, G, MPI_DOUBLE, upstream, step, MPI_COMM_WORLD, &rreq));
    CHECK_MPI(MPI_Isend(d_outflow, G, MPI_DOUBLE, downstream, step, MPI_COMM_WORLD, &sreq));

    advect_interior<<<grid, 256, 0, s>>>(d_q, d_qn, n, courant);

    int arrived = 0, polls = 0;
    while (!arrived) {
      CHECK_MPI(MPI_Test(&rreq, &arrived, MPI_STATUS_IGNORE));
      ++polls;
    }
    if (polls > 1) ++late_steps;  // overlap statistics
    advect_inflow<<<1, 32, 0, s>>>(d_q, d_inflow, d_qn, n, courant);
    CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    double* t = d_q;
    d_q = d_qn;
    d_qn = t;
  }

  double *h_mass, *h_total;
  CHECK_CUDA(cudaMallocHost(&h_mass, sizeof(double)));
  CHECK_CUDA(cudaMallocHost(&h_total, sizeof(double)));
  CHECK_CUDA(cudaMemsetAsync(d_mass, 0, sizeof(double), s));
  total_mass<<<grid, 256, 0, s>>>(d_q, n, d_mass);
  CHECK_CUDA(cudaMemcpyAsync(h_mass, d_mass, sizeof(double), cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_MPI(MPI_Allreduce(h_mass, h_total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  long all_late = 0;
  CHECK_MPI(MPI_Reduce(&late_steps, &all_late, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  if (rank == 0)
    printf("mass %.12e after %d steps, halo late in %ld rank-steps\n", *h_total, nsteps, all_late);

  CHECK_CUDA(cudaFree(d_q));
  CHECK_CUDA(cudaFree(d_qn));
  CHECK_CUDA(cudaFree(d_inflow));
  CHECK_CUDA(cudaFree(d_outflow));
  CHECK_CUDA(cudaFree(d_mass));
  CHECK_CUDA(cudaFreeHost(h_mass));
  CHECK_CUDA(cudaFreeHost(h_total));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
