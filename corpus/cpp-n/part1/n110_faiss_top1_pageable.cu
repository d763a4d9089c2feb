// case: FAISS-like brute-force nearest-neighbour search (query count from argv) downloads distances and labels with cudaMemcpyAsync into std::vector buffers, i.e. pageable memory of a run-time size: both "async" downloads are staged and block the host; the reads after cudaStreamSynchronize are correct.
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int kDim = 64;

__global__ void l2_top1(const float* xb, int nb, const float* xq, int nq, float* dist, int64_t* label) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nq) return;
  float best = FLT_MAX;
  int64_t best_id = -1;
  for (int b = 0; b < nb; ++b) {
    float acc = 0.f;
    for (int d = 0; d < kDim; ++d) {
      float t = xq[size_t(q) * kDim + d] - xb[size_t(b) * kDim + d];
      acc += t * t;
    }
    if (acc < best) {
      best = acc;
      best_id = b;
    }
  }
  dist[q] = best;
  label[q] = best_id;
}

int main(int argc, char** argv) {
  const int nb = 50000;
  const int nq = argc > 1 ? atoi(argv[1]) : 10000;
  if (nq <= 0) return 1;

  std::vector<float> xb(size_t(nb) * kDim);
  for (size_t i = 0; i < xb.size(); ++i) xb[i] = float((i * 7919) % 1000) / 1000.0f;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  float *d_xb, *d_xq, *d_dist, *h_xq;
  int64_t* d_label;
  CUDA_CHECK(cudaMalloc(&d_xb, xb.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_xq, size_t(nq) * kDim * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_dist, size_t(nq) * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_label, size_t(nq) * sizeof(int64_t)));
  CUDA_CHECK(cudaMallocHost(&h_xq, size_t(nq) * kDim * sizeof(float)));
  for (size_t i = 0; i < size_t(nq) * kDim; ++i) h_xq[i] = float((i * 104729) % 1000) / 1000.0f;

  CUDA_CHECK(cudaMemcpy(d_xb, xb.data(), xb.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyAsync(d_xq, h_xq, size_t(nq) * kDim * sizeof(float), cudaMemcpyHostToDevice, stream));
  l2_top1<<<(nq + 127) / 128, 128, 0, stream>>>(d_xb, nb, d_xq, nq, d_dist, d_label);
  CUDA_CHECK(cudaGetLastError());

  std::vector<float> distances(nq);
  std::vector<int64_t> labels(nq);
  CUDA_CHECK(cudaMemcpyAsync(distances.data(), d_dist, size_t(nq) * sizeof(float), cudaMemcpyDeviceToHost, stream));  // EXPECT: pageable_async_copy
  CUDA_CHECK(cudaMemcpyAsync(labels.data(), d_label, size_t(nq) * sizeof(int64_t), cudaMemcpyDeviceToHost, stream));  // EXPECT: pageable_async_copy
  CUDA_CHECK(cudaStreamSynchronize(stream));

  for (int q = 0; q < 5 && q < nq; ++q) printf("q%d -> %lld (%.4f)\n", q, (long long)labels[q], distances[q]);

  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_xb));
  CUDA_CHECK(cudaFree(d_xq));
  CUDA_CHECK(cudaFree(d_dist));
  CUDA_CHECK(cudaFree(d_label));
  CUDA_CHECK(cudaFreeHost(h_xq));
  return 0;
}
