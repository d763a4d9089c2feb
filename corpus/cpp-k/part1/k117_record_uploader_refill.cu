// case: A log-record aggregator packs each batch into one pinned staging buffer and uploads it with cudaMemcpyAsync; the next iteration repacks the same staging buffer while the previous upload may still be reading it, since the stream is only synchronized after the loop.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t st = (x);                                                      \
    if (st != cudaSuccess) {                                                   \
      std::fprintf(stderr, "CUDA: %s (%s)\n", cudaGetErrorString(st), #x);     \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct LogRecord {
  uint32_t service_id;
  uint32_t status;
  uint32_t latency_us;
  uint32_t bytes;
};

struct PackedRecord {
  uint16_t service;
  uint16_t is_error;
  uint32_t latency_us;
};

constexpr int kServices = 64;

__global__ void aggregate(const PackedRecord* __restrict__ recs, int n,
                          unsigned long long* __restrict__ latency_sum,
                          unsigned int* __restrict__ errors) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  PackedRecord r = recs[i];
  atomicAdd(&latency_sum[r.service], (unsigned long long)r.latency_us);
  if (r.is_error) atomicAdd(&errors[r.service], 1u);
}

static PackedRecord pack(const LogRecord& r) {
  PackedRecord p;
  p.service = static_cast<uint16_t>(r.service_id % kServices);
  p.is_error = r.status >= 500;
  p.latency_us = r.latency_us;
  return p;
}

int main() {
  const size_t total = 12'000'000;
  const size_t batch = 1 << 20;
  std::vector<LogRecord> records(total);
  for (size_t i = 0; i < total; ++i)
    records[i] = LogRecord{uint32_t(i * 2654435761u >> 7), (i % 53 == 0) ? 503u : 200u,
                           uint32_t(100 + i % 900), 512};

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  PackedRecord* staging = nullptr;
  CHECK(cudaMallocHost(&staging, batch * sizeof(PackedRecord)));
  PackedRecord* d_batch = nullptr;
  unsigned long long* d_latency = nullptr;
  unsigned int* d_errors = nullptr;
  CHECK(cudaMalloc(&d_batch, batch * sizeof(PackedRecord)));
  CHECK(cudaMalloc(&d_latency, kServices * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&d_errors, kServices * sizeof(unsigned int)));
  CHECK(cudaMemsetAsync(d_latency, 0, kServices * sizeof(unsigned long long), stream));
  CHECK(cudaMemsetAsync(d_errors, 0, kServices * sizeof(unsigned int), stream));

  for (size_t first = 0; first < total; first += batch) {
    const size_t count = std::min(batch, total - first);
    for (size_t i = 0; i < count; ++i) staging[i] = pack(records[first + i]);  // EXPECT: missing_sync
    CHECK(cudaMemcpyAsync(d_batch, staging, count * sizeof(PackedRecord), cudaMemcpyHostToDevice,
                          stream));
    aggregate<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(
        d_batch, static_cast<int>(count), d_latency, d_errors);
    CHECK(cudaGetLastError());
  }

  unsigned long long* h_latency = nullptr;
  unsigned int* h_errors = nullptr;
  CHECK(cudaMallocHost(&h_latency, kServices * sizeof(unsigned long long)));
  CHECK(cudaMallocHost(&h_errors, kServices * sizeof(unsigned int)));
  CHECK(cudaMemcpyAsync(h_latency, d_latency, kServices * sizeof(unsigned long long),
                        cudaMemcpyDeviceToHost, stream));
  CHECK(cudaMemcpyAsync(h_errors, d_errors, kServices * sizeof(unsigned int),
                        cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));

  unsigned long long lat = 0, errs = 0;
  for (int s = 0; s < kServices; ++s) {
    lat += h_latency[s];
    errs += h_errors[s];
  }
  std::printf("%zu records, mean latency %.1f us, %llu errors\n", total, double(lat) / total, errs);

  CHECK(cudaFreeHost(h_errors));
  CHECK(cudaFreeHost(h_latency));
  CHECK(cudaFree(d_errors));
  CHECK(cudaFree(d_latency));
  CHECK(cudaFree(d_batch));
  CHECK(cudaFreeHost(staging));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
