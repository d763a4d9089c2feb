// case: a histogram routine with an error-returning CHECK_RET macro (from its header) allocates the image and the bins, and every failing call after the allocations returns the error without freeing them
// expect: device_memory_leak=2
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "histogram_kernels.cuh"

#define IMG_W 4096
#define IMG_H 4096

static cudaError_t compute_histogram(const unsigned char* h_img, unsigned int* h_hist) {
    const size_t n = (size_t)IMG_W * IMG_H;
    unsigned char* d_img = nullptr;
    unsigned int* d_hist = nullptr;

    CHECK_RET(cudaMalloc(&d_img, n)); // EXPECT: device_memory_leak
    CHECK_RET(cudaMalloc(&d_hist, NUM_BINS * sizeof(unsigned int))); // EXPECT: device_memory_leak
    CHECK_RET(cudaMemcpy(d_img, h_img, n, cudaMemcpyHostToDevice));
    CHECK_RET(cudaMemset(d_hist, 0, NUM_BINS * sizeof(unsigned int)));

    int sms = 0;
    CHECK_RET(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    histogram_shared<<<sms * 4, 256>>>(d_img, d_hist, (int)n);
    CHECK_RET(cudaGetLastError());

    CHECK_RET(cudaMemcpy(h_hist, d_hist, NUM_BINS * sizeof(unsigned int),
                         cudaMemcpyDeviceToHost));
    cudaFree(d_img);
    cudaFree(d_hist);
    return cudaSuccess;
}

int main() {
    std::vector<unsigned char> img((size_t)IMG_W * IMG_H);
    for (size_t i = 0; i < img.size(); ++i) img[i] = (unsigned char)((i * 2654435761u) >> 24);

    unsigned int hist[NUM_BINS];
    cudaError_t err = compute_histogram(img.data(), hist);
    if (err != cudaSuccess) {
        fprintf(stderr, "histogram failed: %s\n", cudaGetErrorString(err));
        return EXIT_FAILURE;
    }
    unsigned long long total = 0;
    for (int b = 0; b < NUM_BINS; ++b) total += hist[b];
    printf("pixels counted: %llu (expected %d)\n", total, IMG_W * IMG_H);
    return 0;
}
