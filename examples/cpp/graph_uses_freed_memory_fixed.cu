// graph_uses_freed_memory (fixed): the graph is launched for the last time and destroyed before
// its buffer is freed; the next buffer, at the same address or not, keeps the values the host
// wrote.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));          \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define N (1 << 20)

__global__ void scale(int* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2;
}

int main() {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int* d_work;
    CHECK(cudaMalloc(&d_work, N * sizeof(int)));
    CHECK(cudaMemset(d_work, 0, N * sizeof(int)));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    scale<<<N / 256, 256, 0, s>>>(d_work, N);
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(d_work));

    // The next buffer, most likely at the same address.
    int* d_data;
    CHECK(cudaMalloc(&d_data, N * sizeof(int)));
    int* h = (int*)malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) h[i] = 7;
    CHECK(cudaMemcpy(d_data, h, N * sizeof(int), cudaMemcpyHostToDevice));

    CHECK(cudaMemcpy(h, d_data, N * sizeof(int), cudaMemcpyDeviceToHost));
    int intact = 0;
    for (int i = 0; i < N; ++i) intact += h[i] == 7;
    printf("graph_uses_freed_memory_fixed: %d of %d values of the new buffer intact (same address: %s)\n", intact, N,
           d_data == d_work ? "yes" : "no");
    CHECK(cudaFree(d_data));
    CHECK(cudaStreamDestroy(s));
    free(h);
    return 0;
}
