// case: a workspace struct is set up with checked calls, but its teardown function drops the statuses of two cudaFree calls and of cudaStreamDestroy.
// expect: unchecked_cuda_result=3
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t s_ = (call);                                               \
    if (s_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,              \
                   cudaGetErrorString(s_));                                \
      std::exit(2);                                                        \
    }                                                                      \
  } while (0)

struct Workspace {
  size_t n = 0;
  float* h_pinned = nullptr;
  float* d_in = nullptr;
  float* d_out = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
};

static void setup(Workspace& ws, size_t n) {
  ws.n = n;
  CUDA_CHECK(cudaMallocHost(&ws.h_pinned, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&ws.d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&ws.d_out, n * sizeof(float)));
  CUDA_CHECK(cudaStreamCreate(&ws.stream));
  CUDA_CHECK(cudaEventCreateWithFlags(&ws.done, cudaEventDisableTiming));
}

static void teardown(Workspace& ws) {
  cudaFree(ws.d_in);  // EXPECT: unchecked_cuda_result
  cudaFree(ws.d_out);  // EXPECT: unchecked_cuda_result
  CUDA_CHECK(cudaFreeHost(ws.h_pinned));
  cudaStreamDestroy(ws.stream);  // EXPECT: unchecked_cuda_result
  CUDA_CHECK(cudaEventDestroy(ws.done));
  ws = Workspace{};
}

__global__ void clamp01(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fminf(fmaxf(in[i], 0.0f), 1.0f);
}

int main() {
  Workspace ws;
  setup(ws, 1 << 20);
  const int n = static_cast<int>(ws.n);
  for (int i = 0; i < n; ++i) ws.h_pinned[i] = (i % 300) / 100.0f - 1.0f;

  CUDA_CHECK(cudaMemcpyAsync(ws.d_in, ws.h_pinned, ws.n * sizeof(float),
                             cudaMemcpyHostToDevice, ws.stream));
  clamp01<<<(n + 255) / 256, 256, 0, ws.stream>>>(ws.d_in, ws.d_out, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(ws.h_pinned, ws.d_out, ws.n * sizeof(float),
                             cudaMemcpyDeviceToHost, ws.stream));
  CUDA_CHECK(cudaEventRecord(ws.done, ws.stream));
  CUDA_CHECK(cudaEventSynchronize(ws.done));

  int clamped_low = 0, clamped_high = 0;
  for (int i = 0; i < n; ++i) {
    clamped_low += ws.h_pinned[i] == 0.0f;
    clamped_high += ws.h_pinned[i] == 1.0f;
  }
  std::printf("zeros %d, ones %d\n", clamped_low, clamped_high);

  teardown(ws);
  return 0;
}
