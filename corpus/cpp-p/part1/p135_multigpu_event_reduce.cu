// case: a multi-GPU sum: each GPU reduces its slice into per-block partials on its own stream and records an event; GPU 0's stream waits on every event before peer-copying the partials into a gather buffer, reduces them, and the host reads the total after synchronizing that stream: correct.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

#define MAX_GPUS 4
#define BLOCKS 256
#define THREADS 256

__global__ void partial_sum(const float* v, float* partial, int n) {
    __shared__ float sh[THREADS];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += v[i];
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    int ndev = std::min(count, MAX_GPUS);
    if (ndev < 2) { printf("needs two GPUs\n"); return 0; }

    const int per = 1 << 24;
    float* h_data;
    float* h_total;
    CHECK(cudaMallocHost(&h_data, (size_t)ndev * per * sizeof(float)));
    CHECK(cudaMallocHost(&h_total, sizeof(float)));
    for (size_t i = 0; i < (size_t)ndev * per; ++i) h_data[i] = 1.0f;

    cudaStream_t s[MAX_GPUS];
    cudaEvent_t done[MAX_GPUS];
    float* d_data[MAX_GPUS];
    float* d_part[MAX_GPUS];
    for (int d = 0; d < ndev; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamCreateWithFlags(&s[d], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&done[d], cudaEventDisableTiming));
        CHECK(cudaMalloc(&d_data[d], per * sizeof(float)));
        CHECK(cudaMalloc(&d_part[d], BLOCKS * sizeof(float)));
    }
    CHECK(cudaSetDevice(0));
    float *d_gather, *d_total;
    CHECK(cudaMalloc(&d_gather, ndev * BLOCKS * sizeof(float)));
    CHECK(cudaMalloc(&d_total, sizeof(float)));

    for (int d = 0; d < ndev; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMemcpyAsync(d_data[d], h_data + (size_t)d * per, per * sizeof(float), cudaMemcpyHostToDevice, s[d]));
        partial_sum<<<BLOCKS, THREADS, 0, s[d]>>>(d_data[d], d_part[d], per);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(done[d], s[d]));
    }

    CHECK(cudaSetDevice(0));
    for (int d = 0; d < ndev; ++d) {
        CHECK(cudaStreamWaitEvent(s[0], done[d], 0));
        CHECK(cudaMemcpyPeerAsync(d_gather + d * BLOCKS, 0, d_part[d], d, BLOCKS * sizeof(float), s[0]));
    }
    partial_sum<<<1, THREADS, 0, s[0]>>>(d_gather, d_total, ndev * BLOCKS);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_total, d_total, sizeof(float), cudaMemcpyDeviceToHost, s[0]));
    CHECK(cudaStreamSynchronize(s[0]));
    printf("total %f (expected %f)\n", *h_total, (double)ndev * per);

    CHECK(cudaFree(d_gather));
    CHECK(cudaFree(d_total));
    for (int d = 0; d < ndev; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamSynchronize(s[d]));
        CHECK(cudaFree(d_data[d]));
        CHECK(cudaFree(d_part[d]));
        CHECK(cudaEventDestroy(done[d]));
        CHECK(cudaStreamDestroy(s[d]));
    }
    CHECK(cudaFreeHost(h_data));
    CHECK(cudaFreeHost(h_total));
    return 0;
}
