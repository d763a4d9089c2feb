// case: an AES-CTR engine takes the device address of its __device__ S-box with cudaGetSymbolAddress to upload the table, and its destructor passes that module global to cudaFree along with its real allocations
// expect: mismatched_free=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e__ = (call);                                                       \
        if (e__ != cudaSuccess)                                                         \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e__)); \
    } while (0)

__device__ uint8_t g_sbox[256];

__device__ inline uint8_t xtime(uint8_t x) { return (uint8_t)((x << 1) ^ ((x & 0x80) ? 0x1b : 0)); }

// Toy round function (SubBytes + a column mix), enough to exercise the table.
__global__ void ctr_keystream(const uint8_t* round_keys, uint64_t nonce, uint8_t* out, size_t blocks) {
    size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (b >= blocks) return;
    uint8_t st[16];
    uint64_t ctr = nonce + b;
    for (int i = 0; i < 16; ++i) st[i] = (uint8_t)(ctr >> (8 * (i & 7))) ^ round_keys[i];
    for (int r = 1; r <= 10; ++r)
        for (int i = 0; i < 16; ++i) st[i] = xtime(g_sbox[st[i]]) ^ round_keys[16 * r + i];
    for (int i = 0; i < 16; ++i) out[b * 16 + i] = st[i];
}

class AesCtrEngine {
public:
    AesCtrEngine(const uint8_t key[16], const std::vector<uint8_t>& sbox) {
        CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&d_sbox_), g_sbox));
        CHECK(cudaMemcpy(d_sbox_, sbox.data(), 256, cudaMemcpyHostToDevice));
        uint8_t rk[176];
        expand_key(key, rk);
        CHECK(cudaMalloc(&d_round_keys_, sizeof(rk)));
        CHECK(cudaMemcpy(d_round_keys_, rk, sizeof(rk), cudaMemcpyHostToDevice));
    }

    ~AesCtrEngine() {
        cudaFree(d_keystream_);
        cudaFree(d_round_keys_);
        cudaFree(d_sbox_); // EXPECT: mismatched_free
    }

    void encrypt(uint8_t* data, size_t len, uint64_t nonce) {
        size_t blocks = (len + 15) / 16;
        if (blocks > capacity_) {
            cudaFree(d_keystream_);
            CHECK(cudaMalloc(&d_keystream_, blocks * 16));
            capacity_ = blocks;
        }
        ctr_keystream<<<(unsigned)((blocks + 255) / 256), 256>>>(d_round_keys_, nonce, d_keystream_, blocks);
        std::vector<uint8_t> ks(blocks * 16);
        CHECK(cudaMemcpy(ks.data(), d_keystream_, blocks * 16, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < len; ++i) data[i] ^= ks[i];
    }

private:
    static void expand_key(const uint8_t key[16], uint8_t rk[176]) {
        std::memcpy(rk, key, 16);
        for (int i = 16; i < 176; ++i) rk[i] = (uint8_t)(rk[i - 16] ^ rk[i - 1] ^ (i / 16));
    }

    uint8_t* d_sbox_ = nullptr;
    uint8_t* d_round_keys_ = nullptr;
    uint8_t* d_keystream_ = nullptr;
    size_t capacity_ = 0;
};

int main() {
    std::vector<uint8_t> sbox(256);
    for (int i = 0; i < 256; ++i) sbox[i] = (uint8_t)((i * 7 + 99) & 0xFF);   // placeholder permutation
    const uint8_t key[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                             0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};
    std::vector<uint8_t> payload(1 << 20, 0x41);
    {
        AesCtrEngine engine(key, sbox);
        engine.encrypt(payload.data(), payload.size(), 0xFEEDFACE00000000ull);
    }
    std::printf("ciphertext[0..3] = %02x %02x %02x %02x\n", payload[0], payload[1], payload[2], payload[3]);
    return 0;
}
