// case: a histogram-equalization program checks calls with the classic gpuErrchk/gpuAssert (exit on error) and calls abort() when the CDF is degenerate, so no error path returns with memory held; the normal path frees all three buffers
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char* file, int line, bool abort = true) {
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        if (abort) exit(code);
    }
}

#define W 2048
#define H 2048
#define LEVELS 256

__global__ void hist256(const unsigned char* img, unsigned* hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[img[i]], 1u);
}

__global__ void remap(unsigned char* img, const unsigned char* lut, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) img[i] = lut[img[i]];
}

int main() {
    const int n = W * H;
    std::vector<unsigned char> img(n);
    for (int i = 0; i < n; ++i) img[i] = (unsigned char)(64 + (i % 97));

    unsigned char *d_img, *d_lut;
    unsigned* d_hist;
    gpuErrchk(cudaMalloc(&d_img, n));
    gpuErrchk(cudaMalloc(&d_hist, LEVELS * sizeof(unsigned)));
    gpuErrchk(cudaMalloc(&d_lut, LEVELS));
    gpuErrchk(cudaMemcpy(d_img, img.data(), n, cudaMemcpyHostToDevice));
    gpuErrchk(cudaMemset(d_hist, 0, LEVELS * sizeof(unsigned)));

    hist256<<<(n + 255) / 256, 256>>>(d_img, d_hist, n);
    gpuErrchk(cudaPeekAtLastError());
    unsigned hist[LEVELS];
    gpuErrchk(cudaMemcpy(hist, d_hist, sizeof(hist), cudaMemcpyDeviceToHost));

    unsigned cdf_min = 0, acc = 0;
    unsigned char lut[LEVELS];
    for (int v = 0; v < LEVELS; ++v) {
        acc += hist[v];
        if (!cdf_min && acc) cdf_min = acc;
        lut[v] = 0;
    }
    if (acc != (unsigned)n || cdf_min == (unsigned)n) {
        fprintf(stderr, "degenerate histogram (total %u, cdf_min %u)\n", acc, cdf_min);
        abort();
    }
    acc = 0;
    for (int v = 0; v < LEVELS; ++v) {
        acc += hist[v];
        lut[v] = acc ? (unsigned char)(255.0 * (acc - cdf_min) / (n - cdf_min) + 0.5) : 0;
    }
    gpuErrchk(cudaMemcpy(d_lut, lut, sizeof(lut), cudaMemcpyHostToDevice));
    remap<<<(n + 255) / 256, 256>>>(d_img, d_lut, n);
    gpuErrchk(cudaPeekAtLastError());
    gpuErrchk(cudaMemcpy(img.data(), d_img, n, cudaMemcpyDeviceToHost));
    printf("pixel 0: %d, pixel 96: %d\n", img[0], img[96]);

    gpuErrchk(cudaFree(d_img));
    gpuErrchk(cudaFree(d_hist));
    gpuErrchk(cudaFree(d_lut));
    return 0;
}
