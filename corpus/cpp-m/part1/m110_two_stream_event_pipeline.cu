// case: A frame pipeline uploads on one stream, records an event the compute stream waits on, downloads on the compute stream and waits on a second event before the host reads the pinned output or refills the pinned input; every host access is ordered after the work it depends on; correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t status = (call);                                               \
        if (status != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s failed: %s\n", #call,                         \
                         cudaGetErrorString(status));                              \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kW = 1280;
constexpr int kH = 720;
constexpr size_t kPix = size_t(kW) * kH;

__global__ void gamma_correct(const uchar4* __restrict__ in, uchar4* __restrict__ out, size_t n, float inv_gamma) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    uchar4 p = in[i];
    auto g = [&](unsigned char c) { return (unsigned char)(255.0f * __powf(c / 255.0f, inv_gamma)); };
    out[i] = make_uchar4(g(p.x), g(p.y), g(p.z), p.w);
}

class FramePipeline {
public:
    FramePipeline() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&upload_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&uploaded_, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
        CUDA_CHECK(cudaMallocHost(&h_in_, kPix * sizeof(uchar4)));
        CUDA_CHECK(cudaMallocHost(&h_out_, kPix * sizeof(uchar4)));
        CUDA_CHECK(cudaMalloc(&d_in_, kPix * sizeof(uchar4)));
        CUDA_CHECK(cudaMalloc(&d_out_, kPix * sizeof(uchar4)));
    }
    ~FramePipeline() {
        cudaStreamSynchronize(compute_);
        cudaStreamSynchronize(upload_);
        cudaFree(d_out_);
        cudaFree(d_in_);
        cudaFreeHost(h_out_);
        cudaFreeHost(h_in_);
        cudaEventDestroy(done_);
        cudaEventDestroy(uploaded_);
        cudaStreamDestroy(compute_);
        cudaStreamDestroy(upload_);
    }

    double process(int frame) {
        for (size_t i = 0; i < kPix; ++i) {
            unsigned char v = (unsigned char)((i + frame * 3) & 0xFF);
            h_in_[i] = make_uchar4(v, (unsigned char)(v / 2), (unsigned char)(255 - v), 255);
        }
        CUDA_CHECK(cudaMemcpyAsync(d_in_, h_in_, kPix * sizeof(uchar4), cudaMemcpyHostToDevice, upload_));
        CUDA_CHECK(cudaEventRecord(uploaded_, upload_));
        CUDA_CHECK(cudaStreamWaitEvent(compute_, uploaded_, 0));
        gamma_correct<<<unsigned((kPix + 255) / 256), 256, 0, compute_>>>(d_in_, d_out_, kPix, 1.0f / 2.2f);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_out_, d_out_, kPix * sizeof(uchar4), cudaMemcpyDeviceToHost, compute_));
        CUDA_CHECK(cudaEventRecord(done_, compute_));
        CUDA_CHECK(cudaEventSynchronize(done_));

        double luma = 0.0;
        for (size_t i = 0; i < kPix; ++i)
            luma += 0.299 * h_out_[i].x + 0.587 * h_out_[i].y + 0.114 * h_out_[i].z;
        return luma / kPix;
    }

private:
    cudaStream_t upload_ = nullptr, compute_ = nullptr;
    cudaEvent_t uploaded_ = nullptr, done_ = nullptr;
    uchar4* h_in_ = nullptr;
    uchar4* h_out_ = nullptr;
    uchar4* d_in_ = nullptr;
    uchar4* d_out_ = nullptr;
};

int main() {
    FramePipeline pipeline;
    for (int f = 0; f < 8; ++f) std::printf("frame %d mean luma %.2f\n", f, pipeline.process(f));
    return 0;
}
