// case: a video normalization loop grows its device frame buffer with a fresh cudaMalloc whenever a larger frame arrives, dropping the smaller buffer without freeing it
// expect: device_memory_leak=1
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t err = (x);                                                 \
        if (err != cudaSuccess) {                                              \
            fprintf(stderr, "CUDA: %s (%s:%d)\n", cudaGetErrorString(err),     \
                    __FILE__, __LINE__);                                       \
            std::exit(EXIT_FAILURE);                                           \
        }                                                                      \
    } while (0)

struct FrameInfo {
    int width;
    int height;
};

__global__ void normalize_inplace(float* px, int n, float lo, float hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) px[i] = (px[i] - lo) / (hi - lo);
}

static void synth_frame(std::vector<float>& buf, const FrameInfo& f, int seed) {
    buf.resize((size_t)f.width * f.height);
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = (float)((i * 31 + seed) % 256);
}

int main() {
    const std::vector<FrameInfo> stream_frames = {
        {640, 480}, {640, 480}, {1280, 720}, {1280, 720}, {1920, 1080},
        {640, 480}, {3840, 2160}, {1920, 1080}};

    float* d_frame = nullptr;
    size_t capacity = 0;
    std::vector<float> host;

    for (size_t f = 0; f < stream_frames.size(); ++f) {
        const FrameInfo& info = stream_frames[f];
        synth_frame(host, info, (int)f);
        const size_t n = host.size();

        if (n > capacity) {
            CUDA_CHECK(cudaMalloc(&d_frame, n * sizeof(float))); // EXPECT: device_memory_leak
            capacity = n;
        }
        CUDA_CHECK(cudaMemcpy(d_frame, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));

        auto mm = std::minmax_element(host.begin(), host.end());
        normalize_inplace<<<(unsigned)((n + 255) / 256), 256>>>(d_frame, (int)n, *mm.first,
                                                                *mm.second);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpy(host.data(), d_frame, n * sizeof(float), cudaMemcpyDeviceToHost));
        printf("frame %zu (%dx%d): first=%.3f last=%.3f\n", f, info.width, info.height,
               host.front(), host.back());
    }

    CUDA_CHECK(cudaFree(d_frame));
    return 0;
}
