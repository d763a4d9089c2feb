// case: Sample sort: the bucket-scatter kernel fills d_sendbuf on a stream and MPI_Alltoallv reads d_sendbuf right after an MPI_Barrier, which waits for no CUDA work.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x)                                                               \
  do {                                                                              \
    cudaError_t err_ = (x);                                                         \
    if (err_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__,                \
              cudaGetErrorString(err_));                                            \
      abort();                                                                      \
    }                                                                               \
  } while (0)

#define CHECK_MPI(x)                                                                \
  do {                                                                              \
    int rc_ = (x);                                                                  \
    if (rc_ != MPI_SUCCESS) {                                                       \
      fprintf(stderr, "%s:%d: MPI error %d\n", __FILE__, __LINE__, rc_);            \
      MPI_Abort(MPI_COMM_WORLD, rc_);                                               \
      abort();                                                                      \
    }                                                                               \
  } while (0)

static const int BLOCK = 256;
static const int OVERSAMPLE = 32;

// Bucket of a key: the number of splitters not greater than it (upper bound).
__device__ int bucket_of(uint32_t key, const uint32_t* splitters, int nsplit) {
  int lo = 0, hi = nsplit;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (splitters[mid] <= key) lo = mid + 1; else hi = mid;
  }
  return lo;
}

__global__ void count_buckets(const uint32_t* keys, int n, const uint32_t* splitters,
                              int nsplit, int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counts[bucket_of(keys[i], splitters, nsplit)], 1);
}

// Writes every key into its bucket's segment of `out`; cursor[b] starts at the
// segment's first slot.
__global__ void scatter_buckets(const uint32_t* keys, int n, const uint32_t* splitters,
                                int nsplit, int* cursor, uint32_t* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = bucket_of(keys[i], splitters, nsplit);
  int pos = atomicAdd(&cursor[b], 1);
  out[pos] = keys[i];
}

// Local sort of what this rank received: each key goes to its rank among all keys
// (ties broken by position). Quadratic, but each rank holds a few thousand keys.
__global__ void rank_sort(const uint32_t* in, int m, uint32_t* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  uint32_t k = in[i];
  int r = 0;
  for (int j = 0; j < m; ++j) {
    uint32_t o = in[j];
    r += (o < k) || (o == k && j < i);
  }
  out[r] = k;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  CHECK_CUDA(cudaSetDevice(rank % ndev));

  const int n = 1 << 14;
  const int nsplit = nranks - 1;
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));

  // Keys of this rank, uploaded from pinned memory.
  uint32_t* h_keys = nullptr;
  CHECK_CUDA(cudaMallocHost(&h_keys, n * sizeof(uint32_t)));
  srand(1234u + 17u * rank);
  for (int i = 0; i < n; ++i)
    h_keys[i] = ((uint32_t)rand() << 16) ^ (uint32_t)rand();
  uint32_t* d_keys = nullptr;
  CHECK_CUDA(cudaMalloc(&d_keys, n * sizeof(uint32_t)));
  CHECK_CUDA(cudaMemcpyAsync(d_keys, h_keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice, s));

  // Splitters from a regular sample of every rank's keys.
  std::vector<uint32_t> sample(OVERSAMPLE);
  for (int i = 0; i < OVERSAMPLE; ++i) sample[i] = h_keys[(size_t)i * n / OVERSAMPLE];
  std::vector<uint32_t> all_samples((size_t)OVERSAMPLE * nranks);
  CHECK_MPI(MPI_Allgather(sample.data(), OVERSAMPLE, MPI_UNSIGNED, all_samples.data(),
                          OVERSAMPLE, MPI_UNSIGNED, MPI_COMM_WORLD));
  std::sort(all_samples.begin(), all_samples.end());

  uint32_t* h_split = nullptr;
  uint32_t* d_split = nullptr;
  CHECK_CUDA(cudaMallocHost(&h_split, (nsplit + 1) * sizeof(uint32_t)));
  CHECK_CUDA(cudaMalloc(&d_split, (nsplit + 1) * sizeof(uint32_t)));
  for (int b = 0; b <= nsplit; ++b)
    h_split[b] = b < nsplit ? all_samples[(size_t)(b + 1) * OVERSAMPLE] : UINT32_MAX;
  CHECK_CUDA(cudaMemcpyAsync(d_split, h_split, (nsplit + 1) * sizeof(uint32_t),
                             cudaMemcpyHostToDevice, s));

  // Bucket sizes, then everyone learns how much it receives from whom.
  int* d_counts = nullptr;
  CHECK_CUDA(cudaMalloc(&d_counts, nranks * sizeof(int)));
  CHECK_CUDA(cudaMemsetAsync(d_counts, 0, nranks * sizeof(int), s));
  const int grid_n = (n + BLOCK - 1) / BLOCK;
  count_buckets<<<grid_n, BLOCK, 0, s>>>(d_keys, n, d_split, nsplit, d_counts);

  int *h_sendcounts, *h_recvcounts, *h_sdispls, *h_rdispls, *h_cursor;
  CHECK_CUDA(cudaMallocHost(&h_sendcounts, nranks * sizeof(int)));
  CHECK_CUDA(cudaMallocHost(&h_recvcounts, nranks * sizeof(int)));
  CHECK_CUDA(cudaMallocHost(&h_sdispls, nranks * sizeof(int)));
  CHECK_CUDA(cudaMallocHost(&h_rdispls, nranks * sizeof(int)));
  CHECK_CUDA(cudaMallocHost(&h_cursor, nranks * sizeof(int)));
  CHECK_CUDA(cudaMemcpyAsync(h_sendcounts, d_counts, nranks * sizeof(int),
                             cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_MPI(MPI_Alltoall(h_sendcounts, 1, MPI_INT, h_recvcounts, 1, MPI_INT, MPI_COMM_WORLD));

  int total_recv = 0;
  for (int r = 0; r < nranks; ++r) {
    h_sdispls[r] = r == 0 ? 0 : h_sdispls[r - 1] + h_sendcounts[r - 1];
    h_rdispls[r] = r == 0 ? 0 : h_rdispls[r - 1] + h_recvcounts[r - 1];
    h_cursor[r] = h_sdispls[r];
    total_recv += h_recvcounts[r];
  }

  int* d_cursor = nullptr;
  uint32_t *d_sendbuf = nullptr, *d_recvbuf = nullptr, *d_sorted = nullptr;
  CHECK_CUDA(cudaMalloc(&d_cursor, nranks * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_sendbuf, n * sizeof(uint32_t)));
  CHECK_CUDA(cudaMalloc(&d_recvbuf, (total_recv + 1) * sizeof(uint32_t)));
  CHECK_CUDA(cudaMalloc(&d_sorted, (total_recv + 1) * sizeof(uint32_t)));
  CHECK_CUDA(cudaMemcpyAsync(d_cursor, h_cursor, nranks * sizeof(int), cudaMemcpyHostToDevice, s));
  scatter_buckets<<<grid_n, BLOCK, 0, s>>>(d_keys, n, d_split, nsplit, d_cursor, d_sendbuf);

  // Every rank has partitioned its keys.
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Alltoallv(d_sendbuf, h_sendcounts, h_sdispls, MPI_UNSIGNED,  // EXPECT: missing_sync
                          d_recvbuf, h_recvcounts, h_rdispls, MPI_UNSIGNED, MPI_COMM_WORLD));

  const int grid_m = total_recv > 0 ? (total_recv + BLOCK - 1) / BLOCK : 1;
  rank_sort<<<grid_m, BLOCK, 0, s>>>(d_recvbuf, total_recv, d_sorted);
  uint32_t* h_sorted = nullptr;
  CHECK_CUDA(cudaMallocHost(&h_sorted, (total_recv + 1) * sizeof(uint32_t)));
  CHECK_CUDA(cudaMemcpyAsync(h_sorted, d_sorted, total_recv * sizeof(uint32_t),
                             cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));

  // Sorted locally, and not below the previous rank's largest key.
  int ok = 1;
  for (int i = 1; i < total_recv; ++i)
    if (h_sorted[i - 1] > h_sorted[i]) ok = 0;
  uint32_t my_max = total_recv > 0 ? h_sorted[total_recv - 1] : 0u;
  uint32_t prev_max = 0u;
  const int next = rank + 1 < nranks ? rank + 1 : MPI_PROC_NULL;
  const int prev = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  CHECK_MPI(MPI_Sendrecv(&my_max, 1, MPI_UNSIGNED, next, 7, &prev_max, 1, MPI_UNSIGNED, prev, 7,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  if (total_recv > 0 && prev_max > h_sorted[0]) ok = 0;

  int all_ok = 0;
  long long local = total_recv, global = 0;
  CHECK_MPI(MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Reduce(&local, &global, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  if (rank == 0)
    printf("sample sort: %lld keys over %d ranks, %s\n", global, nranks, all_ok ? "sorted" : "NOT sorted");

  CHECK_CUDA(cudaFree(d_keys));
  CHECK_CUDA(cudaFree(d_split));
  CHECK_CUDA(cudaFree(d_counts));
  CHECK_CUDA(cudaFree(d_cursor));
  CHECK_CUDA(cudaFree(d_sendbuf));
  CHECK_CUDA(cudaFree(d_recvbuf));
  CHECK_CUDA(cudaFree(d_sorted));
  CHECK_CUDA(cudaFreeHost(h_keys));
  CHECK_CUDA(cudaFreeHost(h_split));
  CHECK_CUDA(cudaFreeHost(h_sendcounts));
  CHECK_CUDA(cudaFreeHost(h_recvcounts));
  CHECK_CUDA(cudaFreeHost(h_sdispls));
  CHECK_CUDA(cudaFreeHost(h_rdispls));
  CHECK_CUDA(cudaFreeHost(h_cursor));
  CHECK_CUDA(cudaFreeHost(h_sorted));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
