// case: an unstructured-mesh solver keeps its receive and send requests in two std::vectors, calls MPI_Waitall on the send vector only, and then enqueues cudaMemcpyAsync from the pinned receive buffers to the device while the MPI_Irecv calls may still be writing them.
// expect: missing_sync=1
#include <algorithm>
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

struct Neighbor {
  int rank;
  int count;     // values exchanged each way
  int send_off;  // into the packed device send buffer
  int recv_off;  // into the device halo buffer
  float* h_send; // pinned staging
  float* h_recv;
};

__global__ void init_field(float* u, int n, int rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) u[i] = (float)rank + 0.001f * (float)(i % 1000);
}

__global__ void gather_boundary(const float* u, const int* idx, float* out, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) out[j] = u[idx[j]];
}

__global__ void couple_halo(float* u, const float* halo, const int* dst, int m, float alpha) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) atomicAdd(&u[dst[j]], alpha * (halo[j] - u[dst[j]]));
}

static int shared_count(int a, int b) { return 256 + 64 * ((a + b) % 3); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int ncells = 1 << 16;

  std::vector<Neighbor> nbrs;
  if (size > 1) {
    int cand[2] = {(rank + 1) % size, (rank + size - 1) % size};
    for (int c = 0; c < 2; ++c) {
      if (c == 1 && cand[1] == cand[0]) break;
      Neighbor nb;
      nb.rank = cand[c];
      nb.count = shared_count(rank, nb.rank);
      nbrs.push_back(nb);
    }
  }
  int total = 0;
  for (size_t k = 0; k < nbrs.size(); ++k) {
    nbrs[k].send_off = total;
    nbrs[k].recv_off = total;
    total += nbrs[k].count;
    cudaMallocHost(&nbrs[k].h_send, nbrs[k].count * sizeof(float));
    cudaMallocHost(&nbrs[k].h_recv, nbrs[k].count * sizeof(float));
  }
  std::vector<int> send_idx(total), halo_dst(total);
  for (int j = 0; j < total; ++j) {
    send_idx[j] = (j * 7919 + 13) % ncells;
    halo_dst[j] = (j * 104729 + 5) % ncells;
  }

  float *d_u, *d_sendbuf, *d_halo;
  int *d_send_idx, *d_halo_dst;
  cudaMalloc(&d_u, ncells * sizeof(float));
  cudaMalloc(&d_sendbuf, (total + 1) * sizeof(float));
  cudaMalloc(&d_halo, (total + 1) * sizeof(float));
  cudaMalloc(&d_send_idx, (total + 1) * sizeof(int));
  cudaMalloc(&d_halo_dst, (total + 1) * sizeof(int));
  cudaMemcpy(d_send_idx, send_idx.data(), total * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_halo_dst, halo_dst.data(), total * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_halo, 0, (total + 1) * sizeof(float));
  init_field<<<(ncells + 255) / 256, 256>>>(d_u, ncells, rank);
  cudaDeviceSynchronize();

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const int gblocks = std::max(1, (total + 255) / 256);
  for (int it = 0; it < 100; ++it) {
    gather_boundary<<<gblocks, 256, 0, s>>>(d_u, d_send_idx, d_sendbuf, total);
    for (size_t k = 0; k < nbrs.size(); ++k)
      cudaMemcpyAsync(nbrs[k].h_send, d_sendbuf + nbrs[k].send_off, nbrs[k].count * sizeof(float),
                      cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);

    std::vector<MPI_Request> recv_reqs(nbrs.size()), send_reqs(nbrs.size());
    for (size_t k = 0; k < nbrs.size(); ++k)
      MPI_Irecv(nbrs[k].h_recv, nbrs[k].count, MPI_FLOAT, nbrs[k].rank, 40, MPI_COMM_WORLD, &recv_reqs[k]);
    for (size_t k = 0; k < nbrs.size(); ++k)
      MPI_Isend(nbrs[k].h_send, nbrs[k].count, MPI_FLOAT, nbrs[k].rank, 40, MPI_COMM_WORLD, &send_reqs[k]);
    MPI_Waitall((int)send_reqs.size(), send_reqs.data(), MPI_STATUSES_IGNORE);

    for (size_t k = 0; k < nbrs.size(); ++k)
      cudaMemcpyAsync(d_halo + nbrs[k].recv_off, nbrs[k].h_recv, nbrs[k].count * sizeof(float),  // EXPECT: missing_sync
                      cudaMemcpyHostToDevice, s);
    couple_halo<<<gblocks, 256, 0, s>>>(d_u, d_halo, d_halo_dst, total, 0.1f);
    cudaStreamSynchronize(s);
    MPI_Waitall((int)recv_reqs.size(), recv_reqs.data(), MPI_STATUSES_IGNORE);  // retire the receives
  }

  float probe = 0.0f;
  cudaMemcpy(&probe, d_u, sizeof(float), cudaMemcpyDeviceToHost);
  printf("rank %d: u[0] = %.5f with %zu neighbours\n", rank, probe, nbrs.size());

  cudaFree(d_u);
  cudaFree(d_sendbuf);
  cudaFree(d_halo);
  cudaFree(d_send_idx);
  cudaFree(d_halo_dst);
  for (size_t k = 0; k < nbrs.size(); ++k) {
    cudaFreeHost(nbrs[k].h_send);
    cudaFreeHost(nbrs[k].h_recv);
  }
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
