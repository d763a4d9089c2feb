// uncapturable_call (fixed): the scratch buffer is allocated before the capture begins; the
// captured time step is launched and computes every result.
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

__global__ void step(const int* in, int* scratch, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        scratch[i] = in[i] + 1;
        out[i] = scratch[i] * 2;
    }
}

int main() {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, N * sizeof(int)));
    CHECK(cudaMalloc(&d_out, N * sizeof(int)));
    CHECK(cudaMemset(d_in, 0, N * sizeof(int)));
    CHECK(cudaMemset(d_out, 0, N * sizeof(int)));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    int* d_scratch = nullptr;
    cudaError_t alloc = cudaMalloc(&d_scratch, N * sizeof(int));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    step<<<N / 256, 256, 0, s>>>(d_in, d_scratch, d_out, N);
    cudaError_t end = cudaStreamEndCapture(s, &graph);
    if (graph != nullptr && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess) {
        CHECK(cudaGraphLaunch(exec, s));
    }
    CHECK(cudaStreamSynchronize(s));
    int* h = (int*)malloc(N * sizeof(int));
    CHECK(cudaMemcpy(h, d_out, N * sizeof(int), cudaMemcpyDeviceToHost));
    int right = 0;
    for (int i = 0; i < N; ++i) right += h[i] == 2;
    printf("uncapturable_call_fixed: %d of %d results computed; cudaMalloc said \"%s\", cudaStreamEndCapture \"%s\"\n",
           right, N, cudaGetErrorString(alloc), cudaGetErrorString(end));
    (void)cudaGetLastError();
    if (exec != nullptr) CHECK(cudaGraphExecDestroy(exec));
    if (graph != nullptr) CHECK(cudaGraphDestroy(graph));
    if (d_scratch != nullptr) CHECK(cudaFree(d_scratch));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaStreamDestroy(s));
    free(h);
    return 0;
}
