// case: VMM-backed KV-cache block for one request: decode steps are enqueued on a stream, and the request's block is unmapped (cuMemUnmap, then released and its range freed) right after the last step is enqueued, while that decode kernel may still be reading and writing the mapping (vLLM #43020 / TensorRT-LLM #11641 pattern); the wait comes only after.
// expect: missing_sync=1
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

constexpr int kDim = 128;
constexpr int kSteps = 64;

// Appends the new key at `pos` and scores the query against keys 0..pos.
__global__ void decode_step(float* kv, const float* q, const float* k_new, float* scores, int pos) {
  for (int d = threadIdx.x; d < kDim; d += blockDim.x) kv[pos * kDim + d] = k_new[d] + 0.01f * pos;
  __syncthreads();
  for (int t = threadIdx.x; t <= pos; t += blockDim.x) {
    float s = 0.f;
    for (int d = 0; d < kDim; ++d) s += q[d] * kv[t * kDim + d];
    scores[t] = s;
  }
}

int main() {
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU_CHECK(cuCtxSetCurrent(ctx));

  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t gran = 0;
  CU_CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const size_t want = size_t(kSteps) * kDim * sizeof(float);
  const size_t kv_bytes = (want + gran - 1) / gran * gran;

  CUmemGenericAllocationHandle kv_handle;
  CU_CHECK(cuMemCreate(&kv_handle, kv_bytes, &prop, 0));
  CUdeviceptr kv_va;
  CU_CHECK(cuMemAddressReserve(&kv_va, kv_bytes, 0, 0, 0));
  CU_CHECK(cuMemMap(kv_va, kv_bytes, 0, kv_handle, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(cuMemSetAccess(kv_va, kv_bytes, &access, 1));

  std::vector<float> h_q(kDim), h_k(kDim);
  for (int d = 0; d < kDim; ++d) {
    h_q[d] = 1.0f / (1 + d);
    h_k[d] = 0.5f - 0.003f * d;
  }
  CUdeviceptr d_q, d_k, d_scores;
  CU_CHECK(cuMemAlloc(&d_q, kDim * sizeof(float)));
  CU_CHECK(cuMemAlloc(&d_k, kDim * sizeof(float)));
  CU_CHECK(cuMemAlloc(&d_scores, kSteps * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(d_q, h_q.data(), kDim * sizeof(float)));
  CU_CHECK(cuMemcpyHtoD(d_k, h_k.data(), kDim * sizeof(float)));
  float* h_scores = nullptr;
  CU_CHECK(cuMemAllocHost((void**)&h_scores, kSteps * sizeof(float)));

  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_DEFAULT));  // waits for the blocking uploads above
  for (int pos = 0; pos < kSteps; ++pos)
    decode_step<<<1, 128, 0, stream>>>((float*)kv_va, (const float*)d_q, (const float*)d_k,
                                       (float*)d_scores, pos);
  CU_CHECK(cuMemcpyDtoHAsync(h_scores, d_scores, kSteps * sizeof(float), stream));

  // Request finished: hand its KV block back to the pool right away.
  CU_CHECK(cuMemUnmap(kv_va, kv_bytes));  // EXPECT: missing_sync
  CU_CHECK(cuMemRelease(kv_handle));
  CU_CHECK(cuMemAddressFree(kv_va, kv_bytes));

  CU_CHECK(cuStreamSynchronize(stream));
  printf("last score %.5f\n", h_scores[kSteps - 1]);

  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuMemFree(d_q));
  CU_CHECK(cuMemFree(d_k));
  CU_CHECK(cuMemFree(d_scores));
  CU_CHECK(cuMemFreeHost(h_scores));
  CU_CHECK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
