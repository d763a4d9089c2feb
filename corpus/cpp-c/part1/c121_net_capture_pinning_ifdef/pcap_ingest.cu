// case: a packet-capture ingester page-locks its std::vector batch buffer only under CAPTURE_PIN_BUFFERS, which capture_config.h leaves commented out; in the default build every cudaMemcpyAsync uploads from pageable memory, and the destructor's unconditional cudaHostUnregister unregisters memory that was never registered.
// expect: pageable_async_copy=1, mismatched_free=1
#include "capture_config.h"
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                                \
        }                                                                                \
    } while (0)

__global__ void classify_ethertype(const uint8_t* batch, int packets, int snaplen, unsigned* buckets) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= packets) return;
    const uint8_t* frame = batch + static_cast<size_t>(p) * snaplen;
    unsigned proto = (frame[12] == 0x08 && frame[13] == 0x00) ? frame[23] : 255u;  // IPv4 protocol byte
    atomicAdd(&buckets[proto % CAPTURE_PROTO_BUCKETS], 1u);
}

class PacketIngest {
public:
    PacketIngest() : batch_(static_cast<size_t>(CAPTURE_BATCH_PACKETS) * CAPTURE_SNAPLEN) {
#ifdef CAPTURE_PIN_BUFFERS
        CUDA_CHECK(cudaHostRegister(batch_.data(), batch_.size(), cudaHostRegisterPortable));
#endif
        CUDA_CHECK(cudaMalloc(&d_batch_, batch_.size()));
        CUDA_CHECK(cudaMalloc(&d_buckets_, CAPTURE_PROTO_BUCKETS * sizeof(unsigned)));
        CUDA_CHECK(cudaMemset(d_buckets_, 0, CAPTURE_PROTO_BUCKETS * sizeof(unsigned)));
        CUDA_CHECK(cudaStreamCreate(&stream_));
    }

    ~PacketIngest() {
        cudaStreamSynchronize(stream_);
        cudaHostUnregister(batch_.data());  // EXPECT: mismatched_free
        cudaFree(d_batch_);
        cudaFree(d_buckets_);
        cudaStreamDestroy(stream_);
    }

    std::vector<uint8_t>& batch() { return batch_; }

    void submit() {
        CUDA_CHECK(cudaMemcpyAsync(d_batch_, batch_.data(), batch_.size(), cudaMemcpyHostToDevice, stream_));  // EXPECT: pageable_async_copy
        classify_ethertype<<<(CAPTURE_BATCH_PACKETS + 255) / 256, 256, 0, stream_>>>(
            d_batch_, CAPTURE_BATCH_PACKETS, CAPTURE_SNAPLEN, d_buckets_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));  // the batch buffer is refilled right after
    }

    std::vector<unsigned> histogram() const {
        std::vector<unsigned> h(CAPTURE_PROTO_BUCKETS);
        CUDA_CHECK(cudaMemcpy(h.data(), d_buckets_, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        return h;
    }

private:
    std::vector<uint8_t> batch_;
    uint8_t* d_batch_ = nullptr;
    unsigned* d_buckets_ = nullptr;
    cudaStream_t stream_ = nullptr;
};

static void fake_capture(std::vector<uint8_t>& batch, int round) {
    for (size_t p = 0; p < CAPTURE_BATCH_PACKETS; ++p) {
        uint8_t* f = batch.data() + p * CAPTURE_SNAPLEN;
        f[12] = 0x08; f[13] = 0x00;
        f[23] = static_cast<uint8_t>((p + round) % 3 == 0 ? 17 : 6);  // UDP or TCP
    }
}

int main() {
    PacketIngest ingest;
    for (int round = 0; round < 16; ++round) {
        fake_capture(ingest.batch(), round);
        ingest.submit();
    }
    auto h = ingest.histogram();
    std::printf("tcp %u udp %u\n", h[6], h[17]);
    return 0;
}
