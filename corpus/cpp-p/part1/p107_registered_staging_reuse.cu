// case: two image batches are converted on the host into one cudaHostRegister'ed staging buffer and uploaded asynchronously; the second conversion overwrites the staging buffer while the first upload from that page-locked memory may still be reading it (registered memory is truly async, as rustnn #167 / openvm #388).
// expect: missing_sync=1
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void accumulate(const float* in, float* acc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += in[i];
}

static uint8_t* read_raw(const char* path, size_t n) {
    FILE* f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(1); }
    uint8_t* raw = (uint8_t*)malloc(n);
    if (!raw || fread(raw, 1, n, f) != n) { fprintf(stderr, "short read %s\n", path); exit(1); }
    fclose(f);
    return raw;
}

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s a.raw b.raw\n", argv[0]); return 1; }
    const int n = 4096 * 4096;
    const size_t bytes = n * sizeof(float);
    uint8_t* raw0 = read_raw(argv[1], n);
    uint8_t* raw1 = read_raw(argv[2], n);

    float* staging = (float*)malloc(bytes);
    if (!staging) return 1;
    CHECK(cudaHostRegister(staging, bytes, cudaHostRegisterDefault));
    float *d_in, *d_acc, *h_acc;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_acc, bytes));
    CHECK(cudaMallocHost(&h_acc, bytes));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMemsetAsync(d_acc, 0, bytes, s));

    for (int i = 0; i < n; ++i) staging[i] = raw0[i] / 255.0f;
    CHECK(cudaMemcpyAsync(d_in, staging, bytes, cudaMemcpyHostToDevice, s));
    accumulate<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_acc, n);
    CHECK(cudaGetLastError());

    // BUG: no wait: the upload above may still be reading the page-locked staging buffer
    for (int i = 0; i < n; ++i) staging[i] = raw1[i] / 255.0f;  // EXPECT: missing_sync
    CHECK(cudaMemcpyAsync(d_in, staging, bytes, cudaMemcpyHostToDevice, s));
    accumulate<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_acc, n);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpyAsync(h_acc, d_acc, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("acc[0] = %f\n", h_acc[0]);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(h_acc));
    CHECK(cudaFree(d_acc));
    CHECK(cudaFree(d_in));
    CHECK(cudaHostUnregister(staging));
    free(staging);
    free(raw0);
    free(raw1);
    return 0;
}
