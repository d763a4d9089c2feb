// case: a heat-diffusion solver whose device state is either uploaded from a checkpoint file or filled by an init kernel, depending on a branch, before the step kernel reads it; each path writes it
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define N (1 << 20)
#define STEPS 500
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

__global__ void init_hot_spot(float *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) u[i] = (i > n / 2 - 1000 && i < n / 2 + 1000) ? 100.0f : 0.0f;
}

__global__ void diffuse(const float *u, float *u_new, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float left = i > 0 ? u[i - 1] : u[i];
  float right = i < n - 1 ? u[i + 1] : u[i];
  u_new[i] = u[i] + alpha * (left - 2.f * u[i] + right);
}

static bool load_checkpoint(const char *path, std::vector<float> &state) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  size_t got = fread(state.data(), sizeof(float), state.size(), f);
  fclose(f);
  return got == state.size();
}

int main(int argc, char **argv) {
  std::vector<float> h_u(N);
  bool resumed = argc > 1 && load_checkpoint(argv[1], h_u);

  float *d_u, *d_tmp;
  CUDA_CHECK(cudaMalloc(&d_u, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_tmp, N * sizeof(float)));

  const int grid = (N + BLOCK - 1) / BLOCK;
  if (resumed) {
    CUDA_CHECK(cudaMemcpy(d_u, h_u.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  } else {
    init_hot_spot<<<grid, BLOCK>>>(d_u, N);
  }

  for (int s = 0; s < STEPS; s += 2) {
    diffuse<<<grid, BLOCK>>>(d_u, d_tmp, 0.25f, N);
    diffuse<<<grid, BLOCK>>>(d_tmp, d_u, 0.25f, N);
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_u.data(), d_u, N * sizeof(float), cudaMemcpyDeviceToHost));

  double heat = 0.0;
  for (float v : h_u) heat += v;
  printf("%s run, total heat %.2f, center %.4f\n", resumed ? "resumed" : "fresh", heat, h_u[N / 2]);

  FILE *out = fopen("heat.ckpt", "wb");
  if (out) {
    fwrite(h_u.data(), sizeof(float), N, out);
    fclose(out);
  }
  CUDA_CHECK(cudaFree(d_u));
  CUDA_CHECK(cudaFree(d_tmp));
  return 0;
}
