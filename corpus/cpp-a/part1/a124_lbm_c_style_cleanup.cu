// case: C-style lattice-Boltzmann context (typedef struct, init/destroy functions); lbm_destroy releases the cudaHostAlloc'd input with free() and calls cudaHostUnregister on the cudaMallocHost'd output that was never registered (left over from an older malloc+register version)
// expect: mismatched_free=2
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "lbm: %s failed: %s\n", #call, cudaGetErrorString(e_));   \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

#define Q 9

typedef struct {
  int nx, ny;
  size_t cells;
  float* h_init;    /* initial distributions, pinned (cudaHostAlloc) */
  float* h_rho;     /* density readback, pinned (cudaMallocHost) */
  float* d_f;       /* distributions f[q * cells + c] */
  float* d_f_tmp;
  float* d_rho;
  cudaStream_t stream;
} lbm_ctx_t;

__constant__ float c_w[Q] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
__constant__ int c_ex[Q] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int c_ey[Q] = {0, 0, 1, 0, -1, 1, 1, -1, -1};

__global__ void collide_stream(const float* f, float* f_out, float* rho_out, int nx, int ny, float omega) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  size_t cells = (size_t)nx * ny;
  size_t c = (size_t)y * nx + x;
  float fi[Q], rho = 0.f, ux = 0.f, uy = 0.f;
  for (int q = 0; q < Q; ++q) {
    fi[q] = f[q * cells + c];
    rho += fi[q];
    ux += fi[q] * c_ex[q];
    uy += fi[q] * c_ey[q];
  }
  ux /= rho;
  uy /= rho;
  for (int q = 0; q < Q; ++q) {
    float eu = c_ex[q] * ux + c_ey[q] * uy;
    float feq = c_w[q] * rho * (1.f + 3.f * eu + 4.5f * eu * eu - 1.5f * (ux * ux + uy * uy));
    int xn = (x + c_ex[q] + nx) % nx, yn = (y + c_ey[q] + ny) % ny;
    f_out[q * cells + (size_t)yn * nx + xn] = fi[q] + omega * (feq - fi[q]);
  }
  rho_out[c] = rho;
}

static void lbm_init(lbm_ctx_t* ctx, int nx, int ny) {
  memset(ctx, 0, sizeof(*ctx));
  ctx->nx = nx;
  ctx->ny = ny;
  ctx->cells = (size_t)nx * ny;
  CUDA_CHECK(cudaStreamCreate(&ctx->stream));
  CUDA_CHECK(cudaHostAlloc((void**)&ctx->h_init, Q * ctx->cells * sizeof(float), cudaHostAllocDefault));
  CUDA_CHECK(cudaMallocHost((void**)&ctx->h_rho, ctx->cells * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void**)&ctx->d_f, Q * ctx->cells * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void**)&ctx->d_f_tmp, Q * ctx->cells * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void**)&ctx->d_rho, ctx->cells * sizeof(float)));

  const float w[Q] = {4.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
  for (int q = 0; q < Q; ++q)
    for (size_t c = 0; c < ctx->cells; ++c) ctx->h_init[q * ctx->cells + c] = w[q];
  CUDA_CHECK(cudaMemcpyAsync(ctx->d_f, ctx->h_init, Q * ctx->cells * sizeof(float), cudaMemcpyHostToDevice, ctx->stream));
}

static float lbm_run(lbm_ctx_t* ctx, int steps, float omega) {
  dim3 block(32, 8), grid((ctx->nx + 31) / 32, (ctx->ny + 7) / 8);
  for (int s = 0; s < steps; ++s) {
    collide_stream<<<grid, block, 0, ctx->stream>>>(ctx->d_f, ctx->d_f_tmp, ctx->d_rho, ctx->nx, ctx->ny, omega);
    float* t = ctx->d_f;
    ctx->d_f = ctx->d_f_tmp;
    ctx->d_f_tmp = t;
  }
  CUDA_CHECK(cudaMemcpyAsync(ctx->h_rho, ctx->d_rho, ctx->cells * sizeof(float), cudaMemcpyDeviceToHost, ctx->stream));
  CUDA_CHECK(cudaStreamSynchronize(ctx->stream));
  float mass = 0.f;
  for (size_t c = 0; c < ctx->cells; ++c) mass += ctx->h_rho[c];
  return mass;
}

static void lbm_destroy(lbm_ctx_t* ctx) {
  cudaStreamSynchronize(ctx->stream);
  cudaFree(ctx->d_rho);
  cudaFree(ctx->d_f_tmp);
  cudaFree(ctx->d_f);
  free(ctx->h_init);  // EXPECT: mismatched_free
  cudaHostUnregister(ctx->h_rho);  // EXPECT: mismatched_free
  cudaFreeHost(ctx->h_rho);
  cudaStreamDestroy(ctx->stream);
}

int main(void) {
  lbm_ctx_t ctx;
  lbm_init(&ctx, 1024, 512);
  float mass = lbm_run(&ctx, 1000, 1.2f);
  printf("total mass %f\n", mass);
  lbm_destroy(&ctx);
  return 0;
}
