// case: A batched dot-product benchmark passes every status, event calls and cleanup included, to its own check function, and checks the launch with check(cudaGetLastError(), ...) before the event synchronization.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        fprintf(stderr, "%s: %s (%s)\n", what, cudaGetErrorString(status), cudaGetErrorName(status));
        exit(1);
    }
}

__global__ void batched_dot(const float* a, const float* b, float* out, int len, int batch) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= batch) return;
    float acc = 0.0f;
    for (int i = 0; i < len; ++i) acc += a[size_t(k) * len + i] * b[size_t(k) * len + i];
    out[k] = acc;
}

int main() {
    const int batch = 16384, len = 256;
    const size_t elems = size_t(batch) * len;
    std::vector<float> a(elems, 0.5f), b(elems, 2.0f), out(batch);

    float *d_a, *d_b, *d_out;
    check(cudaMalloc(&d_a, elems * sizeof(float)), "alloc a");
    check(cudaMalloc(&d_b, elems * sizeof(float)), "alloc b");
    check(cudaMalloc(&d_out, batch * sizeof(float)), "alloc out");
    check(cudaMemcpy(d_a, a.data(), elems * sizeof(float), cudaMemcpyHostToDevice), "upload a");
    check(cudaMemcpy(d_b, b.data(), elems * sizeof(float), cudaMemcpyHostToDevice), "upload b");

    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "event create");
    check(cudaEventCreate(&stop), "event create");
    check(cudaEventRecord(start), "record start");
    batched_dot<<<(batch + 127) / 128, 128>>>(d_a, d_b, d_out, len, batch);
    check(cudaGetLastError(), "batched_dot launch");
    check(cudaEventRecord(stop), "record stop");
    check(cudaEventSynchronize(stop), "wait for stop");

    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    check(cudaMemcpy(out.data(), d_out, batch * sizeof(float), cudaMemcpyDeviceToHost), "download");
    printf("%d dot products of length %d in %.3f ms, out[0] = %.1f\n", batch, len, ms, out[0]);

    const cudaError_t cleanup[] = {cudaEventDestroy(start), cudaEventDestroy(stop),
                                   cudaFree(d_out), cudaFree(d_b), cudaFree(d_a)};
    for (cudaError_t st : cleanup) check(st, "cleanup");
    return 0;
}
