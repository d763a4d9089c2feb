// case: A log-analytics reducer streams a large host array through one pinned staging buffer, refilling it with std::memcpy at the top of each chunk while the previous chunk's cudaMemcpyAsync from it may still be running; the stream is only synchronized after the loop (missing_sync at the refill).
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                      \
    do {                                                                           \
        cudaError_t s_ = (x);                                                      \
        if (s_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(s_));                                  \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

constexpr size_t kChunk = size_t(1) << 22;  // 4M latencies per chunk (16 MiB)

struct LatencyStats {
    double sum;
    double sum_sq;
    unsigned long long over_slo;
};

__global__ void accumulate_stats(const float* __restrict__ lat, size_t n, float slo_ms,
                                 LatencyStats* stats) {
    double s = 0.0, s2 = 0.0;
    unsigned long long over = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        float v = lat[i];
        s += v;
        s2 += double(v) * v;
        over += v > slo_ms;
    }
    atomicAdd(&stats->sum, s);
    atomicAdd(&stats->sum_sq, s2);
    atomicAdd(&stats->over_slo, over);
}

class ChunkedReducer {
public:
    ChunkedReducer() {
        CK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CK(cudaMallocHost(&staging_, kChunk * sizeof(float)));
        CK(cudaMalloc(&d_chunk_, kChunk * sizeof(float)));
        CK(cudaMalloc(&d_stats_, sizeof(LatencyStats)));
    }
    ~ChunkedReducer() {
        cudaFree(d_stats_);
        cudaFree(d_chunk_);
        cudaFreeHost(staging_);
        cudaStreamDestroy(stream_);
    }

    LatencyStats run(const std::vector<float>& latencies, float slo_ms) {
        CK(cudaMemsetAsync(d_stats_, 0, sizeof(LatencyStats), stream_));
        for (size_t off = 0; off < latencies.size(); off += kChunk) {
            size_t n = std::min(kChunk, latencies.size() - off);
            std::memcpy(staging_, latencies.data() + off, n * sizeof(float));  // EXPECT: missing_sync
            CK(cudaMemcpyAsync(d_chunk_, staging_, n * sizeof(float), cudaMemcpyHostToDevice, stream_));
            accumulate_stats<<<256, 256, 0, stream_>>>(d_chunk_, n, slo_ms, d_stats_);
            CK(cudaGetLastError());
        }
        LatencyStats out{};
        CK(cudaMemcpyAsync(&out, d_stats_, sizeof(out), cudaMemcpyDeviceToHost, stream_));
        CK(cudaStreamSynchronize(stream_));
        return out;
    }

private:
    cudaStream_t stream_ = nullptr;
    float* staging_ = nullptr;
    float* d_chunk_ = nullptr;
    LatencyStats* d_stats_ = nullptr;
};

int main(int argc, char** argv) {
    size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t(1) << 25);
    std::vector<float> lat(n);
    unsigned state = 12345u;
    for (auto& v : lat) {
        state = state * 1664525u + 1013904223u;
        v = 2.0f + 30.0f * float(state >> 8) / float(1u << 24);
    }

    ChunkedReducer reducer;
    LatencyStats st = reducer.run(lat, 25.0f);
    double mean = st.sum / double(n);
    double stddev = std::sqrt(std::max(0.0, st.sum_sq / double(n) - mean * mean));
    std::printf("requests=%zu mean=%.3f ms stddev=%.3f ms over SLO=%llu\n", n, mean, stddev, st.over_slo);
    return 0;
}
