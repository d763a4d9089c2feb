// case: an image pass runs a blur kernel on cudaMalloc'd buffers and, while it runs, the host resets a cudaMallocManaged statistics block the blur does not use; on devices without concurrent managed access the host write faults while any kernel runs.
// expect: managed_concurrent_access=1
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Stats {
    unsigned int count;
    float sum;
    float max;
};

__global__ void box_blur(const float* in, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    float acc = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) acc += in[(y + dy) * w + x + dx];
    out[y * w + x] = acc / 9.0f;
}

__global__ void gather_stats(const float* img, Stats* st, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && img[i] > 0.5f) {
        atomicAdd(&st->count, 1u);
        atomicAdd(&st->sum, img[i]);
    }
}

int main() {
    const int w = 2048, h = 2048, n = w * h;
    std::vector<float> img(n);
    for (int i = 0; i < n; ++i) img[i] = (float)((i * 7919) % 1024) / 1024.0f;

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemcpy(d_in, img.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0, n * sizeof(float)));

    Stats* stats;
    CHECK(cudaMallocManaged(&stats, sizeof(Stats)));

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    box_blur<<<grid, block, 0, s>>>(d_in, d_out, w, h);
    CHECK(cudaGetLastError());

    // reset the statistics while the blur runs
    stats->count = 0;  // EXPECT: managed_concurrent_access
    stats->sum = 0.0f;
    stats->max = 0.0f;

    CHECK(cudaStreamSynchronize(s));
    gather_stats<<<(n + 255) / 256, 256, 0, s>>>(d_out, stats, n);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    printf("%u bright pixels, mean %f\n", stats->count,
           stats->count ? stats->sum / stats->count : 0.0f);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(stats));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
