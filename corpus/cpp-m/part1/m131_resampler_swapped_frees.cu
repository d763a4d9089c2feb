// case: An audio resampler keeps pinned (cudaMallocHost) and device (cudaMalloc) buffers in one struct; its release function frees the input pair correctly but swaps the output pair's calls, cudaFree on the pinned output and cudaFreeHost on the device output (mismatched_free at each; the driver refuses both).
// expect: mismatched_free=2
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

struct ResampleBuffers {
    float* h_in = nullptr;   // page-locked input samples
    float* h_out = nullptr;  // page-locked output samples
    float* d_in = nullptr;
    float* d_out = nullptr;
    size_t n_in = 0, n_out = 0;
};

static ResampleBuffers buffers_create(size_t n_in, size_t n_out) {
    ResampleBuffers b;
    b.n_in = n_in;
    b.n_out = n_out;
    CUDA_CHECK(cudaMallocHost(&b.h_in, n_in * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&b.h_out, n_out * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b.d_in, n_in * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b.d_out, n_out * sizeof(float)));
    return b;
}

static void buffers_release(ResampleBuffers& b) {
    cudaFree(b.d_in);
    cudaFreeHost(b.h_in);
    cudaFree(b.h_out);  // EXPECT: mismatched_free
    cudaFreeHost(b.d_out);  // EXPECT: mismatched_free
    b = ResampleBuffers{};
}

// Linear-interpolation resampler: out[i] = in(i * ratio)
__global__ void resample_linear(const float* __restrict__ in, size_t n_in, float* __restrict__ out,
                                size_t n_out, double ratio) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i >= n_out) return;
    double pos = i * ratio;
    size_t k = size_t(pos);
    float frac = float(pos - double(k));
    float a = in[k < n_in ? k : n_in - 1];
    float b = in[k + 1 < n_in ? k + 1 : n_in - 1];
    out[i] = a + frac * (b - a);
}

int main() {
    const size_t rate_in = 44100, rate_out = 48000, seconds = 30;
    const size_t n_in = rate_in * seconds;
    const size_t n_out = rate_out * seconds;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    ResampleBuffers buf = buffers_create(n_in, n_out);
    for (size_t i = 0; i < n_in; ++i)
        buf.h_in[i] = 0.5f * std::sin(2.0 * M_PI * 440.0 * double(i) / rate_in);

    CUDA_CHECK(cudaMemcpyAsync(buf.d_in, buf.h_in, n_in * sizeof(float), cudaMemcpyHostToDevice, stream));
    resample_linear<<<unsigned((n_out + 255) / 256), 256, 0, stream>>>(buf.d_in, n_in, buf.d_out, n_out,
                                                                       double(rate_in) / rate_out);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(buf.h_out, buf.d_out, n_out * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    double rms = 0.0;
    for (size_t i = 0; i < n_out; ++i) rms += double(buf.h_out[i]) * buf.h_out[i];
    std::printf("resampled %zu -> %zu samples, rms %.4f\n", n_in, n_out, std::sqrt(rms / n_out));

    buffers_release(buf);
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
