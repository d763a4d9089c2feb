// case: a two-GPU sum: GPU 1 reduces its half into partials on its own stream and records an event, but GPU 0's stream never waits on it before cudaMemcpyPeerAsync reads those partials, so the peer copy can read them while the kernel on GPU 1 still writes them.
// expect: missing_sync=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

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

__global__ void combine(const float* a, const float* b, float* total, int n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float t = 0.0f;
        for (int i = 0; i < n; ++i) t += a[i] + b[i];
        *total = t;
    }
}

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 2) { printf("needs two GPUs\n"); return 0; }

    const int half = 1 << 24;
    float *h_data, *h_total;
    CHECK(cudaMallocHost(&h_data, 2 * (size_t)half * sizeof(float)));
    CHECK(cudaMallocHost(&h_total, sizeof(float)));
    for (size_t i = 0; i < 2 * (size_t)half; ++i) h_data[i] = 1.0f;

    cudaStream_t s0, s1;
    cudaEvent_t part1_ready;
    float *d_data0, *d_part0, *d_recv, *d_total, *d_data1, *d_part1;
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d_data0, half * sizeof(float)));
    CHECK(cudaMalloc(&d_part0, BLOCKS * sizeof(float)));
    CHECK(cudaMalloc(&d_recv, BLOCKS * sizeof(float)));
    CHECK(cudaMalloc(&d_total, sizeof(float)));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&part1_ready, cudaEventDisableTiming));
    CHECK(cudaMalloc(&d_data1, half * sizeof(float)));
    CHECK(cudaMalloc(&d_part1, BLOCKS * sizeof(float)));

    CHECK(cudaMemcpyAsync(d_data1, h_data + half, half * sizeof(float), cudaMemcpyHostToDevice, s1));
    partial_sum<<<BLOCKS, THREADS, 0, s1>>>(d_data1, d_part1, half);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(part1_ready, s1));

    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpyAsync(d_data0, h_data, half * sizeof(float), cudaMemcpyHostToDevice, s0));
    partial_sum<<<BLOCKS, THREADS, 0, s0>>>(d_data0, d_part0, half);
    CHECK(cudaGetLastError());
    // BUG: missing cudaStreamWaitEvent(s0, part1_ready, 0)
    CHECK(cudaMemcpyPeerAsync(d_recv, 0, d_part1, 1, BLOCKS * sizeof(float), s0));  // EXPECT: missing_sync
    combine<<<1, 1, 0, s0>>>(d_part0, d_recv, d_total, BLOCKS);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_total, d_total, sizeof(float), cudaMemcpyDeviceToHost, s0));
    CHECK(cudaStreamSynchronize(s0));
    printf("total %f\n", *h_total);

    CHECK(cudaFree(d_data0));
    CHECK(cudaFree(d_part0));
    CHECK(cudaFree(d_recv));
    CHECK(cudaFree(d_total));
    CHECK(cudaStreamDestroy(s0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaFree(d_data1));
    CHECK(cudaFree(d_part1));
    CHECK(cudaEventDestroy(part1_ready));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaFreeHost(h_data));
    CHECK(cudaFreeHost(h_total));
    return 0;
}
