// case: A chunked AES-CTR-like keystream XOR pipeline double-buffers pinned input and output slots and calls cudaEventSynchronize on the slot's event before refilling its input or reading its output, so every host access is ordered after the device work.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int kSlots = 2;
constexpr size_t kChunk = 8u << 20;

__global__ void ctr_xor(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, size_t n,
                        uint64_t nonce, uint64_t counter0) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    uint64_t ctr = counter0 + i / 16;
    uint64_t x = (nonce ^ ctr) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 32;
    out[i] = in[i] ^ uint8_t(x >> (8 * (i % 8)));
}

int main() {
    const size_t total = 32 * kChunk;
    std::vector<uint8_t> plaintext(total), ciphertext(total);
    for (size_t i = 0; i < total; ++i) plaintext[i] = uint8_t(i * 131);

    cudaStream_t stream[kSlots];
    uint8_t *h_in[kSlots], *h_out[kSlots], *d_in[kSlots], *d_out[kSlots];
    cudaEvent_t done[kSlots];
    bool busy[kSlots] = {false, false};
    size_t chunk_of[kSlots] = {0, 0};
    for (int s = 0; s < kSlots; ++s) {
        CK(cudaStreamCreateWithFlags(&stream[s], cudaStreamNonBlocking));
        CK(cudaMallocHost(&h_in[s], kChunk));
        CK(cudaMallocHost(&h_out[s], kChunk));
        CK(cudaMalloc(&d_in[s], kChunk));
        CK(cudaMalloc(&d_out[s], kChunk));
        CK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    }

    auto drain = [&](int s) -> cudaError_t {
        cudaError_t e = cudaEventSynchronize(done[s]);
        if (e == cudaSuccess) std::memcpy(ciphertext.data() + chunk_of[s] * kChunk, h_out[s], kChunk);
        busy[s] = false;
        return e;
    };

    const uint64_t nonce = 0x0123456789abcdefull;
    for (size_t c = 0; c < total / kChunk; ++c) {
        int s = int(c % kSlots);
        if (busy[s]) CK(drain(s));
        std::memcpy(h_in[s], plaintext.data() + c * kChunk, kChunk);
        CK(cudaMemcpyAsync(d_in[s], h_in[s], kChunk, cudaMemcpyHostToDevice, stream[s]));
        ctr_xor<<<unsigned(kChunk / 256), 256, 0, stream[s]>>>(d_in[s], d_out[s], kChunk, nonce, c * kChunk / 16);
        CK(cudaMemcpyAsync(h_out[s], d_out[s], kChunk, cudaMemcpyDeviceToHost, stream[s]));
        CK(cudaEventRecord(done[s], stream[s]));
        busy[s] = true;
        chunk_of[s] = c;
    }
    for (int s = 0; s < kSlots; ++s)
        if (busy[s]) CK(drain(s));

    unsigned long long diff = 0;
    for (size_t i = 0; i < total; ++i) diff += plaintext[i] != ciphertext[i];
    printf("%llu of %zu bytes changed\n", diff, total);

    for (int s = 0; s < kSlots; ++s) {
        cudaFreeHost(h_in[s]); cudaFreeHost(h_out[s]);
        cudaFree(d_in[s]); cudaFree(d_out[s]);
        cudaEventDestroy(done[s]);
        cudaStreamDestroy(stream[s]);
    }
    return 0;
}
