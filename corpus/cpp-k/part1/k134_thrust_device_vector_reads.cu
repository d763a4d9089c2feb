// case: A percentile report sorts latencies in a thrust::device_vector and reads single elements on the host through the device_vector's operator[] and back() (thrust performs a synchronous copy for each), then copies a slice to a host_vector: no raw device pointer is dereferenced on the host; correct.
// expect: none
#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <cstdio>
#include <cstdlib>

__global__ void synth_latencies(float* __restrict__ out, int n, unsigned seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = (i + 1) * 2654435761u ^ seed;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  float u = (x & 0xffffff) / float(0x1000000);
  out[i] = 0.2f + 5.f * u * u * u;  // heavy tail, milliseconds
}

// latency buckets of 0.5 ms, counted by the device
__global__ void bucket_counts(const float* __restrict__ lat, int n, unsigned* __restrict__ buckets,
                              int num_buckets) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = min(static_cast<int>(lat[i] / 0.5f), num_buckets - 1);
  atomicAdd(&buckets[b], 1u);
}

static float percentile(const thrust::device_vector<float>& sorted, double p) {
  const size_t idx = static_cast<size_t>(p * (sorted.size() - 1));
  return sorted[idx];  // device_reference -> value: one synchronous device-to-host copy
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 5000000;
  thrust::device_vector<float> lat(n);
  synth_latencies<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(lat.data()), n, 1234u);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "launch: %s\n", cudaGetErrorString(err));
    return 1;
  }

  thrust::sort(lat.begin(), lat.end());
  const float mean = thrust::reduce(lat.begin(), lat.end(), 0.f) / n;
  const float p50 = percentile(lat, 0.50);
  const float p99 = percentile(lat, 0.99);
  const float worst = lat.back();
  const float best = lat[0];

  const int num_buckets = 12;
  thrust::device_vector<unsigned> buckets(num_buckets, 0u);
  bucket_counts<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(lat.data()), n,
                                          thrust::raw_pointer_cast(buckets.data()), num_buckets);
  thrust::host_vector<unsigned> h_buckets = buckets;  // synchronous copy after the kernel
  for (int b = 0; b < num_buckets; ++b)
    std::printf("[%4.1f, %4.1f) ms: %u%s\n", 0.5 * b, 0.5 * (b + 1), h_buckets[b],
                b + 1 == num_buckets ? " (and above)" : "");
  const unsigned first_bucket = buckets[0];  // one more element read through thrust

  thrust::host_vector<float> tail(100);
  thrust::copy(lat.end() - 100, lat.end(), tail.begin());
  int above_4ms = 0;
  for (float v : tail) above_4ms += v > 4.f;

  std::printf("n=%d mean %.3f p50 %.3f p99 %.3f min %.3f max %.3f (%d of the top 100 > 4 ms)\n", n,
              mean, p50, p99, best, worst, above_4ms);
  std::printf("%.2f%% of requests under 0.5 ms\n", 100.0 * first_bucket / n);
  return 0;
}
