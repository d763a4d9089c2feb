// case: a cudaLaunchHostFunc callback sets a "ready" flag after the download, but main reads the pinned result right after enqueuing it without waiting on the flag, the stream or an event
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CU(x) do { cudaError_t r_ = (x); if (r_ != cudaSuccess) { \
    printf("error %d (%s) line %d\n", (int)r_, cudaGetErrorName(r_), __LINE__); return 1; } } while (0)

struct Ready { volatile int flag; };

static void CUDART_CB mark_ready(void* p) { static_cast<Ready*>(p)->flag = 1; }

__global__ void prefix_scan_block(const int* in, int* out, int n) {
    __shared__ int tmp[512];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    tmp[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        int v = t >= off ? tmp[t - off] : 0;
        __syncthreads();
        tmp[t] += v;
        __syncthreads();
    }
    if (g < n) out[g] = tmp[t];
}

int main() {
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(int);
    cudaStream_t s;
    CU(cudaStreamCreate(&s));

    int *h_in, *h_out;
    CU(cudaMallocHost(&h_in, bytes));
    CU(cudaMallocHost(&h_out, bytes));
    for (int i = 0; i < n; ++i) h_in[i] = 1;

    int *d_in, *d_out;
    CU(cudaMalloc(&d_in, bytes));
    CU(cudaMalloc(&d_out, bytes));

    Ready ready{0};
    CU(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s));
    prefix_scan_block<<<n / 512, 512, 0, s>>>(d_in, d_out, n);
    CU(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s));
    CU(cudaLaunchHostFunc(s, mark_ready, &ready));

    int bad = 0;
    for (int b = 0; b < n / 512; ++b)
        if (h_out[b * 512 + 511] != 512) ++bad; // EXPECT: missing_sync
    printf("%d blocks with a wrong total (ready=%d)\n", bad, ready.flag);

    CU(cudaStreamSynchronize(s));
    CU(cudaFree(d_out));
    CU(cudaFree(d_in));
    CU(cudaFreeHost(h_out));
    CU(cudaFreeHost(h_in));
    CU(cudaStreamDestroy(s));
    return 0;
}
