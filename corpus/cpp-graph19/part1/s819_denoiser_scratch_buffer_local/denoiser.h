#pragma once
// Two-pass bilateral-style denoiser for 16-bit depth frames: a horizontal pass into a
// scratch image and a vertical pass into the output, recorded once into a graph together
// with the upload and the download through pinned staging.
#include "cuda_check.h"
#include "device_buffer.h"

__global__ void smooth_rows(const unsigned short* __restrict__ in, float* __restrict__ tmp,
                            int w, int h, float sigma_r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    float centre = in[y * w + x], acc = 0.0f, norm = 0.0f;
    for (int dx = -3; dx <= 3; ++dx) {
        int xx = x + dx < 0 ? 0 : (x + dx >= w ? w - 1 : x + dx);
        float v = in[y * w + xx], d = (v - centre) / sigma_r;
        float wgt = __expf(-0.5f * d * d);
        acc += wgt * v;
        norm += wgt;
    }
    tmp[y * w + x] = acc / norm;
}

__global__ void smooth_cols(const float* __restrict__ tmp, unsigned short* __restrict__ out,
                            int w, int h, float sigma_r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    float centre = tmp[y * w + x], acc = 0.0f, norm = 0.0f;
    for (int dy = -3; dy <= 3; ++dy) {
        int yy = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
        float v = tmp[yy * w + x], d = (v - centre) / sigma_r;
        float wgt = __expf(-0.5f * d * d);
        acc += wgt * v;
        norm += wgt;
    }
    out[y * w + x] = static_cast<unsigned short>(acc / norm + 0.5f);
}

class DepthDenoiser {
public:
    DepthDenoiser(int width, int height)
        : w_(width), h_(height), in_(static_cast<size_t>(width) * height),
          out_(static_cast<size_t>(width) * height) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocHost(&h_in_, in_.bytes()));
        CUDA_CHECK(cudaMallocHost(&h_out_, out_.bytes()));
    }

    ~DepthDenoiser() {
        cudaStreamSynchronize(stream_);
        if (exec_) cudaGraphExecDestroy(exec_);
        cudaFreeHost(h_out_);
        cudaFreeHost(h_in_);
        cudaStreamDestroy(stream_);
    }

    void capture(float sigma_r) {
        DeviceBuffer<float> scratch(static_cast<size_t>(w_) * h_);
        dim3 grid((w_ + 127) / 128, h_);
        cudaGraph_t graph;
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        CUDA_CHECK(cudaMemcpyAsync(in_.data(), h_in_, in_.bytes(), cudaMemcpyHostToDevice, stream_));
        smooth_rows<<<grid, 128, 0, stream_>>>(in_.data(), scratch.data(), w_, h_, sigma_r);
        smooth_cols<<<grid, 128, 0, stream_>>>(scratch.data(), out_.data(), w_, h_, sigma_r);
        CUDA_CHECK(cudaMemcpyAsync(h_out_, out_.data(), out_.bytes(), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }

    unsigned short* input() { return h_in_; }
    const unsigned short* output() const { return h_out_; }

    void run() {
        CUDA_CHECK(cudaGraphLaunch(exec_, stream_));  // EXPECT: graph_uses_freed_memory
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    int w_, h_;
    DeviceBuffer<unsigned short> in_;
    DeviceBuffer<unsigned short> out_;
    unsigned short* h_in_ = nullptr;
    unsigned short* h_out_ = nullptr;
    cudaStream_t stream_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
};
