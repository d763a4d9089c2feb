// managed_concurrent_access, the fix: wait for the kernels before the host touches managed
// memory, so that the program also runs on devices without concurrent managed access
// (cudaDevAttrConcurrentManagedAccess = 0: pre-Pascal, Windows, some Jetsons).
//
// The same 200 ms kernel as managed_concurrent_access_bug.cu; the host writes the managed buffer
// after cudaStreamSynchronize.
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

// Busy-waits for `ns` nanoseconds of the GPU's global timer.
__global__ void spin(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

int main() {
    int concurrent = -1;
    CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
    printf("cudaDevAttrConcurrentManagedAccess = %d\n", concurrent);
    int* counters;
    CHECK(cudaMallocManaged(&counters, 1024 * sizeof(int)));
    counters[0] = 1;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    auto t0 = std::chrono::steady_clock::now();
    spin<<<1, 1, 0, s>>>(200000000ull); // 200 ms, no memory
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s)); // the host gets managed memory back
    bool running = cudaStreamQuery(s) == cudaErrorNotReady;
    counters[1] = 2;
    std::chrono::duration<double, std::milli> dt = std::chrono::steady_clock::now() - t0;

    printf("managed_concurrent_access_fixed: the host wrote managed memory %.2f ms after the "
           "launch, kernel still running: %s; counters[1] = %d\n", dt.count(),
           running ? "yes" : "no", counters[1]);
    CHECK(cudaFree(counters));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
