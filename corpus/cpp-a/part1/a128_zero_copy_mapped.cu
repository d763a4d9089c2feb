// case: Monte-Carlo convergence flags in mapped (zero-copy) pinned memory: kernels write through the device alias from cudaHostGetDevicePointer, the host reads the host pointer only after cudaStreamSynchronize, and frees the host pointer with cudaFreeHost (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "mc: %s (%s)\n", #call, cudaGetErrorString(e_));     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

struct ChainStatus {
  unsigned int accepted;
  unsigned int proposed;
  float last_energy;
  int converged;
};

__device__ __forceinline__ unsigned int lcg(unsigned int& s) {
  s = s * 1664525u + 1013904223u;
  return s;
}

// One Metropolis chain per thread on a 1-D double-well potential.
__global__ void metropolis(float* state, ChainStatus* status, int chains, int sweeps, float beta, unsigned seed) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= chains) return;
  unsigned int rng = seed ^ (c * 747796405u);
  float x = state[c];
  float e = (x * x - 1.f) * (x * x - 1.f);
  unsigned int acc = 0;
  for (int k = 0; k < sweeps; ++k) {
    float xn = x + ((lcg(rng) & 0xFFFF) / 65535.f - 0.5f) * 0.4f;
    float en = (xn * xn - 1.f) * (xn * xn - 1.f);
    if (en <= e || __expf(-beta * (en - e)) > (lcg(rng) & 0xFFFF) / 65535.f) {
      x = xn;
      e = en;
      ++acc;
    }
  }
  state[c] = x;
  status[c].accepted += acc;
  status[c].proposed += sweeps;
  status[c].last_energy = e;
  status[c].converged = e < 1e-3f;
}

int main() {
  CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  const int chains = 1 << 14;
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  ChainStatus* h_status = nullptr;
  CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_status), chains * sizeof(ChainStatus), cudaHostAllocMapped));
  ChainStatus* d_status = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_status), h_status, 0));
  for (int c = 0; c < chains; ++c) h_status[c] = ChainStatus{0u, 0u, 0.f, 0};

  float* d_state = nullptr;
  CUDA_CHECK(cudaMalloc(&d_state, chains * sizeof(float)));
  CUDA_CHECK(cudaMemsetAsync(d_state, 0, chains * sizeof(float), s));

  int round = 0;
  int converged = 0;
  while (converged < chains * 9 / 10 && round < 100) {
    metropolis<<<(chains + 255) / 256, 256, 0, s>>>(d_state, d_status, chains, 1000, 4.f, 1234u + round);
    CUDA_CHECK(cudaStreamSynchronize(s));
    converged = 0;
    for (int c = 0; c < chains; ++c) converged += h_status[c].converged;
    ++round;
  }
  std::printf("%d of %d chains converged after %d rounds; acceptance %.3f\n", converged, chains, round,
              double(h_status[0].accepted) / double(h_status[0].proposed));

  cudaFree(d_state);
  cudaFreeHost(h_status);
  cudaStreamDestroy(s);
  return 0;
}
