// reference.cu: the C++ side of copy_bench. Measures, with the CUDA runtime API, exactly what
// runtime/benches/copy_bench.rs measures through cuda-lint-runtime, and prints the same keys, so
// that runtime/bench/compare.py can put the two side by side. The method follows
// copy_bench_anchor.cu (anchors/cuda-cpp/copy_bench.cu, unchanged), with D2H added:
// - one non-blocking stream (cuda-lint-runtime's streams are CU_STREAM_NON_BLOCKING);
//   256 MiB of device memory and 256 MiB of pinned host memory (cudaMallocHost), filled with 1s;
// - H2D, then D2H: 3 warm-up copies, a synchronize, then 10 copies each timed with two events
//   recorded on the stream around it (cudaEventSynchronize on the second); best of the 10, GB/s;
// - an empty kernel <<<1, 1>>>: 1000 warm-up launches and a synchronize, then 10 blocks of
//   10000 launches each followed by a synchronize; per launch, the best block's host time of the
//   launch loop (launch_host_us), and including the synchronize (launch_e2e_us).
// Build: nvcc -O2 -arch=sm_90 -o reference reference.cu
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x)                                                                            \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            printf("FAILED reference: %s -> %s\n", #x, cudaGetErrorString(e_));          \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

__global__ void empty() {}

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static const size_t kBytes = 256u << 20;

static double best_gbps(cudaStream_t s, cudaEvent_t a, cudaEvent_t b, void* dst, const void* src,
                        cudaMemcpyKind kind) {
    for (int w = 0; w < 3; ++w) CK(cudaMemcpyAsync(dst, src, kBytes, kind, s));
    CK(cudaStreamSynchronize(s));
    double best = 0;
    for (int r = 0; r < 10; ++r) {
        CK(cudaEventRecord(a, s));
        CK(cudaMemcpyAsync(dst, src, kBytes, kind, s));
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        double bw = kBytes / (ms * 1e-3) / 1e9;
        if (bw > best) best = bw;
    }
    return best;
}

int main() {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("SKIP reference: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 0;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int dv = 0;
    CK(cudaDriverGetVersion(&dv));
    printf("# copy_bench reference (C++, CUDA runtime API)\n");
    printf("# device 0: %s (compute capability %d.%d); driver for CUDA %d.%d\n", prop.name, prop.major,
           prop.minor, dv / 1000, (dv % 1000) / 10);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    char* d;
    CK(cudaMalloc((void**)&d, kBytes));
    char* pinned;
    CK(cudaMallocHost((void**)&pinned, kBytes));
    memset(pinned, 1, kBytes);

    double h2d = best_gbps(s, a, b, d, pinned, cudaMemcpyHostToDevice);
    double d2h = best_gbps(s, a, b, pinned, d, cudaMemcpyDeviceToHost);

    for (int i = 0; i < 1000; ++i) empty<<<1, 1, 0, s>>>();
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    // 10 blocks of 10000 launches, each ended by a synchronize; the best block counts (launch
    // overhead is a floor that noise only adds to).
    const int BLOCKS = 10, N = 10000;
    double best_host = 1e30, best_e2e = 1e30;
    for (int b = 0; b < BLOCKS; ++b) {
        double t0 = now();
        for (int i = 0; i < N; ++i) empty<<<1, 1, 0, s>>>();
        double t1 = now();
        CK(cudaStreamSynchronize(s));
        double t2 = now();
        if (t1 - t0 < best_host) best_host = t1 - t0;
        if (t2 - t0 < best_e2e) best_e2e = t2 - t0;
    }
    CK(cudaGetLastError());

    printf("h2d_pinned_gbps %.2f\n", h2d);
    printf("d2h_pinned_gbps %.2f\n", d2h);
    printf("launch_host_us %.3f\n", best_host / N * 1e6);
    printf("launch_e2e_us %.3f\n", best_e2e / N * 1e6);

    CK(cudaFreeHost(pinned));
    CK(cudaFree(d));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    CK(cudaStreamDestroy(s));
    return 0;
}
