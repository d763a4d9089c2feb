// case: A video denoiser times its kernel with an event recorded right after the launch and later waits on that same event before reading the pinned output frame, but the device-to-host copy was enqueued after the event, so the wait does not cover it (missing_sync at the read of the output frame).
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t err__ = (call);                                                \
        if (err__ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(err__),        \
                         __FILE__, __LINE__);                                      \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kW = 1920, kH = 1080;
constexpr size_t kFrameBytes = size_t(kW) * kH;

// 3x3 box filter blended with the previous frame (temporal recursive filter).
__global__ void temporal_denoise(const uint8_t* __restrict__ cur, uint8_t* __restrict__ acc, uint8_t* __restrict__ out,
                                 int w, int h, float alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int sum = 0, cnt = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
            sum += cur[yy * w + xx];
            ++cnt;
        }
    float spatial = float(sum) / cnt;
    float blended = alpha * spatial + (1.0f - alpha) * acc[y * w + x];
    acc[y * w + x] = (uint8_t)blended;
    out[y * w + x] = (uint8_t)blended;
}

int main() {
    cudaStream_t stream;
    cudaEvent_t t_begin, t_kernel;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&t_begin));
    CUDA_CHECK(cudaEventCreate(&t_kernel));

    uint8_t *h_in = nullptr, *h_out = nullptr;
    uint8_t *d_in = nullptr, *d_acc = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_in, kFrameBytes));
    CUDA_CHECK(cudaMallocHost(&h_out, kFrameBytes));
    CUDA_CHECK(cudaMalloc(&d_in, kFrameBytes));
    CUDA_CHECK(cudaMalloc(&d_acc, kFrameBytes));
    CUDA_CHECK(cudaMalloc(&d_out, kFrameBytes));
    CUDA_CHECK(cudaMemsetAsync(d_acc, 128, kFrameBytes, stream));

    dim3 block(32, 8), grid((kW + 31) / 32, (kH + 7) / 8);
    for (int frame = 0; frame < 30; ++frame) {
        for (size_t i = 0; i < kFrameBytes; ++i)
            h_in[i] = uint8_t((i * 13 + frame * 7 + (i >> 5) * 3) & 0xFF);

        CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, kFrameBytes, cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaEventRecord(t_begin, stream));
        temporal_denoise<<<grid, block, 0, stream>>>(d_in, d_acc, d_out, kW, kH, 0.25f);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(t_kernel, stream));
        CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, kFrameBytes, cudaMemcpyDeviceToHost, stream));

        CUDA_CHECK(cudaEventSynchronize(t_kernel));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, t_begin, t_kernel));
        unsigned long long sum = 0;
        for (size_t i = 0; i < kFrameBytes; ++i) sum += h_out[i];  // EXPECT: missing_sync
        if (frame % 10 == 0)
            std::printf("frame %2d: kernel %.3f ms, mean %.2f\n", frame, ms, double(sum) / kFrameBytes);
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_acc));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaEventDestroy(t_kernel));
    CUDA_CHECK(cudaEventDestroy(t_begin));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
