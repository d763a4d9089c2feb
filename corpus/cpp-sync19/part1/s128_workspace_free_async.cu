// case: near miss: two-pass variance with a cudaMallocAsync workspace released by cudaFreeAsync on the same stream the kernels run on (stream-ordered free); the pinned result is read after cudaStreamSynchronize
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));       \
      return EXIT_FAILURE;                                                   \
    }                                                                        \
  } while (0)

constexpr int kThreads = 256;

__global__ void partial_moments(const float* __restrict__ x, double2* __restrict__ part, int n) {
  __shared__ double s1[kThreads], s2[kThreads];
  double a = 0.0, b = 0.0;
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    a += x[i];
    b += double(x[i]) * x[i];
  }
  s1[threadIdx.x] = a;
  s2[threadIdx.x] = b;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      s1[threadIdx.x] += s1[threadIdx.x + s];
      s2[threadIdx.x] += s2[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) part[blockIdx.x] = make_double2(s1[0], s2[0]);
}

__global__ void finish_moments(const double2* __restrict__ part, int parts, int n, double* __restrict__ out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  double a = 0.0, b = 0.0;
  for (int p = 0; p < parts; ++p) {
    a += part[p].x;
    b += part[p].y;
  }
  out[0] = a / n;
  out[1] = b / n - (a / n) * (a / n);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 25);
  const int parts = 1024;

  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  float* h_x = nullptr;
  double* h_moments = nullptr;
  CHECK(cudaMallocHost(&h_x, n * sizeof(float)));
  CHECK(cudaMallocHost(&h_moments, 2 * sizeof(double)));
  for (int i = 0; i < n; ++i) h_x[i] = std::sin(0.37f * i) * 2.f + 1.f;

  float* d_x = nullptr;
  double* d_moments = nullptr;
  double2* d_part = nullptr;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_moments, 2 * sizeof(double)));
  CHECK(cudaMemcpyAsync(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice, stream));

  CHECK(cudaMallocAsync(&d_part, parts * sizeof(double2), stream));
  partial_moments<<<parts, kThreads, 0, stream>>>(d_x, d_part, n);
  finish_moments<<<1, 32, 0, stream>>>(d_part, parts, n, d_moments);
  CHECK(cudaGetLastError());
  CHECK(cudaFreeAsync(d_part, stream));

  CHECK(cudaMemcpyAsync(h_moments, d_moments, 2 * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("mean %.6f variance %.6f\n", h_moments[0], h_moments[1]);

  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_moments));
  CHECK(cudaFreeHost(h_x));
  CHECK(cudaFreeHost(h_moments));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
