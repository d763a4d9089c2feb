// case: Prefill writes a KV block through its pool mapping on a copy stream and records an event; the compute stream waits on that event before the attention kernel reads the same physical block through the per-sequence mapping, which is the documented way to order accesses through two aliases; teardown happens after both streams are synchronized.
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_CHECK(call)                                                          \
  do {                                                                          \
    CUresult r_ = (call);                                                       \
    if (r_ != CUDA_SUCCESS) {                                                   \
      const char* msg_ = nullptr;                                               \
      cuGetErrorString(r_, &msg_);                                              \
      fprintf(stderr, "%s failed: %s\n", #call, msg_ ? msg_ : "unknown");       \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)
#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int kDim = 64;
constexpr int kPrompt = 1024;

__global__ void rope_keys(float* pool_k, int n_tok) {
  int t = blockIdx.x;
  if (t >= n_tok) return;
  for (int d = threadIdx.x; d < kDim / 2; d += blockDim.x) {
    float theta = t * __powf(10000.0f, -2.0f * d / kDim);
    float c = __cosf(theta), s = __sinf(theta);
    float a = pool_k[t * kDim + 2 * d], b = pool_k[t * kDim + 2 * d + 1];
    pool_k[t * kDim + 2 * d] = a * c - b * s;
    pool_k[t * kDim + 2 * d + 1] = a * s + b * c;
  }
}

__global__ void attend(const float* seq_k, const float* q, float* scores, int n_tok) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n_tok) return;
  float s = 0.f;
  for (int d = 0; d < kDim; ++d) s += q[d] * seq_k[t * kDim + d];
  scores[t] = s;
}

int main() {
  CU_CHECK(cuInit(0));
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));

  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t gran = 0;
  CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const size_t prompt_bytes = size_t(kPrompt) * kDim * sizeof(float);
  const size_t block_bytes = (prompt_bytes + gran - 1) / gran * gran;

  CUmemGenericAllocationHandle block;
  CU_CHECK(cuMemCreate(&block, block_bytes, &prop, 0));
  CUdeviceptr pool_view, seq_view;
  CU_CHECK(cuMemAddressReserve(&pool_view, block_bytes, 0, 0, 0));
  CU_CHECK(cuMemAddressReserve(&seq_view, block_bytes, 0, 0, 0));
  CU_CHECK(cuMemMap(pool_view, block_bytes, 0, block, 0));
  CU_CHECK(cuMemMap(seq_view, block_bytes, 0, block, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(cuMemSetAccess(pool_view, block_bytes, &access, 1));
  CU_CHECK(cuMemSetAccess(seq_view, block_bytes, &access, 1));

  float *h_prompt_k, *h_scores, *d_q, *d_scores;
  CUDA_CHECK(cudaMallocHost(&h_prompt_k, prompt_bytes));
  CUDA_CHECK(cudaMallocHost(&h_scores, kPrompt * sizeof(float)));
  for (size_t i = 0; i < size_t(kPrompt) * kDim; ++i) h_prompt_k[i] = float(i % 17) * 0.05f;
  std::vector<float> h_q(kDim);
  for (int d = 0; d < kDim; ++d) h_q[d] = 0.1f * float(d % 5);
  CUDA_CHECK(cudaMalloc(&d_q, kDim * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_scores, kPrompt * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_q, h_q.data(), kDim * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t copy_stream, compute_stream;
  CUDA_CHECK(cudaStreamCreate(&copy_stream));
  CUDA_CHECK(cudaStreamCreate(&compute_stream));
  cudaEvent_t prefilled;
  CUDA_CHECK(cudaEventCreateWithFlags(&prefilled, cudaEventDisableTiming));

  CUDA_CHECK(cudaMemcpyAsync((void*)pool_view, h_prompt_k, prompt_bytes, cudaMemcpyHostToDevice, copy_stream));
  rope_keys<<<kPrompt, 32, 0, copy_stream>>>((float*)pool_view, kPrompt);
  CUDA_CHECK(cudaEventRecord(prefilled, copy_stream));
  CUDA_CHECK(cudaStreamWaitEvent(compute_stream, prefilled, 0));
  attend<<<(kPrompt + 127) / 128, 128, 0, compute_stream>>>((const float*)seq_view, d_q, d_scores, kPrompt);
  CUDA_CHECK(cudaMemcpyAsync(h_scores, d_scores, kPrompt * sizeof(float), cudaMemcpyDeviceToHost, compute_stream));
  CUDA_CHECK(cudaStreamSynchronize(compute_stream));
  CUDA_CHECK(cudaStreamSynchronize(copy_stream));
  printf("score[0] = %.4f, score[last] = %.4f\n", h_scores[0], h_scores[kPrompt - 1]);

  CUDA_CHECK(cudaEventDestroy(prefilled));
  CUDA_CHECK(cudaStreamDestroy(copy_stream));
  CUDA_CHECK(cudaStreamDestroy(compute_stream));
  CU_CHECK(cuMemUnmap(seq_view, block_bytes));
  CU_CHECK(cuMemUnmap(pool_view, block_bytes));
  CU_CHECK(cuMemRelease(block));
  CU_CHECK(cuMemAddressFree(seq_view, block_bytes));
  CU_CHECK(cuMemAddressFree(pool_view, block_bytes));
  CUDA_CHECK(cudaFree(d_q));
  CUDA_CHECK(cudaFree(d_scores));
  CUDA_CHECK(cudaFreeHost(h_prompt_k));
  CUDA_CHECK(cudaFreeHost(h_scores));
  return 0;
}
