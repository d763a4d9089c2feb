// case: a double-buffered brightness pipeline uses two cudaMallocHost slots, two device slots and a cudaMallocManaged statistics block, and releases every one of them with its matching free
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define FRAME_PIXELS (1920 * 1080)
#define NUM_FRAMES 32

struct Stats {
    unsigned long long sum;
    unsigned int max;
};

__global__ void brighten(unsigned char* px, int n, int delta, Stats* st) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = min(255, px[i] + delta);
    px[i] = (unsigned char)v;
    atomicAdd(&st->sum, (unsigned long long)v);
    atomicMax(&st->max, (unsigned int)v);
}

int main() {
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    unsigned char *h_slot0, *h_slot1, *d_slot0, *d_slot1;
    CHECK(cudaMallocHost(&h_slot0, FRAME_PIXELS));
    CHECK(cudaMallocHost(&h_slot1, FRAME_PIXELS));
    CHECK(cudaMalloc(&d_slot0, FRAME_PIXELS));
    CHECK(cudaMalloc(&d_slot1, FRAME_PIXELS));
    Stats* stats;
    CHECK(cudaMallocManaged(&stats, sizeof(Stats)));
    stats->sum = 0;
    stats->max = 0;

    for (int f = 0; f < NUM_FRAMES; ++f) {
        unsigned char* h = (f % 2) ? h_slot1 : h_slot0;
        unsigned char* d = (f % 2) ? d_slot1 : d_slot0;
        memset(h, (f * 5) & 0xFF, FRAME_PIXELS);
        CHECK(cudaMemcpyAsync(d, h, FRAME_PIXELS, cudaMemcpyHostToDevice, stream));
        brighten<<<(FRAME_PIXELS + 255) / 256, 256, 0, stream>>>(d, FRAME_PIXELS, 40, stats);
        CHECK(cudaMemcpyAsync(h, d, FRAME_PIXELS, cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));
        if (h[0] < 40) fprintf(stderr, "frame %d: unexpected pixel %d\n", f, h[0]);
    }

    printf("mean %.2f, max %u\n", (double)stats->sum / ((double)FRAME_PIXELS * NUM_FRAMES),
           stats->max);

    CHECK(cudaFree(stats));
    CHECK(cudaFree(d_slot0));
    CHECK(cudaFree(d_slot1));
    CHECK(cudaFreeHost(h_slot0));
    CHECK(cudaFreeHost(h_slot1));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
