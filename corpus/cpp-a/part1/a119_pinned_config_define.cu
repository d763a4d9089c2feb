// case: seismic trace stacker whose host buffers come from cudaMallocHost because the file #defines USE_PINNED_STAGING; the malloc/free fallback arm is not compiled, so the async copies are from pinned memory and every free matches (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define USE_PINNED_STAGING 1

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "stack: %s\n", cudaGetErrorString(e_));              \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

static float* host_alloc(size_t bytes) {
  float* p = nullptr;
#ifdef USE_PINNED_STAGING
  CUDA_CHECK(cudaMallocHost(&p, bytes));
#else
  p = static_cast<float*>(std::malloc(bytes));
#endif
  return p;
}

static void host_free(float* p) {
#ifdef USE_PINNED_STAGING
  cudaFreeHost(p);
#else
  std::free(p);
#endif
}

// Normal-moveout-free stack: out[t] = mean over traces of in[trace, t]
__global__ void stack_traces(const float* __restrict__ traces, float* __restrict__ out, int ntraces, int nsamples) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nsamples) return;
  float acc = 0.f;
  for (int k = 0; k < ntraces; ++k) acc += traces[size_t(k) * nsamples + t];
  out[t] = acc / ntraces;
}

int main(int argc, char** argv) {
  const int ntraces = argc > 1 ? std::atoi(argv[1]) : 960;
  const int nsamples = argc > 2 ? std::atoi(argv[2]) : 6000;
  const size_t in_bytes = size_t(ntraces) * nsamples * sizeof(float);
  const size_t out_bytes = size_t(nsamples) * sizeof(float);

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* h_traces = host_alloc(in_bytes);
  float* h_stack = host_alloc(out_bytes);
  float *d_traces = nullptr, *d_stack = nullptr;
  CUDA_CHECK(cudaMalloc(&d_traces, in_bytes));
  CUDA_CHECK(cudaMalloc(&d_stack, out_bytes));

  for (int k = 0; k < ntraces; ++k)
    for (int t = 0; t < nsamples; ++t) h_traces[size_t(k) * nsamples + t] = ((t + k) % 97) * 0.01f;

  CUDA_CHECK(cudaMemcpyAsync(d_traces, h_traces, in_bytes, cudaMemcpyHostToDevice, s));
  stack_traces<<<(nsamples + 255) / 256, 256, 0, s>>>(d_traces, d_stack, ntraces, nsamples);
  CUDA_CHECK(cudaMemcpyAsync(h_stack, d_stack, out_bytes, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));

  float peak = 0.f;
  for (int t = 0; t < nsamples; ++t) peak = h_stack[t] > peak ? h_stack[t] : peak;
  std::printf("stack peak amplitude %f\n", peak);

  cudaFree(d_stack);
  cudaFree(d_traces);
  host_free(h_stack);
  host_free(h_traces);
  cudaStreamDestroy(s);
  return 0;
}
