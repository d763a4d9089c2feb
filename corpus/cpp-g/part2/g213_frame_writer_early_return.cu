// case: a video encoder's readback function copies a pitched NV12 frame into a local RAII pinned staging buffer with cudaMemcpy2DAsync, and on the early return taken when the encoder is not ready the staging destructor calls cudaFreeHost while that copy may still be writing it.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

#define VID_CHECK(call)                                                              \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));     \
    } while (0)

template <typename T>
class PinnedStaging {
public:
    explicit PinnedStaging(size_t n) : n_(n) { VID_CHECK(cudaMallocHost(&p_, n * sizeof(T))); }
    PinnedStaging(PinnedStaging&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(o.n_) {}
    PinnedStaging(const PinnedStaging&) = delete;
    ~PinnedStaging() { if (p_) cudaFreeHost(p_); }
    T* data() { return p_; }
    size_t size() const { return n_; }
private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

struct DeviceFrame {
    uint8_t* luma = nullptr;
    size_t pitch = 0;
    int width = 0, height = 0;
};

class BitstreamEncoder {
public:
    bool ready() const { return queued_ < 4; }
    void consume(const uint8_t* nv12, int width, int height) {
        uint64_t h = 1469598103934665603ull;
        for (int i = 0; i < width * height; i += 64) h = (h ^ nv12[i]) * 1099511628211ull;
        hashes_.push_back(h);
        ++queued_;
    }
    void flush() { queued_ = 0; }
private:
    int queued_ = 0;
    std::vector<uint64_t> hashes_;
};

__global__ void draw_gradient(uint8_t* luma, size_t pitch, int width, int height, int t) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x < width && y < height) luma[y * pitch + x] = static_cast<uint8_t>(x + y + t);
}

bool encode_frame(const DeviceFrame& f, cudaStream_t stream, BitstreamEncoder& enc) {
    const size_t row = static_cast<size_t>(f.width);
    const int rows = f.height * 3 / 2;
    PinnedStaging<uint8_t> staging(row * rows);
    VID_CHECK(cudaMemcpy2DAsync(staging.data(), row, f.luma, f.pitch, row, rows,
                                cudaMemcpyDeviceToHost, stream));
    if (!enc.ready()) {
        std::fprintf(stderr, "encoder busy, dropping frame\n");
        return false;
    }
    VID_CHECK(cudaStreamSynchronize(stream));
    enc.consume(staging.data(), f.width, f.height);
    return true;
}

int main() {
    DeviceFrame frame;
    frame.width = 1920;
    frame.height = 1080;
    VID_CHECK(cudaMallocPitch(&frame.luma, &frame.pitch, frame.width, frame.height * 3 / 2));
    cudaStream_t stream;
    VID_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    BitstreamEncoder encoder;
    int dropped = 0;
    for (int t = 0; t < 12; ++t) {
        dim3 grid((frame.width + 255) / 256, frame.height * 3 / 2);
        draw_gradient<<<grid, 256, 0, stream>>>(frame.luma, frame.pitch, frame.width,
                                                frame.height * 3 / 2, t);
        if (!encode_frame(frame, stream, encoder)) ++dropped;
        if (t % 6 == 5) encoder.flush();
    }
    VID_CHECK(cudaStreamSynchronize(stream));
    std::printf("dropped %d frames\n", dropped);
    VID_CHECK(cudaFree(frame.luma));
    VID_CHECK(cudaStreamDestroy(stream));
    return 0;
}
