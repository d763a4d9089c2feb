// case: a LUT-based vector scaling program whose DRACC-style look-alikes are all correct: a global device pointer allocated in an init function called first, a float4 buffer filled by a byte-for-byte equal float copy, a memset before a read-only use, an optional mask left nullptr but tested in the kernel, an in-range offset readback, and a helper returning an allocation the caller frees.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define N 4096
#define LUT_SIZE 256
#define SKIP 16

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static float* g_dev_lut;
static float h_lut[LUT_SIZE];
static float h_src[4 * N];
static float h_out[N];

static void init_tables() {
    for (int i = 0; i < LUT_SIZE; ++i) h_lut[i] = 1.f + float(i) / LUT_SIZE;
    CUDA_CHECK(cudaMalloc(&g_dev_lut, LUT_SIZE * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(g_dev_lut, h_lut, LUT_SIZE * sizeof(float), cudaMemcpyHostToDevice));
}

static float* make_device_copy(const float* h, size_t n) {
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

__global__ void lut_scale(const float4* v, const float* lut, const unsigned char* mask, const float* bias,
                          const float* gain, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (mask != nullptr && !mask[i]) {
        out[i] = 0.f;
        return;
    }
    float4 p = v[i];
    float len2 = p.x * p.x + p.y * p.y + p.z * p.z + p.w * p.w;
    int slot = min(LUT_SIZE - 1, int(len2));
    out[i] = lut[slot] * gain[i % 4] * len2 + bias[i];
}

int main(int argc, char** argv) {
    const bool use_mask = argc > 1;
    init_tables();

    for (int i = 0; i < 4 * N; ++i) h_src[i] = float(i % 9) * 0.25f;
    float4* d_vec = nullptr;
    CUDA_CHECK(cudaMalloc(&d_vec, N * sizeof(float4)));
    CUDA_CHECK(cudaMemcpy(d_vec, h_src, 4 * N * sizeof(float), cudaMemcpyHostToDevice));

    float* d_bias = nullptr;
    CUDA_CHECK(cudaMalloc(&d_bias, N * sizeof(float)));
    CUDA_CHECK(cudaMemset(d_bias, 0, N * sizeof(float)));

    const float gains[4] = {1.f, 0.5f, 0.25f, 2.f};
    float* d_gain = make_device_copy(gains, 4);

    unsigned char* d_mask = nullptr;
    if (use_mask) {
        unsigned char h_mask[N];
        for (int i = 0; i < N; ++i) h_mask[i] = (i % 3) != 0;
        CUDA_CHECK(cudaMalloc(&d_mask, N));
        CUDA_CHECK(cudaMemcpy(d_mask, h_mask, N, cudaMemcpyHostToDevice));
    }

    float* d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_out, N * sizeof(float)));
    lut_scale<<<(N + 255) / 256, 256>>>(d_vec, g_dev_lut, d_mask, d_bias, d_gain, d_out, N);
    CUDA_CHECK(cudaGetLastError());
    // the first SKIP outputs are warm-up samples the report ignores
    CUDA_CHECK(cudaMemcpy(h_out + SKIP, d_out + SKIP, (N - SKIP) * sizeof(float), cudaMemcpyDeviceToHost));

    double acc = 0.0;
    for (int i = SKIP; i < N; ++i) acc += h_out[i];
    printf("scaled sum %.3f (mask %s)\n", acc, use_mask ? "on" : "off");

    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_mask));
    CUDA_CHECK(cudaFree(d_gain));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_vec));
    CUDA_CHECK(cudaFree(g_dev_lut));
    return 0;
}
