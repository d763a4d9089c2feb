// case: a batch feature normalizer leaks twice: the helper takes its moments buffer from cudaMallocAsync and returns early through a status macro when a launch fails without freeing it, and main's batch loop cudaMallocs a fresh output buffer every batch and never frees it.
// expect: device_memory_leak=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define RETURN_IF_ERR(call)                                                      \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) return e_;                                        \
    } while (0)

#define CHECK_MAIN(call)                                                         \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));          \
            return 1;                                                            \
        }                                                                        \
    } while (0)

__global__ void moments(const float* x, float* mom, int n) {
    float s = 0.f, sq = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        s += x[i];
        sq += x[i] * x[i];
    }
    atomicAdd(&mom[0], s);
    atomicAdd(&mom[1], sq);
}

__global__ void apply_norm(const float* x, const float* mom, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float mean = mom[0] / n;
    float var = fmaxf(mom[1] / n - mean * mean, 1e-12f);
    y[i] = (x[i] - mean) * rsqrtf(var);
}

static cudaError_t normalize_batch(const float* d_in, float* d_out, int n, cudaStream_t s) {
    float* d_mom = nullptr;
    RETURN_IF_ERR(cudaMallocAsync(&d_mom, 2 * sizeof(float), s)); // EXPECT: device_memory_leak
    RETURN_IF_ERR(cudaMemsetAsync(d_mom, 0, 2 * sizeof(float), s));
    moments<<<128, 256, 0, s>>>(d_in, d_mom, n);
    RETURN_IF_ERR(cudaGetLastError());
    apply_norm<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_mom, d_out, n);
    RETURN_IF_ERR(cudaGetLastError());
    return cudaFreeAsync(d_mom, s);
}

int main() {
    const int batches = 32, n = 1 << 20;
    const size_t bytes = size_t(n) * sizeof(float);

    float *h_in, *h_out, *d_in;
    CHECK_MAIN(cudaMallocHost(&h_in, bytes));
    CHECK_MAIN(cudaMallocHost(&h_out, bytes));
    CHECK_MAIN(cudaMalloc(&d_in, bytes));
    cudaStream_t s;
    CHECK_MAIN(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    double drift = 0.0;
    for (int b = 0; b < batches; ++b) {
        for (int i = 0; i < n; ++i) h_in[i] = float((i * 13 + b * 101) % 1000) * 0.1f + float(b);
        CHECK_MAIN(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s));
        float* d_out = nullptr;
        CHECK_MAIN(cudaMalloc(&d_out, bytes)); // EXPECT: device_memory_leak
        CHECK_MAIN(normalize_batch(d_in, d_out, n, s));
        CHECK_MAIN(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s));
        CHECK_MAIN(cudaStreamSynchronize(s));
        drift += h_out[0];
    }
    printf("mean first normalized feature: %.4f\n", drift / batches);

    CHECK_MAIN(cudaStreamDestroy(s));
    CHECK_MAIN(cudaFree(d_in));
    CHECK_MAIN(cudaFreeHost(h_in));
    CHECK_MAIN(cudaFreeHost(h_out));
    return 0;
}
