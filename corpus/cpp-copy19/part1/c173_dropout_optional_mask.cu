// case: dropout kernel whose keep-mask output is optional and guarded with `if (!mask_out)` before any write; inference mode passes a null mask pointer
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int kElems = 1 << 20;

__device__ uint32_t hash32(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
    return x;
}

__global__ void dropout(const float *in, float *out, uint8_t *mask_out, float p, uint32_t seed, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bool keep = (hash32(seed ^ uint32_t(i)) & 0xffffff) >= uint32_t(p * 16777216.0f);
    out[i] = keep ? in[i] / (1.0f - p) : 0.0f;
    if (!mask_out) return;
    mask_out[i] = keep;
}

int main()
{
    std::vector<float> h_in(kElems, 1.0f), h_out(kElems);
    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, kElems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, kElems * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in.data(), kElems * sizeof(float), cudaMemcpyHostToDevice));

    uint8_t *d_mask = nullptr;  // inference: the mask is not kept for a backward pass
    dropout<<<kElems / 256, 256>>>(d_in, d_out, d_mask, 0.1f, 1234u, kElems);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, kElems * sizeof(float), cudaMemcpyDeviceToHost));

    double mean = 0.0;
    for (float v : h_out) mean += v;
    std::printf("mean after dropout %.4f\n", mean / kElems);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}
