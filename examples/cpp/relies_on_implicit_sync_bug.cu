// relies_on_implicit_sync, the bug: cudaFree of a buffer a kernel launched just before may still
// read, with no wait in between.
//
// A kernel on a stream spins for about 200 ms, then reads tmp and writes out. The host frees tmp
// right after the launch. The program is right today: cudaFree happens to synchronize the whole
// device, so it returns only once the kernel is done (the time it took and cudaStreamQuery show
// it). The runtime API promises no such thing ("may perform implicit synchronization"), performs
// none for memory from cudaMallocAsync, and NVIDIA calls it an implementation detail (cupy
// #3777; kokkos #9307 added the missing waits). The cost today: the host is blocked inside
// cudaFree for the whole kernel, where nobody looks for a wait.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(err_));                                             \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

__global__ void consume(const float* tmp, float* out, long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    out[0] = tmp[0] * 2.0f;
}

int main() {
    int khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    const long long cycles = (long long)khz * 200; // about 200 ms
    const float input = 21.0f;
    float *tmp, *out;
    CHECK(cudaMalloc(&tmp, sizeof(float)));
    CHECK(cudaMalloc(&out, sizeof(float)));
    CHECK(cudaMemcpy(tmp, &input, sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    consume<<<1, 1, 0, s>>>(tmp, out, cycles);
    auto t0 = std::chrono::steady_clock::now();
    CHECK(cudaFree(tmp)); // the kernel may still read tmp
    double free_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    cudaError_t q = cudaStreamQuery(s);

    float result = 0.0f;
    CHECK(cudaMemcpy(&result, out, sizeof(float), cudaMemcpyDeviceToHost));
    printf("relies_on_implicit_sync_bug: cudaFree(tmp) returned after %.1f ms; the kernel was %s "
           "then; out = %.1f (expected 42.0)\n",
           free_ms, q == cudaSuccess ? "done" : "still running", result);
    printf("=> right only because cudaFree synchronized the device, which its documentation does "
           "not promise; the host was blocked inside cudaFree for the kernel's whole run\n");
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(out));
    return 0;
}
