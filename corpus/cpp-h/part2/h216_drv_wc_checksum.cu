// case: driver-API block cipher stages plaintext in a CU_MEMHOSTALLOC_WRITECOMBINED buffer (fine for the upload), then reads the ciphertext back into that same buffer and checksums it on the host, and finally releases the pinned buffer with cuMemFree.
// expect: write_combined_host_read=1, mismatched_free=1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

__global__ void xtea_encrypt(uint32_t* blocks, size_t n_pairs, uint4 key) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n_pairs) return;
    uint32_t v0 = blocks[2 * i], v1 = blocks[2 * i + 1], sum = 0;
    const uint32_t delta = 0x9E3779B9u, k[4] = {key.x, key.y, key.z, key.w};
    for (int r = 0; r < 32; ++r) {
        v0 += (((v1 << 4) ^ (v1 >> 5)) + v1) ^ (sum + k[sum & 3]);
        sum += delta;
        v1 += (((v0 << 4) ^ (v0 >> 5)) + v0) ^ (sum + k[(sum >> 11) & 3]);
    }
    blocks[2 * i] = v0; blocks[2 * i + 1] = v1;
}

class DriverCipher {
public:
    explicit DriverCipher(size_t bytes) : bytes_(bytes) {
        cuInit(0);
        cuDeviceGet(&dev_, 0);
        cuDevicePrimaryCtxRetain(&ctx_, dev_);
        cuCtxSetCurrent(ctx_);
        cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING);
        cuMemHostAlloc(&h_stage_, bytes_, CU_MEMHOSTALLOC_WRITECOMBINED);
        cuMemAlloc(&d_buf_, bytes_);
    }
    ~DriverCipher() {
        cuStreamSynchronize(stream_);
        cuMemFree(d_buf_);
        cuMemFree(reinterpret_cast<CUdeviceptr>(h_stage_));
        cuStreamDestroy(stream_);
        cuDevicePrimaryCtxRelease(dev_);
    }

    uint64_t encrypt_and_checksum(uint32_t seed) {
        uint32_t* words = static_cast<uint32_t*>(h_stage_);
        size_t n_words = bytes_ / sizeof(uint32_t);
        for (size_t i = 0; i < n_words; ++i) words[i] = seed ^ uint32_t(i * 0x01000193u);
        cuMemcpyHtoDAsync(d_buf_, h_stage_, bytes_, stream_);
        size_t pairs = n_words / 2;
        xtea_encrypt<<<unsigned((pairs + 255) / 256), 256, 0, (cudaStream_t)stream_>>>(
            reinterpret_cast<uint32_t*>(d_buf_), pairs, make_uint4(1, 2, 3, 4));
        cuMemcpyDtoHAsync(h_stage_, d_buf_, bytes_, stream_);
        cuStreamSynchronize(stream_);
        uint64_t sum = 0;
        for (size_t i = 0; i < n_words; ++i) sum += words[i];
        return sum;
    }

private:
    size_t bytes_;
    CUdevice dev_ = 0;
    CUcontext ctx_ = nullptr;
    CUstream stream_ = nullptr;
    void* h_stage_ = nullptr;
    CUdeviceptr d_buf_ = 0;
};

int main() {
    DriverCipher cipher(size_t(64) << 20);
    for (uint32_t s = 1; s <= 3; ++s)
        printf("checksum %u: %016llx\n", s, (unsigned long long)cipher.encrypt_and_checksum(s));
    return 0;
}
