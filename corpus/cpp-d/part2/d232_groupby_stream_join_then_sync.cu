// case: a database group-by operator reads its copied-back results only after waits that do cover them: synchronizing a stream that was made to wait (cudaStreamWaitEvent) on the copy's event, a blocking cudaMemcpy on the legacy default stream after a kernel on a blocking stream, and managed memory after cudaDeviceSynchronize; correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "groupby relies on the legacy default stream synchronizing with blocking streams"
#endif

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr int kGroups = 1024;

__global__ void aggregate(const int* keys, const float* vals, int n, float* sums, unsigned int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int g = keys[i] % kGroups;
  atomicAdd(&sums[g], vals[i]);
  atomicAdd(&counts[g], 1u);
}

__global__ void finalize(const float* sums, const unsigned int* counts, float* means, float* overall) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= kGroups) return;
  means[g] = counts[g] ? sums[g] / counts[g] : 0.f;
  atomicAdd(overall, means[g] / kGroups);
}

int main() {
  const int n = 1 << 22;
  cudaStream_t scan, copy, reduce;
  CUDA_CHECK(cudaStreamCreateWithFlags(&scan, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamCreate(&reduce));  // blocking: ordered with the legacy default stream
  cudaEvent_t aggregated, copied;
  CUDA_CHECK(cudaEventCreateWithFlags(&aggregated, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));

  int *h_keys, *d_keys;
  float *h_vals, *d_vals, *d_sums, *h_sums, *d_means, *overall;
  unsigned int* d_counts;
  CUDA_CHECK(cudaMallocHost(&h_keys, n * sizeof(int)));
  CUDA_CHECK(cudaMallocHost(&h_vals, n * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_sums, kGroups * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_keys, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_vals, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_sums, kGroups * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_counts, kGroups * sizeof(unsigned int)));
  CUDA_CHECK(cudaMalloc(&d_means, kGroups * sizeof(float)));
  CUDA_CHECK(cudaMallocManaged(&overall, sizeof(float)));
  for (int i = 0; i < n; ++i) { h_keys[i] = (i * 7919) & 0x7fffffff; h_vals[i] = float(i % 100); }
  *overall = 0.f;

  // 1. scan stream aggregates; copy stream fetches the sums; reduce stream joins the copy
  CUDA_CHECK(cudaMemcpyAsync(d_keys, h_keys, n * sizeof(int), cudaMemcpyHostToDevice, scan));
  CUDA_CHECK(cudaMemcpyAsync(d_vals, h_vals, n * sizeof(float), cudaMemcpyHostToDevice, scan));
  CUDA_CHECK(cudaMemsetAsync(d_sums, 0, kGroups * sizeof(float), scan));
  CUDA_CHECK(cudaMemsetAsync(d_counts, 0, kGroups * sizeof(unsigned int), scan));
  aggregate<<<(n + 255) / 256, 256, 0, scan>>>(d_keys, d_vals, n, d_sums, d_counts);
  CUDA_CHECK(cudaEventRecord(aggregated, scan));
  CUDA_CHECK(cudaStreamWaitEvent(copy, aggregated, 0));
  CUDA_CHECK(cudaMemcpyAsync(h_sums, d_sums, kGroups * sizeof(float), cudaMemcpyDeviceToHost, copy));
  CUDA_CHECK(cudaEventRecord(copied, copy));
  CUDA_CHECK(cudaStreamWaitEvent(reduce, copied, 0));
  CUDA_CHECK(cudaStreamSynchronize(reduce));  // reduce has nothing but the wait: returns after the copy
  float total = 0.f;
  for (int g = 0; g < kGroups; ++g) total += h_sums[g];

  // 2. finalize on the blocking stream, then a blocking copy on the legacy default stream
  finalize<<<(kGroups + 255) / 256, 256, 0, reduce>>>(d_sums, d_counts, d_means, overall);
  std::vector<float> means(kGroups);
  CUDA_CHECK(cudaMemcpy(means.data(), d_means, kGroups * sizeof(float), cudaMemcpyDeviceToHost));
  float widest = 0.f;
  for (float m : means) widest = m > widest ? m : widest;

  // 3. the managed scalar, after every stream is done
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("total %.1f, widest mean %.3f, mean of means %.3f\n", total, widest, *overall);

  CUDA_CHECK(cudaFree(overall));
  CUDA_CHECK(cudaFree(d_means));
  CUDA_CHECK(cudaFree(d_counts));
  CUDA_CHECK(cudaFree(d_sums));
  CUDA_CHECK(cudaFree(d_vals));
  CUDA_CHECK(cudaFree(d_keys));
  CUDA_CHECK(cudaFreeHost(h_sums));
  CUDA_CHECK(cudaFreeHost(h_vals));
  CUDA_CHECK(cudaFreeHost(h_keys));
  CUDA_CHECK(cudaEventDestroy(copied));
  CUDA_CHECK(cudaEventDestroy(aggregated));
  CUDA_CHECK(cudaStreamDestroy(reduce));
  CUDA_CHECK(cudaStreamDestroy(copy));
  CUDA_CHECK(cudaStreamDestroy(scan));
  return 0;
}
