// case: an image-statistics tool keeps its device buffers in file-scope globals; setup allocates the pixel buffer and the partial sums but never d_hist, which the final download then reads from a null pointer
// expect: unallocated_pointer=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define BINS 256
#define W 1024
#define H 768

static unsigned char* d_pixels;
static unsigned int* d_partial;
static unsigned int* d_hist;

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void block_hist(const unsigned char* px, unsigned int* partial, int n) {
    __shared__ unsigned int s[BINS];
    s[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&s[px[i]], 1u);
    __syncthreads();
    partial[blockIdx.x * BINS + threadIdx.x] = s[threadIdx.x];
}

static void setup(const unsigned char* h_pixels) {
    CHECK(cudaMalloc(&d_pixels, W * H));
    CHECK(cudaMalloc(&d_partial, 64 * BINS * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_pixels, h_pixels, W * H, cudaMemcpyHostToDevice));
}

static void teardown() {
    cudaFree(d_partial);
    cudaFree(d_pixels);
}

int main() {
    unsigned char* h_pixels = (unsigned char*)malloc(W * H);
    for (int i = 0; i < W * H; ++i) h_pixels[i] = (unsigned char)(i ^ (i >> 8));
    setup(h_pixels);

    block_hist<<<64, BINS>>>(d_pixels, d_partial, W * H);
    CHECK(cudaGetLastError());

    unsigned int h_partial[64 * BINS];
    unsigned int h_hist[BINS];
    CHECK(cudaMemcpy(h_partial, d_partial, sizeof(h_partial), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_hist, d_hist, sizeof(h_hist), cudaMemcpyDeviceToHost)); // EXPECT: unallocated_pointer

    unsigned long long total = 0;
    for (int b = 0; b < 64 * BINS; ++b) total += h_partial[b];
    printf("pixels counted %llu, bin 0 = %u\n", total, h_hist[0]);

    teardown();
    free(h_pixels);
    return 0;
}
