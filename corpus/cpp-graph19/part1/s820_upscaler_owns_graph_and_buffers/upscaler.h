#pragma once
// 2x image upscaler (bilinear upsample followed by an unsharp mask) that owns its graph and
// every buffer the graph uses, the intermediate image included. Members are declared so
// that the buffers outlive the graph handle, and the destructor drains the stream and
// destroys the executable graph before the buffers' own destructors run.
#include "cuda_check.h"
#include "device_buffer.h"

__global__ void upsample2x(const unsigned char* __restrict__ in, float* __restrict__ up, int w,
                           int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    int W = 2 * w, H = 2 * h;
    if (x >= W || y >= H) return;
    float sx = (x + 0.5f) * 0.5f - 0.5f, sy = (y + 0.5f) * 0.5f - 0.5f;
    int x0 = sx < 0 ? 0 : (int)sx, y0 = sy < 0 ? 0 : (int)sy;
    int x1 = x0 + 1 < w ? x0 + 1 : w - 1, y1 = y0 + 1 < h ? y0 + 1 : h - 1;
    float fx = sx - x0, fy = sy - y0;
    fx = fx < 0 ? 0 : fx;
    fy = fy < 0 ? 0 : fy;
    float top = in[y0 * w + x0] * (1 - fx) + in[y0 * w + x1] * fx;
    float bot = in[y1 * w + x0] * (1 - fx) + in[y1 * w + x1] * fx;
    up[y * W + x] = top * (1 - fy) + bot * fy;
}

__global__ void unsharp(const float* __restrict__ up, unsigned char* __restrict__ out, int W,
                        int H, float amount) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= W || y >= H) return;
    float blur = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = x + dx < 0 ? 0 : (x + dx >= W ? W - 1 : x + dx);
            int yy = y + dy < 0 ? 0 : (y + dy >= H ? H - 1 : y + dy);
            blur += up[yy * W + xx];
        }
    float v = up[y * W + x] + amount * (up[y * W + x] - blur / 9.0f);
    out[y * W + x] = static_cast<unsigned char>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

class Upscaler {
public:
    Upscaler(int w, int h, float amount)
        : w_(w), h_(h), in_(static_cast<size_t>(w) * h), up_(4 * static_cast<size_t>(w) * h),
          out_(4 * static_cast<size_t>(w) * h) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocHost(&h_in_, in_.bytes()));
        CUDA_CHECK(cudaMallocHost(&h_out_, out_.bytes()));

        dim3 grid((2 * w_ + 127) / 128, 2 * h_);
        cudaGraph_t graph;
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        CUDA_CHECK(cudaMemcpyAsync(in_.data(), h_in_, in_.bytes(), cudaMemcpyHostToDevice, stream_));
        upsample2x<<<grid, 128, 0, stream_>>>(in_.data(), up_.data(), w_, h_);
        unsharp<<<grid, 128, 0, stream_>>>(up_.data(), out_.data(), 2 * w_, 2 * h_, amount);
        CUDA_CHECK(cudaMemcpyAsync(h_out_, out_.data(), out_.bytes(), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }

    ~Upscaler() {
        cudaStreamSynchronize(stream_);
        cudaGraphExecDestroy(exec_);
        cudaFreeHost(h_out_);
        cudaFreeHost(h_in_);
        cudaStreamDestroy(stream_);
    }  // out_, up_, in_ are freed after this, when no graph refers to them

    Upscaler(const Upscaler&) = delete;
    Upscaler& operator=(const Upscaler&) = delete;

    unsigned char* input() { return h_in_; }
    const unsigned char* output() const { return h_out_; }

    void run() {
        CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    int w_, h_;
    DeviceBuffer<unsigned char> in_;
    DeviceBuffer<float> up_;
    DeviceBuffer<unsigned char> out_;
    unsigned char* h_in_ = nullptr;
    unsigned char* h_out_ = nullptr;
    cudaStream_t stream_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
};
