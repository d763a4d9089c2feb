// case: same chunked loader, but the malloc'd file buffer is page-locked with cudaHostRegister before the async uploads and readbacks, every stream is synchronized before the host writes the file, and the buffer is unregistered before free: correct.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void clamp_inplace(float* v, float lo, float hi, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) v[i] = fminf(fmaxf(v[i], lo), hi);
}

static float* load_floats(const char* path, size_t* count) {
    FILE* f = fopen(path, "rb");
    if (!f) return nullptr;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    float* buf = (float*)malloc((size_t)len);
    if (!buf) { fclose(f); return nullptr; }
    if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        fclose(f);
        return nullptr;
    }
    fclose(f);
    *count = (size_t)len / sizeof(float);
    return buf;
}

int main(int argc, char** argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s in.bin out.bin\n", argv[0]); return 1; }
    size_t n = 0;
    float* h = load_floats(argv[1], &n);
    if (!h) { fprintf(stderr, "cannot read %s\n", argv[1]); return 1; }
    CHECK(cudaHostRegister(h, n * sizeof(float), cudaHostRegisterDefault));

    const int kStreams = 4;
    cudaStream_t s[kStreams];
    for (int k = 0; k < kStreams; ++k) CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    float* d;
    CHECK(cudaMalloc(&d, n * sizeof(float)));

    size_t chunk = (n + kStreams - 1) / kStreams;
    for (int k = 0; k < kStreams; ++k) {
        size_t off = k * chunk;
        if (off >= n) break;
        size_t len = std::min(chunk, n - off);
        CHECK(cudaMemcpyAsync(d + off, h + off, len * sizeof(float), cudaMemcpyHostToDevice, s[k]));
        clamp_inplace<<<(unsigned)((len + 255) / 256), 256, 0, s[k]>>>(d + off, -1.0f, 1.0f, len);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h + off, d + off, len * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
    }
    for (int k = 0; k < kStreams; ++k) CHECK(cudaStreamSynchronize(s[k]));

    FILE* out = fopen(argv[2], "wb");
    if (out) {
        fwrite(h, sizeof(float), n, out);
        fclose(out);
    }

    for (int k = 0; k < kStreams; ++k) CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaFree(d));
    CHECK(cudaHostUnregister(h));
    free(h);
    return 0;
}
