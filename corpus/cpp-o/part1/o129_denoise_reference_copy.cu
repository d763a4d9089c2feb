// case: temporal video denoiser seeds its running average by copying the reference frame device-to-device, but that copy was moved above the reference frame's upload, so it reads a freshly cudaMalloc'd buffer nothing has written.
// expect: uninitialized_device_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void u8_to_float(const uint8_t* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * (1.f / 255.f);
}

__global__ void blend(float* avg, const float* __restrict__ frame, float alpha, float motion_thresh, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = avg[i], f = frame[i];
    avg[i] = fabsf(f - a) > motion_thresh ? f : a + alpha * (f - a);
}

__global__ void to_u8(const float* __restrict__ in, uint8_t* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (uint8_t)(fminf(fmaxf(in[i], 0.f), 1.f) * 255.f + 0.5f);
}

class Denoiser {
public:
    Denoiser(int w, int h) : n_(w * h) {
        CUDA_CHECK(cudaMalloc(&d_raw_, n_));
        CUDA_CHECK(cudaMalloc(&d_ref_, n_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_avg_, n_ * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_frame_, n_ * sizeof(float)));
    }
    ~Denoiser() { cudaFree(d_frame_); cudaFree(d_avg_); cudaFree(d_ref_); cudaFree(d_raw_); }

    void start(const std::vector<uint8_t>& reference) {
        CUDA_CHECK(cudaMemcpy(d_avg_, d_ref_, n_ * sizeof(float), cudaMemcpyDeviceToDevice));  // EXPECT: uninitialized_device_read
        CUDA_CHECK(cudaMemcpy(d_raw_, reference.data(), n_, cudaMemcpyHostToDevice));
        u8_to_float<<<blocks(), 256>>>(d_raw_, d_ref_, n_);
    }
    void push(const std::vector<uint8_t>& frame, std::vector<uint8_t>& out) {
        CUDA_CHECK(cudaMemcpy(d_raw_, frame.data(), n_, cudaMemcpyHostToDevice));
        u8_to_float<<<blocks(), 256>>>(d_raw_, d_frame_, n_);
        blend<<<blocks(), 256>>>(d_avg_, d_frame_, 0.2f, 0.15f, n_);
        to_u8<<<blocks(), 256>>>(d_avg_, d_raw_, n_);
        out.resize(n_);
        CUDA_CHECK(cudaMemcpy(out.data(), d_raw_, n_, cudaMemcpyDeviceToHost));
    }

private:
    int blocks() const { return (n_ + 255) / 256; }
    int n_;
    uint8_t* d_raw_ = nullptr;
    float *d_ref_ = nullptr, *d_avg_ = nullptr, *d_frame_ = nullptr;
};

int main(int argc, char** argv)
{
    int w = argc > 1 ? atoi(argv[1]) : 1280, h = argc > 2 ? atoi(argv[2]) : 720;
    std::vector<uint8_t> ref((size_t)w * h), frame((size_t)w * h), out;
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = (uint8_t)(i % 251);
    Denoiser dn(w, h);
    dn.start(ref);
    long acc = 0;
    for (int f = 0; f < 60; ++f) {
        for (size_t i = 0; i < frame.size(); ++i) frame[i] = (uint8_t)((i % 251) + (f * 13 + i) % 9);
        dn.push(frame, out);
        acc += out[out.size() / 2];
    }
    printf("checksum %ld\n", acc);
    return 0;
}
