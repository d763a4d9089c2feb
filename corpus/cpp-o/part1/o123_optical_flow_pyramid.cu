// case: optical-flow front end keeps the previous frame's grey image on the device; the device-to-device copy into the previous-frame buffer states cudaMemcpyHostToDevice (pasted from the upload above it), and the 64-bin gradient histogram is cleared with a memset sized for 64 doubles in a buffer of 64 unsigned ints.
// expect: memcpy_kind_mismatch=1, copy_out_of_bounds=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

#define GRAD_BINS 64

__global__ void rgb_to_grey(const uchar3* __restrict__ rgb, float* __restrict__ grey, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) grey[i] = (0.299f * rgb[i].x + 0.587f * rgb[i].y + 0.114f * rgb[i].z) / 255.f;
}

__global__ void temporal_gradient(const float* __restrict__ cur, const float* __restrict__ prev,
                                  unsigned int* __restrict__ hist, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float dt = fabsf(cur[i] - prev[i]);
    atomicAdd(&hist[min(GRAD_BINS - 1, (int)(dt * GRAD_BINS))], 1u);
}

int main(int argc, char** argv)
{
    int w = argc > 1 ? atoi(argv[1]) : 1280, h = argc > 2 ? atoi(argv[2]) : 720, frames = 30;
    int n = w * h;
    uchar3* h_rgb;
    CHECK(cudaMallocHost(&h_rgb, n * sizeof(uchar3)));

    uchar3* d_rgb;
    float *d_cur, *d_prev;
    unsigned int* d_hist;
    CHECK(cudaMalloc(&d_rgb, n * sizeof(uchar3)));
    CHECK(cudaMalloc(&d_cur, n * sizeof(float)));
    CHECK(cudaMalloc(&d_prev, n * sizeof(float)));
    CHECK(cudaMalloc(&d_hist, GRAD_BINS * sizeof(unsigned int)));
    CHECK(cudaMemset(d_prev, 0, n * sizeof(float)));

    std::vector<unsigned int> hist(GRAD_BINS);
    for (int f = 0; f < frames; ++f) {
        for (int i = 0; i < n; ++i) h_rgb[i] = make_uchar3((i + f * 3) & 255, (i * 5) & 255, f & 255);
        CHECK(cudaMemcpy(d_rgb, h_rgb, n * sizeof(uchar3), cudaMemcpyHostToDevice));
        rgb_to_grey<<<(n + 255) / 256, 256>>>(d_rgb, d_cur, n);
        CHECK(cudaMemset(d_hist, 0, GRAD_BINS * sizeof(double)));              // EXPECT: copy_out_of_bounds
        temporal_gradient<<<(n + 255) / 256, 256>>>(d_cur, d_prev, d_hist, n);
        CHECK(cudaMemcpy(hist.data(), d_hist, GRAD_BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(d_prev, d_cur, n * sizeof(float), cudaMemcpyHostToDevice)); // EXPECT: memcpy_kind_mismatch
        unsigned int moving = 0;
        for (int b = 4; b < GRAD_BINS; ++b) moving += hist[b];
        printf("frame %2d: %5.2f%% pixels moving\n", f, 100.0 * moving / n);
    }

    CHECK(cudaFree(d_hist));
    CHECK(cudaFree(d_prev));
    CHECK(cudaFree(d_cur));
    CHECK(cudaFree(d_rgb));
    CHECK(cudaFreeHost(h_rgb));
    return 0;
}
