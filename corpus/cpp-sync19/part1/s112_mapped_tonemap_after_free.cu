// case: HDR tone mapping writes straight into mapped pinned memory (cudaHostAllocMapped); the host frees the lookup table of the earlier, already-waited stage and then reads the mapped output, ordered after the kernel only by that cudaFree
// expect: relies_on_implicit_sync=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t err = (call);                                                  \
    if (err != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err));  \
      return 1;                                                                \
    }                                                                          \
  } while (0)

constexpr int kLutSize = 4096;

__global__ void build_gamma_lut(float* lut, float gamma) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kLutSize) lut[i] = powf(i / float(kLutSize - 1), 1.f / gamma);
}

__global__ void apply_lut(const float* __restrict__ in, const float* __restrict__ lut,
                          float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = fminf(fmaxf(in[i], 0.f), 1.f);
  out[i] = lut[static_cast<int>(v * (kLutSize - 1))];
}

__global__ void reinhard_to_8bit(const float* __restrict__ lin, unsigned char* __restrict__ out,
                                 int n, float exposure) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = lin[i] * exposure;
  out[i] = static_cast<unsigned char>(255.f * v / (1.f + v));
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 3840 * 2160;

  CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));

  std::vector<float> hdr(n);
  for (int i = 0; i < n; ++i) hdr[i] = 0.5f + 0.5f * std::sin(0.0005f * i);

  unsigned char* h_ldr = nullptr;
  unsigned char* d_ldr_alias = nullptr;
  CUDA_CHECK(cudaHostAlloc(&h_ldr, n, cudaHostAllocMapped));
  CUDA_CHECK(cudaHostGetDevicePointer(&d_ldr_alias, h_ldr, 0));

  float *d_hdr = nullptr, *d_lin = nullptr, *d_lut = nullptr;
  CUDA_CHECK(cudaMalloc(&d_hdr, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_lin, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_lut, kLutSize * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_hdr, hdr.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const int threads = 256, blocks = (n + threads - 1) / threads;
  build_gamma_lut<<<(kLutSize + 255) / 256, 256>>>(d_lut, 2.2f);
  apply_lut<<<blocks, threads>>>(d_hdr, d_lut, d_lin, n);
  std::vector<float> preview(n);
  CUDA_CHECK(cudaMemcpy(preview.data(), d_lin, n * sizeof(float), cudaMemcpyDeviceToHost));

  reinhard_to_8bit<<<blocks, threads>>>(d_lin, d_ldr_alias, n, 1.5f);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaFree(d_lut));

  unsigned long long luminance = 0;
  for (int i = 0; i < n; ++i) luminance += h_ldr[i];  // EXPECT: relies_on_implicit_sync
  std::printf("preview[0] = %.3f, mean 8-bit value %.2f\n", preview[0], double(luminance) / n);

  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaFree(d_hdr));
  CUDA_CHECK(cudaFree(d_lin));
  CUDA_CHECK(cudaFreeHost(h_ldr));
  return 0;
}
