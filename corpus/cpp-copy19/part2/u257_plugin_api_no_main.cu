// case: a shared-library plugin exposing create/run/fetch/destroy entry points; the free of the kernel's output is in plugin_destroy(), which no code in this program calls (the host application does).
// expect: none
#include <cuda_runtime.h>
#include <cstdlib>
#include <new>

struct PluginCtx {
    int n;
    float* d_in;
    float* d_out;
    cudaStream_t stream;
};

__global__ void soft_clip(const float* in, float* out, int n, float limit)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i] / limit;
        out[i] = limit * x / (1.0f + fabsf(x));
    }
}

extern "C" PluginCtx* plugin_create(int n)
{
    PluginCtx* ctx = new (std::nothrow) PluginCtx;
    if (!ctx) return nullptr;
    ctx->n = n;
    if (cudaStreamCreate(&ctx->stream) != cudaSuccess) { delete ctx; return nullptr; }
    cudaMalloc(&ctx->d_in, n * sizeof(float));
    cudaMalloc(&ctx->d_out, n * sizeof(float));
    return ctx;
}

extern "C" int plugin_run(PluginCtx* ctx, const float* host_in, float limit)
{
    cudaMemcpy(ctx->d_in, host_in, ctx->n * sizeof(float), cudaMemcpyHostToDevice);
    soft_clip<<<(ctx->n + 255) / 256, 256, 0, ctx->stream>>>(ctx->d_in, ctx->d_out, ctx->n, limit);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

extern "C" int plugin_fetch(PluginCtx* ctx, float* host_out)
{
    cudaStreamSynchronize(ctx->stream);
    return cudaMemcpy(host_out, ctx->d_out, ctx->n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : -1;
}

extern "C" void plugin_destroy(PluginCtx* ctx)
{
    if (!ctx) return;
    cudaStreamSynchronize(ctx->stream);
    cudaFree(ctx->d_in);
    cudaFree(ctx->d_out);
    cudaStreamDestroy(ctx->stream);
    delete ctx;
}
