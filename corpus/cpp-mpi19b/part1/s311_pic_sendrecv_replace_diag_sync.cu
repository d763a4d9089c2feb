// case: a 1D particle-in-cell beam code packs the particles leaving its slab into d_migrants with a kernel and exchanges them in place with MPI_Sendrecv_replace, but the stream is synchronized only on rebalancing steps, so on the other path the push kernel may still be writing d_migrants.
// expect: missing_sync=1
#include <cstdio>
#include <mpi.h>
#include <cuda_runtime.h>

#define MIG_CAP 4096  // particles that may cross into the next slab per step

// particles are float4 (x, v, q, w); w == 0 marks a free slot, w < 0 an empty migrant slot
__global__ void seed_particles(float4* p, int cap, int n, float x0, float len, int rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cap) return;
  if (i < n) {
    float u = (float)((i * 2654435761u + rank * 97u) % 100000u) / 100000.0f;
    p[i] = make_float4(x0 + u * len, 0.5f + 0.5f * u, -1.0f, 1.0f);
  } else {
    p[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
}

__global__ void clear_migrants(float4* mig, int cap) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < cap) mig[i] = make_float4(0.0f, 0.0f, 0.0f, -1.0f);
}

// drift (+x only) and move particles past the right edge into the migrant buffer
__global__ void push_and_pack(float4* p, int cap, float dt, float x_hi, float period, float4* mig,
                              int* mig_count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cap) return;
  float4 q = p[i];
  if (q.w <= 0.0f) return;
  q.x += q.y * dt;
  if (q.x >= x_hi) {
    int slot = atomicAdd(mig_count, 1);
    if (slot < MIG_CAP) {
      if (q.x >= period) q.x -= period;  // periodic ring of slabs
      mig[slot] = q;
      q.w = 0.0f;
    } else {
      q.x = x_hi - 1e-4f;  // migrant buffer full: hold at the edge for a step
    }
  }
  p[i] = q;
}

// take the particles that arrived from the left into free slots; empty the migrant buffer
__global__ void absorb_migrants(float4* p, int cap, float4* mig, int* live, int* mig_count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k == 0) *mig_count = 0;
  if (k >= MIG_CAP) return;
  float4 q = mig[k];
  mig[k] = make_float4(0.0f, 0.0f, 0.0f, -1.0f);
  if (q.w <= 0.0f) return;
  int idx = atomicAdd(live, 1);
  if (idx < cap) p[idx] = q;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const float slab = 1.0f, x_lo = rank * slab, x_hi = x_lo + slab, period = size * slab;
  const int cap = 1 << 20, n0 = 1 << 18, steps = 200, rebalance_every = 25;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float4 *d_p, *d_migrants;
  int *d_counts, *h_counts;  // [0] migrants this step, [1] next free slot
  cudaMalloc(&d_p, cap * sizeof(float4));
  cudaMalloc(&d_migrants, MIG_CAP * sizeof(float4));
  cudaMalloc(&d_counts, 2 * sizeof(int));
  cudaMallocHost(&h_counts, 2 * sizeof(int));
  h_counts[0] = 0;
  h_counts[1] = n0;
  cudaMemcpyAsync(d_counts, h_counts, 2 * sizeof(int), cudaMemcpyHostToDevice, s);
  seed_particles<<<(cap + 255) / 256, 256, 0, s>>>(d_p, cap, n0, x_lo, slab, rank);
  clear_migrants<<<(MIG_CAP + 255) / 256, 256, 0, s>>>(d_migrants, MIG_CAP);
  cudaStreamSynchronize(s);

  for (int step = 0; step < steps; ++step) {
    push_and_pack<<<(cap + 255) / 256, 256, 0, s>>>(d_p, cap, 0.05f, x_hi, period, d_migrants, d_counts);
    if (step % rebalance_every == 0) {
      cudaMemcpyAsync(h_counts, d_counts, 2 * sizeof(int), cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
      if (h_counts[0] > MIG_CAP) fprintf(stderr, "rank %d step %d: %d migrants dropped\n", rank, step, h_counts[0] - MIG_CAP);
      if (h_counts[1] > cap - MIG_CAP) fprintf(stderr, "rank %d: particle store nearly full\n", rank);
    }
    // the whole migrant buffer goes right, the left neighbour's arrives in its place
    MPI_Sendrecv_replace(d_migrants, 4 * MIG_CAP, MPI_FLOAT, right, step, left, step, MPI_COMM_WORLD,  // EXPECT: missing_sync
                         MPI_STATUS_IGNORE);
    absorb_migrants<<<(MIG_CAP + 255) / 256, 256, 0, s>>>(d_p, cap, d_migrants, d_counts + 1, d_counts);
    cudaStreamSynchronize(s);  // end of step
  }

  cudaMemcpyAsync(h_counts, d_counts, 2 * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  int live = h_counts[1], total = 0;
  MPI_Reduce(&live, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("slots in use after %d steps: %d\n", steps, total);

  cudaFree(d_p);
  cudaFree(d_migrants);
  cudaFree(d_counts);
  cudaFreeHost(h_counts);
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
