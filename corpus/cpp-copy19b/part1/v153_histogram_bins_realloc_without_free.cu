// case: a histogram tool that allocates counters for the default bin count and, when the user asks for another count, allocates again into the same pointer without freeing the first allocation
// expect: device_memory_leak=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define DEFAULT_BINS 64
#define NSAMPLES (1 << 22)
#define BLOCK 256

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
              cudaGetErrorString(e_));                                     \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

__global__ void histogram_float(const float *x, int n, float lo, float hi, unsigned int *bins, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int b = (int)((x[i] - lo) / (hi - lo) * nbins);
    b = b < 0 ? 0 : (b >= nbins ? nbins - 1 : b);
    atomicAdd(&bins[b], 1u);
  }
}

int main(int argc, char **argv) {
  std::vector<float> h_x(NSAMPLES);
  for (int i = 0; i < NSAMPLES; ++i) h_x[i] = (float)((i * 2654435761u) % 10007) / 10007.f;

  int nbins = DEFAULT_BINS;
  unsigned int *d_bins = nullptr;
  CUDA_CHECK(cudaMalloc(&d_bins, DEFAULT_BINS * sizeof(unsigned int))); // EXPECT: device_memory_leak

  if (argc > 1) {
    int requested = atoi(argv[1]);
    if (requested > 0 && requested != DEFAULT_BINS) {
      nbins = requested;
      CUDA_CHECK(cudaMalloc(&d_bins, nbins * sizeof(unsigned int)));
    }
  }

  float *d_x;
  CUDA_CHECK(cudaMalloc(&d_x, NSAMPLES * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), NSAMPLES * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_bins, 0, nbins * sizeof(unsigned int)));

  histogram_float<<<256, BLOCK>>>(d_x, NSAMPLES, 0.f, 1.f, d_bins, nbins);
  CUDA_CHECK(cudaGetLastError());

  std::vector<unsigned int> h_bins(nbins);
  CUDA_CHECK(cudaMemcpy(h_bins.data(), d_bins, nbins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < nbins && b < 8; ++b) printf("bin %d: %u\n", b, h_bins[b]);

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_bins));
  return 0;
}
