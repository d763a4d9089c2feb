// case: A frame blurring tool copies each frame from a pageable std::vector of run-time size to the device and the result back into another std::vector with cudaMemcpyAsync (pageable_async_copy at both copies); the launcher lives in blur_kernels.cu and the stream is synchronized before the host reads, so only the pageable copies are wrong.
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

void launch_gaussian_blur(const float* in, float* tmp, float* out, int w, int h, cudaStream_t stream);

struct FrameSize {
    int w, h;
    size_t pixels() const { return size_t(w) * h; }
};

static void synthesize(std::vector<float>& frame, FrameSize sz, int index) {
    for (int y = 0; y < sz.h; ++y)
        for (int x = 0; x < sz.w; ++x)
            frame[size_t(y) * sz.w + x] = ((x / 16 + y / 16 + index) % 2) ? 1.0f : 0.0f;
}

int main(int argc, char** argv) {
    FrameSize sz{argc > 2 ? std::atoi(argv[1]) : 1920, argc > 2 ? std::atoi(argv[2]) : 1080};
    const int frames = 24;
    const size_t bytes = sz.pixels() * sizeof(float);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float *d_in = nullptr, *d_tmp = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_tmp, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));

    std::vector<float> frame(sz.pixels()), blurred(sz.pixels());
    double edge_energy = 0.0;
    for (int f = 0; f < frames; ++f) {
        synthesize(frame, sz, f);
        CUDA_CHECK(cudaMemcpyAsync(d_in, frame.data(), bytes, cudaMemcpyHostToDevice, stream));  // EXPECT: pageable_async_copy
        launch_gaussian_blur(d_in, d_tmp, d_out, sz.w, sz.h, stream);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(blurred.data(), d_out, bytes, cudaMemcpyDeviceToHost, stream));  // EXPECT: pageable_async_copy
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (size_t i = 1; i < sz.pixels(); ++i) edge_energy += std::abs(blurred[i] - blurred[i - 1]);
    }
    std::printf("%d frames of %dx%d, mean edge energy %.3f\n", frames, sz.w, sz.h, edge_energy / frames);

    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_tmp));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
