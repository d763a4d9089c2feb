// case: A particle-count solver uploads a 64-byte parameter struct and a 16-float coefficient array from the stack with cudaMemcpyAsync (tiny, latency-bound copies), and overlaps CPU work by polling cudaStreamQuery until the stream is idle before reading its pinned result: correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));          \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct alignas(16) SolverParams {
  float x0, x1, tolerance, damping;
  int max_iter, degree, samples, pad;
  float reserved[8];
};
static_assert(sizeof(SolverParams) == 64, "params must stay 64 bytes");

// counts sample points where the polynomial sum(coeffs[k] x^k) is below zero
__global__ void count_negative(const SolverParams* __restrict__ p, const float* __restrict__ coeffs,
                               unsigned int* __restrict__ count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p->samples) return;
  float x = p->x0 + (p->x1 - p->x0) * i / (p->samples - 1);
  float v = 0.f;
  for (int k = p->degree; k >= 0; --k) v = v * x + coeffs[k];
  if (v < 0.f) atomicAdd(count, 1u);
}

static double cpu_side_work(int rounds) {
  double acc = 0.0;
  for (int r = 0; r < rounds; ++r) acc += std::sqrt(double(r) + acc * 1e-9);
  return acc;
}

int main() {
  SolverParams params = {};
  params.x0 = -3.f;
  params.x1 = 3.f;
  params.tolerance = 1e-6f;
  params.damping = 1.f;
  params.max_iter = 50;
  params.degree = 5;
  params.samples = 1 << 24;
  float coeffs[16] = {-1.f, 0.5f, 2.f, -0.3f, -0.8f, 0.1f};

  SolverParams* d_params = nullptr;
  float* d_coeffs = nullptr;
  unsigned int* d_count = nullptr;
  unsigned int* h_count = nullptr;
  CHECK(cudaMalloc(&d_params, sizeof(SolverParams)));
  CHECK(cudaMalloc(&d_coeffs, sizeof(coeffs)));
  CHECK(cudaMalloc(&d_count, sizeof(unsigned int)));
  CHECK(cudaMallocHost(&h_count, sizeof(unsigned int)));

  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaMemcpyAsync(d_params, &params, sizeof(params), cudaMemcpyHostToDevice, s));
  CHECK(cudaMemcpyAsync(d_coeffs, coeffs, sizeof(coeffs), cudaMemcpyHostToDevice, s));
  CHECK(cudaMemsetAsync(d_count, 0, sizeof(unsigned int), s));
  count_negative<<<(params.samples + 255) / 256, 256, 0, s>>>(d_params, d_coeffs, d_count);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(h_count, d_count, sizeof(unsigned int), cudaMemcpyDeviceToHost, s));

  double side = 0.0;
  int polls = 0;
  cudaError_t q;
  while ((q = cudaStreamQuery(s)) == cudaErrorNotReady) {
    side += cpu_side_work(10000);
    ++polls;
  }
  CHECK(q);

  std::printf("negative at %u of %d samples (%d polls, side result %.1f)\n", *h_count,
              params.samples, polls, side);

  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFreeHost(h_count));
  CHECK(cudaFree(d_count));
  CHECK(cudaFree(d_coeffs));
  CHECK(cudaFree(d_params));
  return 0;
}
