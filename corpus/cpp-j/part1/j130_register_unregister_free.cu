// case: a loader mallocs a host buffer, page-locks it with cudaHostRegister for async uploads, and on teardown unregisters it before free(); pinned host memory from cudaHostAlloc goes to cudaFreeHost: every release matches its allocator
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(e) do { cudaError_t r_ = (e); if (r_ != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(r_)); exit(1); } } while (0)

struct Loader {
    char* buf;
    size_t cap;
    unsigned* counts;
};

static void loader_init(Loader* L, size_t cap) {
    L->cap = cap;
    L->buf = static_cast<char*>(malloc(cap));
    if (!L->buf) { fprintf(stderr, "oom\n"); exit(1); }
    CHECK(cudaHostRegister(L->buf, cap, cudaHostRegisterPortable));
    CHECK(cudaHostAlloc(&L->counts, 128 * sizeof(unsigned), cudaHostAllocPortable));
}

static void loader_destroy(Loader* L) {
    CHECK(cudaHostUnregister(L->buf));
    free(L->buf);
    CHECK(cudaFreeHost(L->counts));
}

__global__ void count_ascii(const char* text, size_t n, unsigned* counts) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[text[i] & 127], 1u);
}

int main() {
    const size_t cap = 64 << 20;
    Loader L;
    loader_init(&L, cap);
    for (size_t i = 0; i < cap; ++i) L.buf[i] = "the quick brown fox "[i % 20];

    char* d_text;
    unsigned* d_counts;
    CHECK(cudaMalloc(&d_text, cap));
    CHECK(cudaMalloc(&d_counts, 128 * sizeof(unsigned)));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    CHECK(cudaMemsetAsync(d_counts, 0, 128 * sizeof(unsigned), s));
    CHECK(cudaMemcpyAsync(d_text, L.buf, cap, cudaMemcpyHostToDevice, s));
    count_ascii<<<(unsigned)((cap + 255) / 256), 256, 0, s>>>(d_text, cap, d_counts);
    CHECK(cudaMemcpyAsync(L.counts, d_counts, 128 * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    printf("spaces: %u, 'o': %u\n", L.counts[' '], L.counts['o']);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_counts));
    CHECK(cudaFree(d_text));
    loader_destroy(&L);
    return 0;
}
