// case: near miss of the particle-in-cell migration: kernels run on the legacy default stream and a blocking cudaMemcpy brings the migrant buffer back into a std::vector before MPI_Sendrecv_replace exchanges the host copy, which is copied back with another blocking cudaMemcpy.
// expect: none
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

#define MIG_CAP 2048

__global__ void seed(float4* p, int cap, int n, float x0, float len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cap) return;
  float u = (float)((i * 40503u) % 65536u) / 65536.0f;
  p[i] = i < n ? make_float4(x0 + u * len, 0.2f + u, 1.0f, 1.0f) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

__global__ void empty_migrants(float4* mig, int cap) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < cap) mig[i] = make_float4(0.0f, 0.0f, 0.0f, -1.0f);
}

__global__ void push(float4* p, int cap, float dt, float x_hi, float period, float4* mig, int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cap) return;
  float4 q = p[i];
  if (q.w <= 0.0f) return;
  q.x += q.y * dt;
  if (q.x >= x_hi) {
    int slot = atomicAdd(&counts[0], 1);
    if (slot < MIG_CAP) {
      if (q.x >= period) q.x -= period;
      mig[slot] = q;
      q.w = 0.0f;
    } else {
      q.x = x_hi - 1e-4f;
    }
  }
  p[i] = q;
}

__global__ void absorb(float4* p, int cap, float4* mig, int* counts) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k == 0) counts[0] = 0;
  if (k >= MIG_CAP) return;
  float4 q = mig[k];
  mig[k] = make_float4(0.0f, 0.0f, 0.0f, -1.0f);
  if (q.w <= 0.0f) return;
  int idx = atomicAdd(&counts[1], 1);
  if (idx < cap) p[idx] = q;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const float slab = 2.0f, x_lo = rank * slab, x_hi = x_lo + slab, period = size * slab;
  const int cap = 1 << 19, n0 = 1 << 16;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  float4 *d_p, *d_mig;
  int* d_counts;
  cudaMalloc(&d_p, cap * sizeof(float4));
  cudaMalloc(&d_mig, MIG_CAP * sizeof(float4));
  cudaMalloc(&d_counts, 2 * sizeof(int));
  int init_counts[2] = {0, n0};
  cudaMemcpy(d_counts, init_counts, sizeof(init_counts), cudaMemcpyHostToDevice);
  seed<<<(cap + 255) / 256, 256>>>(d_p, cap, n0, x_lo, slab);
  empty_migrants<<<(MIG_CAP + 255) / 256, 256>>>(d_mig, MIG_CAP);

  std::vector<float4> h_mig(MIG_CAP);
  for (int step = 0; step < 100; ++step) {
    push<<<(cap + 255) / 256, 256>>>(d_p, cap, 0.05f, x_hi, period, d_mig, d_counts);
    // blocking copy on the legacy stream: waits for push, and h_mig is complete when it returns
    cudaMemcpy(h_mig.data(), d_mig, MIG_CAP * sizeof(float4), cudaMemcpyDeviceToHost);
    MPI_Sendrecv_replace(h_mig.data(), 4 * MIG_CAP, MPI_FLOAT, right, 100 + step, left, 100 + step, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    cudaMemcpy(d_mig, h_mig.data(), MIG_CAP * sizeof(float4), cudaMemcpyHostToDevice);
    absorb<<<(MIG_CAP + 255) / 256, 256>>>(d_p, cap, d_mig, d_counts);
  }

  int counts[2] = {0, 0};
  cudaMemcpy(counts, d_counts, sizeof(counts), cudaMemcpyDeviceToHost);
  int total = 0;
  MPI_Reduce(&counts[1], &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("slots in use: %d\n", total);

  cudaDeviceSynchronize();
  cudaFree(d_p);
  cudaFree(d_mig);
  cudaFree(d_counts);
  MPI_Finalize();
  return 0;
}
