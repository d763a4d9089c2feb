// case: proof-of-work nonce search uploads the block header with its cudaMemcpy destination and source swapped (a stack array given as destination of a HostToDevice copy), and after synchronizing reads the winning nonce by dereferencing the cudaMalloc'd result pointer on the host.
// expect: memcpy_kind_mismatch=1, host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>

__device__ __forceinline__ uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

__global__ void search(const uint8_t* header, uint32_t base_nonce, uint32_t target_zero_bits,
                       uint32_t* found_flag, uint32_t* found_nonce) {
    uint32_t nonce = base_nonce + blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t h = 0x6a09e667u;
    for (int i = 0; i < 76; ++i) h = rotr(h ^ header[i], 7) * 0x9e3779b1u;
    h = rotr(h ^ nonce, 11) * 0x85ebca6bu;
    h ^= h >> 16;
    if (__clz(h) >= (int)target_zero_bits && atomicCAS(found_flag, 0u, 1u) == 0u) *found_nonce = nonce;
}

struct Miner {
    uint8_t* d_header = nullptr;
    uint32_t* d_flag = nullptr;
    uint32_t* d_nonce = nullptr;

    Miner() {
        cudaMalloc(&d_header, 80);
        cudaMalloc(&d_flag, sizeof(uint32_t));
        cudaMalloc(&d_nonce, sizeof(uint32_t));
    }
    ~Miner() {
        cudaFree(d_header);
        cudaFree(d_flag);
        cudaFree(d_nonce);
    }

    bool mine(const uint8_t (&header)[80], uint32_t difficulty, uint32_t* out) {
        uint8_t h_header[80];
        std::memcpy(h_header, header, sizeof(h_header));
        cudaMemcpy(h_header, d_header, sizeof(h_header), cudaMemcpyHostToDevice);
        cudaMemset(d_flag, 0, sizeof(uint32_t));
        const uint32_t per_launch = 1u << 24;
        for (uint32_t base = 0; base < 0xff000000u; base += per_launch) {
            search<<<per_launch / 256, 256>>>(d_header, base, difficulty, d_flag, d_nonce);
            uint32_t flag = 0;
            cudaMemcpy(&flag, d_flag, sizeof(flag), cudaMemcpyDeviceToHost);
            if (flag) {
                cudaDeviceSynchronize();
                *out = *d_nonce;
                return true;
            }
        }
        return false;
    }
};

int main() {
    uint8_t header[80];
    for (int i = 0; i < 80; ++i) header[i] = uint8_t(i * 31 + 7);
    Miner miner;
    uint32_t nonce = 0;
    if (miner.mine(header, 20, &nonce)) printf("nonce %08x\n", nonce);
    else printf("no nonce found\n");
    return 0;
}
