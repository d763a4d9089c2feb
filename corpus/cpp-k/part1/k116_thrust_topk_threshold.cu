// case: A top-k filter scores candidates with a custom kernel into a thrust::device_vector, sorts it with thrust, and then reads the k-th score through the raw pointer it obtained for the kernel launches, which is a host dereference of device memory.
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <cstdio>
#include <cstdlib>

struct AboveThreshold {
  float t;
  __host__ __device__ bool operator()(float s) const { return s >= t; }
};

__global__ void score_candidates(const float4* __restrict__ feats, const float4 query,
                                 float* __restrict__ scores, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 f = feats[i];
  scores[i] = f.x * query.x + f.y * query.y + f.z * query.z + f.w * query.w;
}

__global__ void mask_below(const float* __restrict__ scores, float threshold,
                           unsigned char* __restrict__ keep, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keep[i] = scores[i] >= threshold;
}

// k-th largest score of a descending-sorted array
static float kth_score(const float* sorted_desc, int k) { return sorted_desc[k - 1]; }  // EXPECT: host_deref_device_ptr

int main(int argc, char** argv) {
  const int n = 1 << 20;
  const int k = argc > 1 ? std::atoi(argv[1]) : 100;

  thrust::host_vector<float4> h_feats(n);
  for (int i = 0; i < n; ++i)
    h_feats[i] = make_float4((i % 97) / 97.f, (i % 89) / 89.f, (i % 83) / 83.f, (i % 79) / 79.f);
  thrust::device_vector<float4> d_feats = h_feats;
  thrust::device_vector<float> d_scores(n);
  thrust::device_vector<float> d_sorted(n);
  thrust::device_vector<unsigned char> d_keep(n);

  const float4 query = make_float4(0.4f, 0.3f, 0.2f, 0.1f);
  const int block = 256, grid = (n + block - 1) / block;
  float* scores = thrust::raw_pointer_cast(d_scores.data());
  score_candidates<<<grid, block>>>(thrust::raw_pointer_cast(d_feats.data()), query, scores, n);

  thrust::copy(d_scores.begin(), d_scores.end(), d_sorted.begin());
  thrust::sort(d_sorted.begin(), d_sorted.end(), thrust::greater<float>());
  const float* sorted = thrust::raw_pointer_cast(d_sorted.data());

  const float threshold = kth_score(sorted, k);
  mask_below<<<grid, block>>>(scores, threshold, thrust::raw_pointer_cast(d_keep.data()), n);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(err));
    return 1;
  }

  thrust::host_vector<unsigned char> h_keep = d_keep;
  size_t kept = 0;
  for (unsigned char v : h_keep) kept += v;
  const size_t expected = thrust::count_if(d_scores.begin(), d_scores.end(), AboveThreshold{threshold});
  std::printf("threshold %.5f keeps %zu candidates (%zu by count_if)\n", threshold, kept, expected);
  return 0;
}
