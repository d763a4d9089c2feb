// case: Paged KV cache maps one physical block twice (a pool view used for appends and a per-sequence view used for attention); the fused append_and_score kernel stores the new key through the pool view and then reads keys through the sequence view in the same launch with no fence.proxy.alias between them.
// expect: unfenced_vmm_alias=1
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

constexpr int kDim = 128;
constexpr int kTokens = 256;

__global__ void append_and_score(float* pool_k, const float* seq_k, const float* q, const float* k_new,
                                 float* scores, int pos) {
  for (int d = threadIdx.x; d < kDim; d += blockDim.x) pool_k[pos * kDim + d] = k_new[d] * (1.0f + 0.001f * pos);
  __syncthreads();
  for (int t = threadIdx.x; t <= pos; t += blockDim.x) {
    float s = 0.f;
    for (int d = 0; d < kDim; ++d) s += q[d] * seq_k[t * kDim + d];
    scores[t] = s;
  }
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
  const size_t block_bytes = (size_t(kTokens) * kDim * sizeof(float) + gran - 1) / gran * gran;

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

  std::vector<float> h_q(kDim), h_k(kDim);
  for (int d = 0; d < kDim; ++d) {
    h_q[d] = 0.02f * (d % 13);
    h_k[d] = 1.0f - 0.005f * d;
  }
  float *d_q, *d_k, *d_scores, *h_scores;
  CUDA_CHECK(cudaMalloc(&d_q, kDim * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_k, kDim * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_scores, kTokens * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_scores, kTokens * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_q, h_q.data(), kDim * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_k, h_k.data(), kDim * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  for (int pos = 0; pos < kTokens; ++pos) {
    append_and_score<<<1, 128, 0, stream>>>((float*)pool_view, (const float*)seq_view, d_q, d_k, d_scores, pos);  // EXPECT: unfenced_vmm_alias
    CUDA_CHECK(cudaMemcpyAsync(h_scores, d_scores, (pos + 1) * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (pos % 64 == 63) printf("pos %d: score[pos] = %.4f\n", pos, h_scores[pos]);
  }

  CUDA_CHECK(cudaStreamDestroy(stream));
  CU_CHECK(cuMemUnmap(seq_view, block_bytes));
  CU_CHECK(cuMemUnmap(pool_view, block_bytes));
  CU_CHECK(cuMemRelease(block));
  CU_CHECK(cuMemAddressFree(seq_view, block_bytes));
  CU_CHECK(cuMemAddressFree(pool_view, block_bytes));
  CUDA_CHECK(cudaFree(d_q));
  CUDA_CHECK(cudaFree(d_k));
  CUDA_CHECK(cudaFree(d_scores));
  CUDA_CHECK(cudaFreeHost(h_scores));
  return 0;
}
