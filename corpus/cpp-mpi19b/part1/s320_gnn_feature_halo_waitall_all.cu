// case: near miss of the request-vector halo: a distributed GNN layer collects every MPI_Irecv and MPI_Isend request of its neighbour exchange in one std::vector and completes them all with MPI_Waitall before copying the pinned receive buffers to the device.
// expect: none
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

struct Peer {
  int rank;
  int nodes;         // boundary nodes shared with this peer
  int offset;        // into the packed feature buffers
  float* h_out;      // pinned, nodes * F
  float* h_in;       // pinned, nodes * F
};

#define F 32  // feature width

__global__ void init_features(float* x, int n, int rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n * F) x[i] = 0.01f * (float)((i + rank * 131) % 97);
}

__global__ void pack_features(const float* x, const int* nodes, float* out, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m * F) out[i] = x[nodes[i / F] * F + i % F];
}

// mean aggregation of remote neighbour features into the local nodes they attach to
__global__ void aggregate_remote(float* agg, const float* remote, const int* attach, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m * F) atomicAdd(&agg[attach[i / F] * F + i % F], 0.5f * remote[i]);
}

__global__ void combine(const float* x, const float* agg, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n * F) {
    float v = x[i] + agg[i];
    y[i] = v > 0.0f ? v : 0.01f * v;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 50000;

  std::vector<Peer> peers;
  for (int d = 1; d <= 2 && d < size; ++d) {
    int other = (rank + d) % size;
    int back = (rank + size - d) % size;
    int cand[2] = {other, back};
    for (int c = 0; c < 2; ++c) {
      bool seen = false;
      for (size_t k = 0; k < peers.size(); ++k) seen = seen || peers[k].rank == cand[c];
      if (seen) continue;
      Peer p;
      p.rank = cand[c];
      p.nodes = 100 + 10 * ((rank + cand[c]) % 5);
      peers.push_back(p);
    }
  }
  int m = 0;
  for (size_t k = 0; k < peers.size(); ++k) {
    peers[k].offset = m;
    m += peers[k].nodes;
    cudaMallocHost(&peers[k].h_out, peers[k].nodes * F * sizeof(float));
    cudaMallocHost(&peers[k].h_in, peers[k].nodes * F * sizeof(float));
  }
  std::vector<int> out_nodes(m + 1), attach(m + 1);
  for (int j = 0; j <= m; ++j) {
    out_nodes[j] = (j * 977) % n;
    attach[j] = (j * 1237 + 11) % n;
  }

  float *d_x, *d_y, *d_agg, *d_out, *d_in;
  int *d_out_nodes, *d_attach;
  const size_t fb = (size_t)n * F * sizeof(float), pb = (size_t)(m + 1) * F * sizeof(float);
  cudaMalloc(&d_x, fb);
  cudaMalloc(&d_y, fb);
  cudaMalloc(&d_agg, fb);
  cudaMalloc(&d_out, pb);
  cudaMalloc(&d_in, pb);
  cudaMalloc(&d_out_nodes, (m + 1) * sizeof(int));
  cudaMalloc(&d_attach, (m + 1) * sizeof(int));
  cudaMemcpy(d_out_nodes, out_nodes.data(), (m + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_attach, attach.data(), (m + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_in, 0, pb);
  init_features<<<(n * F + 255) / 256, 256>>>(d_x, n, rank);
  cudaDeviceSynchronize();

  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const int pblocks = ((m + 1) * F + 255) / 256;
  for (int layer = 0; layer < 4; ++layer) {
    pack_features<<<pblocks, 256, 0, s>>>(d_x, d_out_nodes, d_out, m);
    for (size_t k = 0; k < peers.size(); ++k)
      cudaMemcpyAsync(peers[k].h_out, d_out + (size_t)peers[k].offset * F, peers[k].nodes * F * sizeof(float),
                      cudaMemcpyDeviceToHost, s);
    cudaMemsetAsync(d_agg, 0, fb, s);
    cudaStreamSynchronize(s);

    std::vector<MPI_Request> reqs;
    reqs.reserve(2 * peers.size());
    for (size_t k = 0; k < peers.size(); ++k) {
      reqs.push_back(MPI_REQUEST_NULL);
      MPI_Irecv(peers[k].h_in, peers[k].nodes * F, MPI_FLOAT, peers[k].rank, layer, MPI_COMM_WORLD, &reqs.back());
      reqs.push_back(MPI_REQUEST_NULL);
      MPI_Isend(peers[k].h_out, peers[k].nodes * F, MPI_FLOAT, peers[k].rank, layer, MPI_COMM_WORLD, &reqs.back());
    }
    MPI_Waitall((int)reqs.size(), reqs.data(), MPI_STATUSES_IGNORE);

    for (size_t k = 0; k < peers.size(); ++k)
      cudaMemcpyAsync(d_in + (size_t)peers[k].offset * F, peers[k].h_in, peers[k].nodes * F * sizeof(float),
                      cudaMemcpyHostToDevice, s);
    aggregate_remote<<<pblocks, 256, 0, s>>>(d_agg, d_in, d_attach, m);
    combine<<<(n * F + 255) / 256, 256, 0, s>>>(d_x, d_agg, d_y, n);
    cudaMemcpyAsync(d_x, d_y, fb, cudaMemcpyDeviceToDevice, s);
    cudaStreamSynchronize(s);
  }

  float first = 0.0f;
  cudaMemcpy(&first, d_x, sizeof(float), cudaMemcpyDeviceToHost);
  printf("rank %d: %zu peers, x[0] = %.4f\n", rank, peers.size(), first);

  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_agg);
  cudaFree(d_out);
  cudaFree(d_in);
  cudaFree(d_out_nodes);
  cudaFree(d_attach);
  for (size_t k = 0; k < peers.size(); ++k) {
    cudaFreeHost(peers[k].h_out);
    cudaFreeHost(peers[k].h_in);
  }
  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
