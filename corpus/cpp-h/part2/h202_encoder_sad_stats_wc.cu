// case: motion-estimation stage of a video encoder stages frames through a write-combined pinned buffer (fine) but also reads the per-block SAD statistics back into a second write-combined buffer and sums them on the host.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>

#define CK(call) do { cudaError_t s = (call); if (s != cudaSuccess) { printf("cuda error %d\n", (int)s); return false; } } while (0)

__global__ void block_sad(const uint8_t* cur, const uint8_t* ref, int width, int height, uint32_t* sad) {
    int bx = blockIdx.x, by = blockIdx.y;
    int x = bx * 16 + threadIdx.x, y0 = by * 16;
    uint32_t acc = 0;
    if (x < width) {
        for (int y = y0; y < y0 + 16 && y < height; ++y) {
            int d = int(cur[y * width + x]) - int(ref[y * width + x]);
            acc += d < 0 ? -d : d;
        }
    }
    atomicAdd(&sad[by * gridDim.x + bx], acc);
}

class MotionEstimator {
public:
    bool init(int width, int height) {
        w_ = width; h_ = height;
        frame_bytes_ = size_t(w_) * h_;
        blocks_x_ = (w_ + 15) / 16; blocks_y_ = (h_ + 15) / 16;
        stats_bytes_ = size_t(blocks_x_) * blocks_y_ * sizeof(uint32_t);
        CK(cudaStreamCreate(&stream_));
        CK(cudaHostAlloc(reinterpret_cast<void**>(&h_upload_), frame_bytes_, cudaHostAllocWriteCombined));
        CK(cudaHostAlloc(reinterpret_cast<void**>(&h_stats_), stats_bytes_, cudaHostAllocWriteCombined));
        CK(cudaMalloc(&d_cur_, frame_bytes_));
        CK(cudaMalloc(&d_ref_, frame_bytes_));
        CK(cudaMalloc(&d_sad_, stats_bytes_));
        return true;
    }

    bool submit(const uint8_t* luma) {
        std::memcpy(h_upload_, luma, frame_bytes_);   // write-only use of WC memory: intended
        std::swap(d_cur_, d_ref_);
        CK(cudaMemcpyAsync(d_cur_, h_upload_, frame_bytes_, cudaMemcpyHostToDevice, stream_));
        CK(cudaMemsetAsync(d_sad_, 0, stats_bytes_, stream_));
        block_sad<<<dim3(blocks_x_, blocks_y_), 16, 0, stream_>>>(d_cur_, d_ref_, w_, h_, d_sad_);
        CK(cudaMemcpyAsync(h_stats_, d_sad_, stats_bytes_, cudaMemcpyDeviceToHost, stream_));
        CK(cudaStreamSynchronize(stream_));
        return true;
    }

    uint64_t total_sad() const {
        uint64_t total = 0;
        for (int i = 0; i < blocks_x_ * blocks_y_; ++i) total += h_stats_[i];
        return total;
    }

    ~MotionEstimator() {
        cudaFree(d_cur_); cudaFree(d_ref_); cudaFree(d_sad_);
        cudaFreeHost(h_upload_); cudaFreeHost(h_stats_);
        cudaStreamDestroy(stream_);
    }

private:
    int w_ = 0, h_ = 0, blocks_x_ = 0, blocks_y_ = 0;
    size_t frame_bytes_ = 0, stats_bytes_ = 0;
    cudaStream_t stream_{};
    uint8_t* h_upload_ = nullptr;
    uint32_t* h_stats_ = nullptr;
    uint8_t* d_cur_ = nullptr;
    uint8_t* d_ref_ = nullptr;
    uint32_t* d_sad_ = nullptr;
};

int main() {
    const int w = 1920, h = 1088;
    static uint8_t frame[w * h];
    MotionEstimator me;
    if (!me.init(w, h)) return 1;
    for (int f = 0; f < 4; ++f) {
        std::memset(frame, f * 7, sizeof(frame));
        if (!me.submit(frame)) return 1;
        printf("frame %d sad %llu\n", f, (unsigned long long)me.total_sad());
    }
    return 0;
}
