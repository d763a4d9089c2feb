// case: packet-capture uploader: cudaHostRegister of the malloc'd capture buffer is only under #ifdef PIN_CAPTURE_BUFFERS (not defined by default), so the cudaMemcpyAsync reads pageable memory and the destructor's cudaHostUnregister unregisters memory that was never registered
// expect: pageable_async_copy=1, mismatched_free=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void count_tcp_syn(const uint8_t* frames, int frame_len, int nframes, unsigned int* syn_count) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= nframes) return;
    const uint8_t* p = frames + static_cast<size_t>(f) * frame_len;
    bool ipv4 = p[12] == 0x08 && p[13] == 0x00;
    bool tcp = p[23] == 6;
    bool syn = (p[47] & 0x02) != 0;
    if (ipv4 && tcp && syn) atomicAdd(syn_count, 1u);
}

class CaptureUploader {
public:
    CaptureUploader(int frame_len, int nframes) : frame_len_(frame_len), nframes_(nframes) {
        bytes_ = static_cast<size_t>(frame_len_) * nframes_;
        buf_ = static_cast<uint8_t*>(std::malloc(bytes_));
#ifdef PIN_CAPTURE_BUFFERS
        CUDA_CHECK(cudaHostRegister(buf_, bytes_, cudaHostRegisterPortable));
#endif
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_frames_, bytes_));
        CUDA_CHECK(cudaMalloc(&d_syn_, sizeof(unsigned int)));
    }

    ~CaptureUploader() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_syn_);
        cudaFree(d_frames_);
        cudaStreamDestroy(stream_);
        cudaHostUnregister(this->buf_); // EXPECT: mismatched_free
        std::free(buf_);
    }

    uint8_t* buffer() { return buf_; }

    unsigned int analyze() {
        CUDA_CHECK(cudaMemsetAsync(d_syn_, 0, sizeof(unsigned int), stream_));
        CUDA_CHECK(cudaMemcpyAsync(d_frames_, this->buf_, bytes_, cudaMemcpyHostToDevice, stream_)); // EXPECT: pageable_async_copy
        count_tcp_syn<<<(nframes_ + 127) / 128, 128, 0, stream_>>>(d_frames_, frame_len_, nframes_, d_syn_);
        unsigned int syn = 0;
        CUDA_CHECK(cudaMemcpyAsync(&syn, d_syn_, sizeof(syn), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return syn;
    }

private:
    int frame_len_, nframes_;
    size_t bytes_ = 0;
    uint8_t* buf_ = nullptr;
    cudaStream_t stream_ = nullptr;
    uint8_t* d_frames_ = nullptr;
    unsigned int* d_syn_ = nullptr;
};

int main() {
    CaptureUploader up(1514, 65536);
    std::memset(up.buffer(), 0, size_t(1514) * 65536);
    std::printf("SYN frames: %u\n", up.analyze());
    return 0;
}
