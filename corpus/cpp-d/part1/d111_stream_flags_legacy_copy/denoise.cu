// case: bilateral denoise pass; pipeline_config.h sets PIPELINE_ASYNC_STREAMS, so the compute stream is created with cudaStreamNonBlocking, and the blocking cudaMemcpy that brings the filtered frame back (legacy default stream) does not wait for the filter kernel still running on it.
// expect: missing_sync=1
#include "pipeline_config.h"
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

__global__ void bilateral(const float* in, float* out, int w, int h, float sigma_s, float sigma_r)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float c = in[y * w + x], acc = 0.f, norm = 0.f;
    for (int dy = -PIPELINE_RADIUS; dy <= PIPELINE_RADIUS; ++dy)
        for (int dx = -PIPELINE_RADIUS; dx <= PIPELINE_RADIUS; ++dx) {
            int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
            float v = in[yy * w + xx];
            float wgt = __expf(-(dx * dx + dy * dy) / (2.f * sigma_s * sigma_s) -
                               (v - c) * (v - c) / (2.f * sigma_r * sigma_r));
            acc += wgt * v;
            norm += wgt;
        }
    out[y * w + x] = acc / norm;
}

static cudaStream_t make_compute_stream()
{
    cudaStream_t s;
#if PIPELINE_ASYNC_STREAMS
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
#else
    CUDA_CHECK(cudaStreamCreate(&s));
#endif
    return s;
}

int main()
{
    const int w = PIPELINE_WIDTH, h = PIPELINE_HEIGHT;
    const size_t bytes = (size_t)w * h * sizeof(float);

    float* h_frame = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_frame, bytes));
    for (int i = 0; i < w * h; ++i) h_frame[i] = (float)((i * 37) % 256) / 255.f;
    std::vector<float> h_out((size_t)w * h);

    float *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    cudaStream_t compute = make_compute_stream();

    // pinned source: this blocking copy has completed when it returns
    CUDA_CHECK(cudaMemcpy(d_in, h_frame, bytes, cudaMemcpyHostToDevice));

    dim3 block(PIPELINE_TILE, PIPELINE_TILE);
    dim3 grid((w + PIPELINE_TILE - 1) / PIPELINE_TILE, (h + PIPELINE_TILE - 1) / PIPELINE_TILE);
    bilateral<<<grid, block, 0, compute>>>(d_in, d_out, w, h, 2.0f, 0.1f);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost)); // EXPECT: missing_sync

    double mean = 0.0;
    for (float v : h_out) mean += v;
    printf("denoise: mean luminance %.4f\n", mean / h_out.size());

    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaStreamDestroy(compute));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFreeHost(h_frame));
    return 0;
}
