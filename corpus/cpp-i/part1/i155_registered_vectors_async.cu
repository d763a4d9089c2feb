// case: an audio resampler page-locks its std::vector buffers with cudaHostRegister before its async copies, synchronizes the stream before touching them, and unregisters them at the end
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void linear_resample(const float* in, int n_in, float* out, int n_out) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_out) return;
    float pos = (float)j * (n_in - 1) / (n_out - 1);
    int i0 = (int)pos;
    int i1 = min(i0 + 1, n_in - 1);
    float f = pos - i0;
    out[j] = in[i0] * (1.f - f) + in[i1] * f;
}

class Resampler {
public:
    Resampler(std::vector<float>& in, std::vector<float>& out) : in_(in), out_(out) {
        CUDA_CHECK(cudaHostRegister(in_.data(), in_.size() * sizeof(float), cudaHostRegisterDefault));
        CUDA_CHECK(cudaHostRegister(out_.data(), out_.size() * sizeof(float), cudaHostRegisterDefault));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_in_, in_.size() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_out_, out_.size() * sizeof(float)));
    }
    ~Resampler() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_out_);
        cudaFree(d_in_);
        cudaStreamDestroy(stream_);
        cudaHostUnregister(out_.data());
        cudaHostUnregister(in_.data());
    }
    void run() {
        const int n_in = (int)in_.size(), n_out = (int)out_.size();
        CUDA_CHECK(cudaMemcpyAsync(d_in_, in_.data(), n_in * sizeof(float), cudaMemcpyHostToDevice, stream_));
        linear_resample<<<(n_out + 255) / 256, 256, 0, stream_>>>(d_in_, n_in, d_out_, n_out);
        CUDA_CHECK(cudaMemcpyAsync(out_.data(), d_out_, n_out * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

private:
    std::vector<float>& in_;
    std::vector<float>& out_;
    cudaStream_t stream_ = nullptr;
    float* d_in_ = nullptr;
    float* d_out_ = nullptr;
};

int main() {
    const int rate_in = 44100, rate_out = 48000, seconds = 30;
    std::vector<float> in(rate_in * seconds), out(rate_out * seconds);
    for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(2.f * 3.14159265f * 440.f * i / rate_in);

    {
        Resampler r(in, out);
        r.run();
        double energy = 0.0;
        for (float v : out) energy += v * v;
        printf("output RMS %.4f\n", std::sqrt(energy / out.size()));
    }
    return 0;
}
