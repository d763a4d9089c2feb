// case: RETURN_ON_ERROR macro runs its cleanup arguments (cudaFree of the kernel's buffers) and returns when the post-launch error check fails: that path frees while the argmax kernel may still run
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <vector>

// On failure: report, run the cleanup statements given after the call, return the error.
#define RETURN_ON_ERROR(call, ...)                                                        \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                   cudaGetErrorString(err_));                                             \
      __VA_ARGS__;                                                                        \
      return err_;                                                                        \
    }                                                                                     \
  } while (0)

__global__ void argmax_kernel(const float* scores, int n, int* best) {
  __shared__ float s_val[256];
  __shared__ int s_idx[256];
  float v = -FLT_MAX;
  int idx = -1;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (scores[i] > v) { v = scores[i]; idx = i; }
  }
  s_val[threadIdx.x] = v;
  s_idx[threadIdx.x] = idx;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride && s_val[threadIdx.x + stride] > s_val[threadIdx.x]) {
      s_val[threadIdx.x] = s_val[threadIdx.x + stride];
      s_idx[threadIdx.x] = s_idx[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *best = s_idx[0];
}

cudaError_t best_candidate(const std::vector<float>& scores, int* best_out) {
  const int n = static_cast<int>(scores.size());
  float* d_scores = nullptr;
  int* d_best = nullptr;
  RETURN_ON_ERROR(cudaMalloc(&d_scores, n * sizeof(float)), (void)0);
  RETURN_ON_ERROR(cudaMalloc(&d_best, sizeof(int)), cudaFree(d_scores));
  RETURN_ON_ERROR(cudaMemcpy(d_scores, scores.data(), n * sizeof(float), cudaMemcpyHostToDevice),
                  cudaFree(d_scores), cudaFree(d_best));

  argmax_kernel<<<1, 256>>>(d_scores, n, d_best);
  RETURN_ON_ERROR(cudaGetLastError(), cudaFree(d_scores), cudaFree(d_best));  // EXPECT: relies_on_implicit_sync

  RETURN_ON_ERROR(cudaMemcpy(best_out, d_best, sizeof(int), cudaMemcpyDeviceToHost),
                  cudaFree(d_scores), cudaFree(d_best));
  cudaFree(d_scores);
  cudaFree(d_best);
  return cudaSuccess;
}

int main() {
  std::vector<float> scores(50000);
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = static_cast<float>((i * 48271) % 65521);
  int best = -1;
  cudaError_t err = best_candidate(scores, &best);
  std::printf("best=%d (%s)\n", best, cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
