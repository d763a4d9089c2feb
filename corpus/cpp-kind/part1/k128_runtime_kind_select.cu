// case: a bandwidth test picks the copy direction from argv at run time and swaps the pointer pair together with the kind, so each run copies the right way; the kind is not a constant.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

int main(int argc, char** argv) {
    const bool download = argc > 1 && strcmp(argv[1], "--d2h") == 0;
    const size_t bytes = (argc > 2 ? atoll(argv[2]) : 64) << 20;

    char* h_buf;
    char* d_buf;
    cudaMallocHost(&h_buf, bytes);
    cudaMalloc(&d_buf, bytes);
    memset(h_buf, 1, bytes);

    cudaMemcpyKind kind = download ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
    void* dst = download ? (void*)h_buf : (void*)d_buf;
    const void* src = download ? (const void*)d_buf : (const void*)h_buf;

    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    const int reps = 20;
    cudaEventRecord(t0);
    for (int r = 0; r < reps; ++r) cudaMemcpy(dst, src, bytes, kind);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms = 0.f;
    cudaEventElapsedTime(&ms, t0, t1);
    printf("%s: %.2f GB/s\n", download ? "D2H" : "H2D", (double)bytes * reps / ms / 1e6);

    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    cudaFree(d_buf);
    cudaFreeHost(h_buf);
    return 0;
}
