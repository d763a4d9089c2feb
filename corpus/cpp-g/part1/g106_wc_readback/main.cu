// case: Staging buffers come from header helpers; the upload buffer is write-combined and only written (fine), but the readback helper also passes cudaHostAllocWriteCombined, and main scans that buffer for its maximum after the sync.
// expect: write_combined_host_read=1
#include <cfloat>
#include "pinned_alloc.h"

static const size_t kN = 1u << 23;

__global__ void blur3(const float* in, float* out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i == 0 || i + 1 >= n) return;
    out[i] = (in[i - 1] + in[i] + in[i + 1]) * (1.0f / 3.0f);
}

int main() {
    float* up = alloc_upload_buffer(kN);
    float* back = alloc_readback_buffer(kN);
    float *d_in, *d_out;
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    CHECK_CUDA(cudaMalloc(&d_in, kN * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_out, kN * sizeof(float)));
    CHECK_CUDA(cudaMemsetAsync(d_out, 0, kN * sizeof(float), s));

    for (size_t i = 0; i < kN; ++i) up[i] = float(i & 1023);

    CHECK_CUDA(cudaMemcpyAsync(d_in, up, kN * sizeof(float), cudaMemcpyHostToDevice, s));
    blur3<<<unsigned((kN + 255) / 256), 256, 0, s>>>(d_in, d_out, kN);
    CHECK_CUDA(cudaMemcpyAsync(back, d_out, kN * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));

    float vmax = -FLT_MAX;
    for (size_t i = 0; i < kN; ++i)
        if (back[i] > vmax) vmax = back[i];
    std::printf("max after blur: %f\n", vmax);

    cudaFree(d_out);
    cudaFree(d_in);
    cudaStreamDestroy(s);
    release_buffer(back);
    release_buffer(up);
    return 0;
}
