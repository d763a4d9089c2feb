// case: video decoder front end fills per-slot write-combined pinned staging buffers (host writes only) and uploads them on per-slot streams, waiting on each slot's event before refilling it; results come back into ordinary cudaMallocHost memory that the host reads after an event synchronize.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

__global__ void yuv_to_luma_mean(const uint8_t* nv12, int w, int h, unsigned long long* sum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w * h) atomicAdd(sum, (unsigned long long)nv12[i]);
}

struct UploadSlot {
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;
    uint8_t* h_wc = nullptr;                 // write-combined: the host only writes it
    uint8_t* d_frame = nullptr;
    unsigned long long* d_sum = nullptr;
    unsigned long long* h_sum = nullptr;     // cached pinned: the host reads it
    bool busy = false;
};

class FrameUploader {
public:
    FrameUploader(int w, int h, int depth) : w_(w), h_(h), bytes_(size_t(w) * h * 3 / 2), slots_(depth) {
        for (UploadSlot& s : slots_) {
            cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking);
            cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming);
            cudaHostAlloc(reinterpret_cast<void**>(&s.h_wc), bytes_, cudaHostAllocWriteCombined);
            cudaMalloc(&s.d_frame, bytes_);
            cudaMalloc(&s.d_sum, sizeof(unsigned long long));
            cudaMallocHost(&s.h_sum, sizeof(unsigned long long));
        }
    }
    ~FrameUploader() {
        for (UploadSlot& s : slots_) {
            cudaEventSynchronize(s.done);
            cudaFreeHost(s.h_wc); cudaFreeHost(s.h_sum);
            cudaFree(s.d_frame); cudaFree(s.d_sum);
            cudaEventDestroy(s.done); cudaStreamDestroy(s.stream);
        }
    }

    void push(const uint8_t* bitstream_frame, int index) {
        UploadSlot& s = slots_[index % slots_.size()];
        if (s.busy) {
            cudaEventSynchronize(s.done);
            printf("frame %d mean luma %.2f\n", index - int(slots_.size()), double(*s.h_sum) / (w_ * h_));
        }
        std::memcpy(s.h_wc, bitstream_frame, bytes_);
        cudaMemcpyAsync(s.d_frame, s.h_wc, bytes_, cudaMemcpyHostToDevice, s.stream);
        cudaMemsetAsync(s.d_sum, 0, sizeof(unsigned long long), s.stream);
        yuv_to_luma_mean<<<(w_ * h_ + 255) / 256, 256, 0, s.stream>>>(s.d_frame, w_, h_, s.d_sum);
        cudaMemcpyAsync(s.h_sum, s.d_sum, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s.stream);
        cudaEventRecord(s.done, s.stream);
        s.busy = true;
    }

private:
    int w_, h_;
    size_t bytes_;
    std::vector<UploadSlot> slots_;
};

int main() {
    const int w = 1280, h = 720;
    std::vector<uint8_t> frame(size_t(w) * h * 3 / 2);
    FrameUploader up(w, h, 3);
    for (int f = 0; f < 12; ++f) {
        std::memset(frame.data(), 16 + f, frame.size());
        up.push(frame.data(), f);
    }
    return 0;
}
