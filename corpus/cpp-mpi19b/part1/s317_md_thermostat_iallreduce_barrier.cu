// case: a molecular-dynamics step sums the kinetic energy across ranks with MPI_Iallreduce in place on pinned h_stats and overlaps it with a displacement kernel, then reads h_stats on the host after an MPI_Barrier, which does not complete the nonblocking reduction; MPI_Wait comes later.
// expect: missing_sync=1
#include <cmath>
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

__global__ void init_lattice(float4* x, float4* x0, float4* v, int n, int rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = make_float4((float)(i % 64), (float)((i / 64) % 64), (float)(i / 4096) + 100.0f * rank, 1.0f);
  x[i] = p;
  x0[i] = p;
  unsigned int h = (unsigned int)i * 2654435761u + (unsigned int)rank * 40503u;
  v[i] = make_float4(((h & 1023) - 511.5f) / 512.0f, (((h >> 10) & 1023) - 511.5f) / 512.0f,
                     (((h >> 20) & 1023) - 511.5f) / 512.0f, 0.0f);
}

// harmonic tether to the lattice site
__global__ void forces(const float4* x, const float4* x0, float4* f, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f[i] = make_float4(-k * (x[i].x - x0[i].x), -k * (x[i].y - x0[i].y), -k * (x[i].z - x0[i].z), 0.0f);
}

__global__ void kick(float4* v, const float4* f, int n, float h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    v[i].x += h * f[i].x;
    v[i].y += h * f[i].y;
    v[i].z += h * f[i].z;
  }
}

__global__ void drift(float4* x, const float4* v, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i].x += dt * v[i].x;
    x[i].y += dt * v[i].y;
    x[i].z += dt * v[i].z;
  }
}

__global__ void kinetic(const float4* v, double* ke, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(ke, 0.5 * (double)(v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z));
}

__global__ void displacement(const float4* x, const float4* x0, double* msd, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float dx = x[i].x - x0[i].x, dy = x[i].y - x0[i].y, dz = x[i].z - x0[i].z;
  atomicAdd(msd, (double)(dx * dx + dy * dy + dz * dz));
}

__global__ void rescale(float4* v, int n, float lambda) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    v[i].x *= lambda;
    v[i].y *= lambda;
    v[i].z *= lambda;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 1 << 18, bs = 256, blocks = (n + bs - 1) / bs;
  const float dt = 0.005f, k = 4.0f, T_target = 0.3f, tau = 0.1f;

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float4 *d_x, *d_x0, *d_v, *d_f;
  double *d_red, *h_stats, *h_msd;  // d_red: [0] kinetic energy, [1] squared displacement
  cudaMalloc(&d_x, n * sizeof(float4));
  cudaMalloc(&d_x0, n * sizeof(float4));
  cudaMalloc(&d_v, n * sizeof(float4));
  cudaMalloc(&d_f, n * sizeof(float4));
  cudaMalloc(&d_red, 2 * sizeof(double));
  cudaMallocHost(&h_stats, 2 * sizeof(double));
  cudaMallocHost(&h_msd, sizeof(double));
  init_lattice<<<blocks, bs, 0, s>>>(d_x, d_x0, d_v, n, rank);
  forces<<<blocks, bs, 0, s>>>(d_x, d_x0, d_f, n, k);
  cudaStreamSynchronize(s);

  for (int step = 0; step < 1000; ++step) {
    kick<<<blocks, bs, 0, s>>>(d_v, d_f, n, 0.5f * dt);
    drift<<<blocks, bs, 0, s>>>(d_x, d_v, n, dt);
    forces<<<blocks, bs, 0, s>>>(d_x, d_x0, d_f, n, k);
    kick<<<blocks, bs, 0, s>>>(d_v, d_f, n, 0.5f * dt);

    cudaMemsetAsync(d_red, 0, 2 * sizeof(double), s);
    kinetic<<<blocks, bs, 0, s>>>(d_v, d_red, n);
    cudaMemcpyAsync(h_stats, d_red, sizeof(double), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    h_stats[1] = (double)n;
    MPI_Request req;
    MPI_Iallreduce(MPI_IN_PLACE, h_stats, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);

    // overlap the reduction with the displacement diagnostic
    displacement<<<blocks, bs, 0, s>>>(d_x, d_x0, d_red + 1, n);
    cudaMemcpyAsync(h_msd, d_red + 1, sizeof(double), cudaMemcpyDeviceToHost, s);

    MPI_Barrier(MPI_COMM_WORLD);  // every rank has contributed its kinetic energy
    double T = 2.0 * h_stats[0] / (3.0 * h_stats[1]);  // EXPECT: missing_sync
    float lambda = (float)sqrt(1.0 + dt / tau * (T_target / T - 1.0));
    rescale<<<blocks, bs, 0, s>>>(d_v, n, lambda);
    cudaStreamSynchronize(s);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0 && step % 100 == 0) printf("step %d T=%.4f msd=%.4f\n", step, T, *h_msd / n);
  }

  cudaFree(d_x);
  cudaFree(d_x0);
  cudaFree(d_v);
  cudaFree(d_f);
  cudaFree(d_red);
  cudaFreeHost(h_stats);
  cudaFreeHost(h_msd);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
