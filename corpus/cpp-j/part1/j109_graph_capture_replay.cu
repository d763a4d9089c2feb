// case: a stream capture records upload, two kernels and the download into a CUDA graph that is replayed ten times; the host synchronizes the stream after each replay before reading the pinned output
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                   \
    {                                                                                 \
        const cudaError_t error = call;                                               \
        if (error != cudaSuccess) {                                                   \
            printf("Error: %s:%d, code:%d, reason: %s\n", __FILE__, __LINE__, error,  \
                   cudaGetErrorString(error));                                        \
            exit(1);                                                                  \
        }                                                                             \
    }

__global__ void add_bias(float* x, const float* bias, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += bias[i & 63];
}

__global__ void relu(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] > 0.f ? x[i] : 0.f;
}

int main() {
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_x, *h_y, *h_bias;
    CHECK(cudaMallocHost(&h_x, bytes));
    CHECK(cudaMallocHost(&h_y, bytes));
    CHECK(cudaMallocHost(&h_bias, 64 * sizeof(float)));
    for (int i = 0; i < 64; ++i) h_bias[i] = (i % 2) ? 0.5f : -0.5f;

    float *d_x, *d_bias;
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_bias, 64 * sizeof(float)));
    CHECK(cudaMemcpy(d_bias, h_bias, 64 * sizeof(float), cudaMemcpyHostToDevice));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, stream);
    add_bias<<<(n + 255) / 256, 256, 0, stream>>>(d_x, d_bias, n);
    relu<<<(n + 255) / 256, 256, 0, stream>>>(d_x, n);
    cudaMemcpyAsync(h_y, d_x, bytes, cudaMemcpyDeviceToHost, stream);
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));

    for (int step = 0; step < 10; ++step) {
        for (int i = 0; i < n; ++i) h_x[i] = static_cast<float>((i + step) % 7) - 3.f;
        CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaStreamSynchronize(stream));
        double s = 0;
        for (int i = 0; i < n; ++i) s += h_y[i];
        printf("step %d sum %.1f\n", step, s);
    }

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(d_bias));
    CHECK(cudaFree(d_x));
    CHECK(cudaFreeHost(h_bias));
    CHECK(cudaFreeHost(h_y));
    CHECK(cudaFreeHost(h_x));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
