// case: a producer/consumer feature-extraction pipeline keeps per-slot non-blocking streams, pinned in/out buffers and RAII event guards in std::vectors, and waits on each slot's event before it refills or consumes that slot and again when draining, so no host access races the copies.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <vector>

#define PIPE_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));   \
    } while (0)

class Event {
public:
    Event() { PIPE_CHECK(cudaEventCreateWithFlags(&ev_, cudaEventDisableTiming)); }
    ~Event() { if (ev_) cudaEventDestroy(ev_); }
    Event(Event&& o) noexcept : ev_(o.ev_) { o.ev_ = nullptr; }
    Event(const Event&) = delete;
    void record(cudaStream_t s) { PIPE_CHECK(cudaEventRecord(ev_, s)); }
    void wait_host() { PIPE_CHECK(cudaEventSynchronize(ev_)); }
private:
    cudaEvent_t ev_ = nullptr;
};

__global__ void extract_features(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i] - 0.5f * in[i];
}

int main() {
    constexpr int kSlots = 3;
    constexpr int kChunks = 20;
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);

    std::vector<cudaStream_t> streams(kSlots);
    std::vector<float*> h_in(kSlots), h_out(kSlots), d_in(kSlots), d_out(kSlots);
    std::vector<Event> done;
    for (int s = 0; s < kSlots; ++s) {
        PIPE_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        PIPE_CHECK(cudaMallocHost(&h_in[s], bytes));
        PIPE_CHECK(cudaMallocHost(&h_out[s], bytes));
        PIPE_CHECK(cudaMalloc(&d_in[s], bytes));
        PIPE_CHECK(cudaMalloc(&d_out[s], bytes));
        done.emplace_back();
    }

    double total = 0.0;
    std::function<void(int, const float*)> consume = [&](int chunk, const float* feats) {
        double acc = 0.0;
        for (int i = 0; i < n; ++i) acc += feats[i];
        total += acc;
        if (chunk % 5 == 0) std::printf("chunk %d partial %.3f\n", chunk, acc);
    };

    for (int chunk = 0; chunk < kChunks; ++chunk) {
        const int slot = chunk % kSlots;
        if (chunk >= kSlots) {
            done[slot].wait_host();
            consume(chunk - kSlots, h_out[slot]);
        }
        for (int i = 0; i < n; ++i) h_in[slot][i] = static_cast<float>((chunk * 31 + i) % 1000) * 1e-3f;
        PIPE_CHECK(cudaMemcpyAsync(d_in[slot], h_in[slot], bytes, cudaMemcpyHostToDevice, streams[slot]));
        extract_features<<<(n + 255) / 256, 256, 0, streams[slot]>>>(d_in[slot], d_out[slot], n);
        PIPE_CHECK(cudaMemcpyAsync(h_out[slot], d_out[slot], bytes, cudaMemcpyDeviceToHost, streams[slot]));
        done[slot].record(streams[slot]);
    }
    for (int chunk = kChunks - kSlots; chunk < kChunks; ++chunk) {
        const int slot = chunk % kSlots;
        done[slot].wait_host();
        consume(chunk, h_out[slot]);
    }
    std::printf("total %.3f\n", total);

    for (int s = 0; s < kSlots; ++s) {
        PIPE_CHECK(cudaStreamSynchronize(streams[s]));
        cudaFreeHost(h_in[s]);
        cudaFreeHost(h_out[s]);
        cudaFree(d_in[s]);
        cudaFree(d_out[s]);
        cudaStreamDestroy(streams[s]);
    }
    return 0;
}
