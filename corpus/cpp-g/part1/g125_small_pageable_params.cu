// case: Only small pageable copies are asynchronous (a 32-byte parameter struct, a 1 KiB stack lookup table, a 4-byte counter readback that is read after cudaStreamSynchronize); the 32 MiB payload goes through cudaMallocHost memory.
// expect: none
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

struct Params {
    float threshold;
    float scale;
    int   n;
    int   lut_size;
    uint64_t seed;
    uint64_t pad;
};

__global__ void classify(const float* x, const Params* p, const float* lut, int* hits) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p->n) return;
    float v = x[i] * p->scale;
    int bucket = min(int(v), p->lut_size - 1);
    if (bucket >= 0 && lut[bucket] > p->threshold) atomicAdd(hits, 1);
}

int main() {
    const int n = 1 << 23;
    float* h_x; float* d_x; Params* d_params; float* d_lut; int* d_hits;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMallocHost(&h_x, n * sizeof(float)));
    CK(cudaMalloc(&d_x, n * sizeof(float)));
    CK(cudaMalloc(&d_params, sizeof(Params)));
    CK(cudaMalloc(&d_lut, 256 * sizeof(float)));
    CK(cudaMalloc(&d_hits, sizeof(int)));

    for (int i = 0; i < n; ++i) h_x[i] = float(i % 1000) / 1000.0f;

    Params params{0.5f, 255.0f, n, 256, 42u, 0u};
    float lut[256];
    for (int b = 0; b < 256; ++b) lut[b] = b / 255.0f;

    CK(cudaMemcpyAsync(d_params, &params, sizeof(Params), cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(d_lut, lut, sizeof(lut), cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice, s));
    CK(cudaMemsetAsync(d_hits, 0, sizeof(int), s));
    classify<<<(n + 255) / 256, 256, 0, s>>>(d_x, d_params, d_lut, d_hits);

    int hits = 0;
    CK(cudaMemcpyAsync(&hits, d_hits, sizeof(int), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    std::printf("%d of %d samples above threshold\n", hits, n);

    cudaFree(d_hits); cudaFree(d_lut); cudaFree(d_params); cudaFree(d_x);
    cudaFreeHost(h_x);
    cudaStreamDestroy(s);
    return 0;
}
