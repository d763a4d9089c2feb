// relies_on_implicit_sync, the fix: wait for the stream before freeing what its kernel reads
// (or free it in the stream's order with cudaFreeAsync). Same kernel and timing as the bug; the
// wait is now a documented one, and it is where a reader looks for it.
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
    CHECK(cudaStreamSynchronize(s)); // the documented wait
    double wait_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    auto t1 = std::chrono::steady_clock::now();
    CHECK(cudaFree(tmp));
    double free_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();

    float result = 0.0f;
    CHECK(cudaMemcpy(&result, out, sizeof(float), cudaMemcpyDeviceToHost));
    printf("relies_on_implicit_sync_fixed: cudaStreamSynchronize waited %.1f ms, then cudaFree(tmp) "
           "took %.2f ms; out = %.1f (expected 42.0)\n",
           wait_ms, free_ms, result);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(out));
    return 0;
}
