// case: ReLU/clamp utility whose output pointer starts as nullptr and is either aliased to the input (in-place mode) or cudaMalloc'd, so it holds memory on every path before the launch and readback
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

constexpr int kN = 1 << 21;

__global__ void clamp_relu(const float *in, float *out, float hi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fminf(fmaxf(in[i], 0.0f), hi);
}

int main(int argc, char **argv)
{
    bool in_place = argc > 1 && std::strcmp(argv[1], "--in-place") == 0;

    std::vector<float> h(kN);
    for (int i = 0; i < kN; ++i) h[i] = float(i % 200) - 100.0f;

    float *d_src = nullptr;
    float *d_dst = nullptr;
    CUDA_CHECK(cudaMalloc(&d_src, kN * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_src, h.data(), kN * sizeof(float), cudaMemcpyHostToDevice));

    if (in_place)
        d_dst = d_src;
    else
        CUDA_CHECK(cudaMalloc(&d_dst, kN * sizeof(float)));

    clamp_relu<<<kN / 256, 256>>>(d_src, d_dst, 6.0f, kN);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h.data(), d_dst, kN * sizeof(float), cudaMemcpyDeviceToHost));

    double s = 0.0;
    for (float v : h) s += v;
    std::printf("sum after clamp %.1f (%s)\n", s, in_place ? "in place" : "out of place");

    if (!in_place) CUDA_CHECK(cudaFree(d_dst));
    CUDA_CHECK(cudaFree(d_src));
    return 0;
}
