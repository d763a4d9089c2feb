// case: an order-book signal engine stages each snapshot in a PinnedBuffer<Level> (cudaMallocHost/cudaFreeHost RAII from the header), uploads and downloads asynchronously on its stream, and reads the pinned signals only after cudaEventSynchronize on an event recorded after the download.
// expect: none
#include "gpu_buffers.cuh"
#include <cstdint>

struct Level { int32_t bid_px, bid_qty, ask_px, ask_qty; };
struct Signal { float microprice; float imbalance; };

constexpr int kSymbols = 4096;
constexpr int kDepth = 16;

__global__ void book_signals(const Level* book, int symbols, Signal* out) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= symbols) return;
    const Level* l = book + static_cast<size_t>(s) * kDepth;
    float bq = 0.f, aq = 0.f;
    for (int d = 0; d < kDepth; ++d) { bq += l[d].bid_qty; aq += l[d].ask_qty; }
    float top = (l[0].bid_px * float(l[0].ask_qty) + l[0].ask_px * float(l[0].bid_qty)) /
                float(l[0].bid_qty + l[0].ask_qty);
    out[s] = Signal{top, (bq - aq) / (bq + aq)};
}

class SignalEngine {
public:
    SignalEngine() : book_(kSymbols * kDepth), d_book_(kSymbols * kDepth),
                     d_signals_(kSymbols), signals_(kSymbols) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
    }
    ~SignalEngine() {
        cudaStreamSynchronize(stream_);
        cudaEventDestroy(done_);
        cudaStreamDestroy(stream_);
    }

    PinnedBuffer<Level>& book() { return book_; }

    void publish_async() {
        CUDA_CHECK(cudaMemcpyAsync(d_book_.get(), book_.data(), book_.bytes(), cudaMemcpyHostToDevice, stream_));
        book_signals<<<(kSymbols + 127) / 128, 128, 0, stream_>>>(d_book_.get(), kSymbols, d_signals_.get());
        CUDA_CHECK(cudaMemcpyAsync(signals_.data(), d_signals_.get(), signals_.bytes(), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaEventRecord(done_, stream_));
    }

    const PinnedBuffer<Signal>& collect() {
        CUDA_CHECK(cudaEventSynchronize(done_));
        return signals_;
    }

private:
    PinnedBuffer<Level> book_;
    DeviceBuffer<Level> d_book_;
    DeviceBuffer<Signal> d_signals_;
    PinnedBuffer<Signal> signals_;
    cudaStream_t stream_ = nullptr;
    cudaEvent_t done_ = nullptr;
};

static void decode_feed(PinnedBuffer<Level>& book, int tick) {
    for (size_t i = 0; i < book.size(); ++i)
        book[i] = Level{10'000 - int(i % kDepth), 100 + tick, 10'001 + int(i % kDepth), 120 - tick};
}

int main() {
    SignalEngine engine;
    for (int tick = 0; tick < 3; ++tick) {
        decode_feed(engine.book(), tick);
        engine.publish_async();
        // ... risk checks on the previous tick's fills run here, touching neither buffer ...
        const PinnedBuffer<Signal>& sig = engine.collect();
        std::printf("tick %d: AAPL microprice %.2f imbalance %+.3f\n", tick, sig[0].microprice, sig[0].imbalance);
    }
    return 0;
}
