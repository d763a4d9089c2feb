// case: A stream-compaction step allocates its optional validity mask only under #ifdef WITH_VALIDITY_MASK (not defined in this build) but the mask's initializing cudaMemset was left outside the #ifdef, so it is given a pointer that is still nullptr (the kernel itself tests the mask for null).
// expect: unallocated_pointer=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    const cudaError_t e = (call);                                              \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call,      \
                   cudaGetErrorString(e));                                     \
      std::exit(EXIT_FAILURE);                                                 \
    }                                                                          \
  } while (0)

// keeps the values above `cut` whose mask byte is set (or all of them when there is no mask)
__global__ void compact(const float* __restrict__ in, const uint8_t* __restrict__ valid,
                        float cut, int n, float* __restrict__ out, int* __restrict__ count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  bool keep = in[i] > cut;
  if (valid != nullptr) keep = keep && valid[i];
  if (keep) out[atomicAdd(count, 1)] = in[i];
}

int main(int argc, char** argv) {
  const int n = 1 << 22;
  const float cut = argc > 1 ? std::strtof(argv[1], nullptr) : 0.75f;

  std::vector<float> h_in(n);
  for (int i = 0; i < n; ++i) h_in[i] = static_cast<float>((i * 7919u) % 10007u) / 10007.f;

  float *d_in = nullptr, *d_out = nullptr;
  int* d_count = nullptr;
  uint8_t* d_valid = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_count, sizeof(int)));
#ifdef WITH_VALIDITY_MASK
  CUDA_CHECK(cudaMalloc(&d_valid, n * sizeof(uint8_t)));
#endif
  CUDA_CHECK(cudaMemset(d_valid, 1, n * sizeof(uint8_t)));  // EXPECT: unallocated_pointer
  CUDA_CHECK(cudaMemset(d_count, 0, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  compact<<<(n + 255) / 256, 256>>>(d_in, d_valid, cut, n, d_out, d_count);
  CUDA_CHECK(cudaGetLastError());

  int kept = 0;
  CUDA_CHECK(cudaMemcpy(&kept, d_count, sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<float> h_out(kept);
  if (kept > 0)
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, kept * sizeof(float), cudaMemcpyDeviceToHost));
  double mean = 0.0;
  for (float v : h_out) mean += v;
  std::printf("kept %d of %d (mean %.4f)\n", kept, n, kept ? mean / kept : 0.0);

  CUDA_CHECK(cudaFree(d_valid));
  CUDA_CHECK(cudaFree(d_count));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFree(d_in));
  return 0;
}
