// case: a matching engine uploads its pending orders from a std::vector with cudaMemcpyAsync (pageable) on a cudaStreamNonBlocking stream, then stages the next tick's risk limits with a blocking cudaMemcpy and reads the pinned fills, assuming the blocking copy waited; the legacy default stream does not wait for a non-blocking stream.
// expect: pageable_async_copy=1, missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err = (call);                                             \
        if (err != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(err),     \
                         __FILE__, __LINE__);                                 \
            throw err;                                                        \
        }                                                                     \
    } while (0)

struct Order { int64_t id; int32_t px_ticks; int32_t qty; int32_t side; int32_t account; int64_t ts_ns; };
struct Fill { int64_t order_id; int32_t px_ticks; int32_t qty; };
struct RiskLimits { int64_t max_notional[64]; int32_t max_qty[64]; };

__global__ void match_against_top(const Order* orders, int n, int32_t best_bid, int32_t best_ask,
                                  const RiskLimits* limits, Fill* fills) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Order o = orders[i];
    bool crosses = o.side > 0 ? o.px_ticks >= best_ask : o.px_ticks <= best_bid;
    int32_t qty = min(o.qty, limits->max_qty[o.account & 63]);
    fills[i] = Fill{o.id, o.side > 0 ? best_ask : best_bid, crosses ? qty : 0};
}

class MatchingSession {
public:
    static constexpr int kMaxOrders = 1 << 16;

    MatchingSession() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_orders_, kMaxOrders * sizeof(Order)));
        CUDA_CHECK(cudaMalloc(&d_fills_, kMaxOrders * sizeof(Fill)));
        CUDA_CHECK(cudaMalloc(&d_limits_cur_, sizeof(RiskLimits)));
        CUDA_CHECK(cudaMalloc(&d_limits_next_, sizeof(RiskLimits)));
        CUDA_CHECK(cudaMallocHost(&h_fills_, kMaxOrders * sizeof(Fill)));
        RiskLimits initial{};
        for (int a = 0; a < 64; ++a) { initial.max_notional[a] = 1'000'000; initial.max_qty[a] = 500; }
        CUDA_CHECK(cudaMemcpy(d_limits_cur_, &initial, sizeof(initial), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize());
        pending_.reserve(kMaxOrders);
    }

    ~MatchingSession() {
        cudaStreamSynchronize(stream_);
        cudaFreeHost(h_fills_);
        cudaFree(d_limits_next_);
        cudaFree(d_limits_cur_);
        cudaFree(d_fills_);
        cudaFree(d_orders_);
        cudaStreamDestroy(stream_);
    }

    void add(const Order& o) { pending_.push_back(o); }

    int run_tick(int32_t best_bid, int32_t best_ask, const RiskLimits& next_limits) {
        const int n = static_cast<int>(pending_.size());
        CUDA_CHECK(cudaMemcpyAsync(d_orders_, pending_.data(), n * sizeof(Order), cudaMemcpyHostToDevice, stream_));  // EXPECT: pageable_async_copy
        match_against_top<<<(n + 255) / 256, 256, 0, stream_>>>(d_orders_, n, best_bid, best_ask, d_limits_cur_, d_fills_);
        CUDA_CHECK(cudaMemcpyAsync(h_fills_, d_fills_, n * sizeof(Fill), cudaMemcpyDeviceToHost, stream_));

        // Stage the next tick's limits; cudaMemcpy is blocking, so the fills are back by now.
        CUDA_CHECK(cudaMemcpy(d_limits_next_, &next_limits, sizeof(RiskLimits), cudaMemcpyHostToDevice));

        int filled = 0;
        for (int i = 0; i < n; ++i) {
            if (h_fills_[i].qty > 0) ++filled;  // EXPECT: missing_sync
        }
        pending_.clear();
        return filled;
    }

private:
    cudaStream_t stream_ = nullptr;
    Order* d_orders_ = nullptr;
    Fill* d_fills_ = nullptr;
    Fill* h_fills_ = nullptr;
    RiskLimits* d_limits_cur_ = nullptr;
    RiskLimits* d_limits_next_ = nullptr;
    std::vector<Order> pending_;
};

int main() {
    MatchingSession session;
    for (int i = 0; i < MatchingSession::kMaxOrders; ++i)
        session.add(Order{i, 10'000 + (i % 7) - 3, 100, (i & 1) ? 1 : -1, i % 97, 0});
    RiskLimits next{};
    for (int a = 0; a < 64; ++a) { next.max_notional[a] = 2'000'000; next.max_qty[a] = 1'000; }
    std::printf("fills this tick: %d\n", session.run_tick(9'999, 10'001, next));
    return 0;
}
