// case: near miss: linear blend into managed memory on a blocking stream; after freeing a buffer whose kernel was already waited for, the host polls cudaEventQuery on an event recorded after the blend until it is ready, then reads the managed result
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t err = (call);                                                 \
    if (err != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
      return EXIT_FAILURE;                                                    \
    }                                                                         \
  } while (0)

__global__ void fill_ramp(float* x, int n, float scale) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = scale * i / n;
}

__global__ void smooth3(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float l = in[i > 0 ? i - 1 : 0], r = in[i < n - 1 ? i + 1 : n - 1];
  out[i] = (l + in[i] + r) / 3.f;
}

__global__ void blend(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                      int n, float t) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (1.f - t) * a[i] + t * b[i];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 22);
  const int threads = 256, blocks = (n + threads - 1) / threads;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  cudaEvent_t done;
  CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));

  float *d_a = nullptr, *d_b = nullptr, *d_seed = nullptr, *out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_a, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_seed, n * sizeof(float)));
  CUDA_CHECK(cudaMallocManaged(&out, n * sizeof(float)));

  fill_ramp<<<blocks, threads, 0, stream>>>(d_seed, n, 1.f);
  smooth3<<<blocks, threads, 0, stream>>>(d_seed, d_a, n);
  fill_ramp<<<blocks, threads, 0, stream>>>(d_b, n, -1.f);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  blend<<<blocks, threads, 0, stream>>>(d_a, d_b, out, n, 0.25f);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(done, stream));
  CUDA_CHECK(cudaFree(d_seed));

  long spins = 0;
  while (cudaEventQuery(done) == cudaErrorNotReady) ++spins;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += out[i];
  std::printf("mean %.6f after %ld spins\n", sum / n, spins);

  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaFree(out));
  CUDA_CHECK(cudaEventDestroy(done));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
