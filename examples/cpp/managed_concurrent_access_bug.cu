// managed_concurrent_access, the bug: the host writes managed memory while a kernel that does
// not use it is still running.
//
// On a device whose cudaDevAttrConcurrentManagedAccess is 0 (GPUs before Pascal, GPUs under
// Windows, some Jetsons) the GPU owns all managed memory while any kernel runs, whatever memory
// the kernel uses, and the host access faults (a segmentation fault). Where the attribute is 1
// (Pascal and later under Linux, like this project's H100 and H200) the access is legal and only
// migrates pages. The program prints the attribute, starts a 200 ms kernel that touches no
// memory, writes a managed buffer while it runs, and says whether the kernel was still running.
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
    counters[1] = 2; // the GPU may own all managed memory now
    std::chrono::duration<double, std::milli> dt = std::chrono::steady_clock::now() - t0;
    bool running = cudaStreamQuery(s) == cudaErrorNotReady;
    CHECK(cudaStreamSynchronize(s));

    printf("managed_concurrent_access_bug: the host wrote managed memory %.2f ms after the "
           "launch, kernel still running: %s; counters[1] = %d\n", dt.count(),
           running ? "yes" : "no", counters[1]);
    if (concurrent)
        printf("managed_concurrent_access_bug: no fault here: this device has concurrent managed "
               "access; without it (pre-Pascal, Windows, some Jetsons) the write faults\n");
    CHECK(cudaFree(counters));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
