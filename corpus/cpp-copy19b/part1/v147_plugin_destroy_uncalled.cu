// case: a plugin-style C API for a denoising filter whose run function's kernel writes the context's output buffer, freed in a destroy function that no code in the program calls (the host application does, after reading the output through the getter)
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

struct DenoiseCtx {
  int width;
  int height;
  float strength;
  float *d_in;
  float *d_out;
  cudaStream_t stream;
};

__global__ void bilateral3x3(const float *in, float *out, int w, int h, float sigma_r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float c = in[y * w + x], acc = 0.f, wsum = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
      float v = in[yy * w + xx];
      float wt = __expf(-(v - c) * (v - c) / (2.f * sigma_r * sigma_r));
      acc += wt * v;
      wsum += wt;
    }
  out[y * w + x] = acc / wsum;
}

extern "C" DenoiseCtx *denoise_create(int width, int height, float strength) {
  DenoiseCtx *ctx = new DenoiseCtx{width, height, strength, nullptr, nullptr, nullptr};
  size_t bytes = (size_t)width * height * sizeof(float);
  if (cudaStreamCreate(&ctx->stream) != cudaSuccess || cudaMalloc(&ctx->d_in, bytes) != cudaSuccess ||
      cudaMalloc(&ctx->d_out, bytes) != cudaSuccess) {
    cudaFree(ctx->d_in);
    cudaFree(ctx->d_out);
    if (ctx->stream) cudaStreamDestroy(ctx->stream);
    delete ctx;
    return nullptr;
  }
  return ctx;
}

extern "C" int denoise_run(DenoiseCtx *ctx, const float *host_frame) {
  size_t bytes = (size_t)ctx->width * ctx->height * sizeof(float);
  if (cudaMemcpyAsync(ctx->d_in, host_frame, bytes, cudaMemcpyHostToDevice, ctx->stream) != cudaSuccess)
    return -1;
  dim3 block(16, 16);
  dim3 grid((ctx->width + 15) / 16, (ctx->height + 15) / 16);
  bilateral3x3<<<grid, block, 0, ctx->stream>>>(ctx->d_in, ctx->d_out, ctx->width, ctx->height,
                                                ctx->strength);
  return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

extern "C" const float *denoise_device_output(const DenoiseCtx *ctx) { return ctx->d_out; }

extern "C" void denoise_destroy(DenoiseCtx *ctx) {
  if (!ctx) return;
  cudaStreamSynchronize(ctx->stream);
  cudaFree(ctx->d_in);
  cudaFree(ctx->d_out);
  cudaStreamDestroy(ctx->stream);
  delete ctx;
}
