// case: a signal loader freads a file into a cudaMallocHost buffer, uploads it, runs a kernel and reads back, with goto cleanup on every failure; the cleanup synchronizes the stream before freeing, releases each buffer with the matching free (cudaFree(nullptr) is harmless), and the caller exits on failure: correct.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void rectify(const short* in, float* out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = fabsf((float)in[i]) / 32768.0f;
}

static int process_file(const char* path, double* mean_out) {
    int rc = -1;
    FILE* f = nullptr;
    short* h_raw = nullptr;
    float* h_out = nullptr;
    short* d_raw = nullptr;
    float* d_out = nullptr;
    cudaStream_t s = nullptr;
    size_t n = 0;
    long len = 0;
    double sum = 0.0;

    f = fopen(path, "rb");
    if (!f) goto cleanup;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    n = (size_t)len / sizeof(short);
    if (n == 0) goto cleanup;

    if (cudaMallocHost(&h_raw, n * sizeof(short)) != cudaSuccess) goto cleanup;
    if (cudaMallocHost(&h_out, n * sizeof(float)) != cudaSuccess) goto cleanup;
    if (fread(h_raw, sizeof(short), n, f) != n) goto cleanup;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) goto cleanup;
    if (cudaMalloc(&d_raw, n * sizeof(short)) != cudaSuccess) goto cleanup;
    if (cudaMalloc(&d_out, n * sizeof(float)) != cudaSuccess) goto cleanup;

    if (cudaMemcpyAsync(d_raw, h_raw, n * sizeof(short), cudaMemcpyHostToDevice, s) != cudaSuccess) goto cleanup;
    rectify<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(d_raw, d_out, n);
    if (cudaGetLastError() != cudaSuccess) goto cleanup;
    if (cudaMemcpyAsync(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, s) != cudaSuccess) goto cleanup;
    if (cudaStreamSynchronize(s) != cudaSuccess) goto cleanup;

    for (size_t i = 0; i < n; ++i) sum += h_out[i];
    *mean_out = sum / (double)n;
    rc = 0;

cleanup:
    if (s) {
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
    }
    cudaFree(d_out);
    cudaFree(d_raw);
    if (h_out) cudaFreeHost(h_out);
    if (h_raw) cudaFreeHost(h_raw);
    if (f) fclose(f);
    return rc;
}

int main(int argc, char** argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s signal.pcm\n", argv[0]); return 1; }
    double mean = 0.0;
    if (process_file(argv[1], &mean) != 0) {
        fprintf(stderr, "processing %s failed\n", argv[1]);
        return 1;
    }
    printf("mean rectified amplitude %f\n", mean);
    return 0;
}
