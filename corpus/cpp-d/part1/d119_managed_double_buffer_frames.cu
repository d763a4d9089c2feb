// case: video preprocessing with two managed frame buffers: while the normalize kernel reads frame_a, the host decodes the next frame into frame_b, managed memory that the running kernel does not use; on devices without concurrent managed access any host touch of managed memory during a kernel faults.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

constexpr int kW = 1280, kH = 720;
constexpr size_t kFrameBytes = (size_t)kW * kH * 3; // RGB8

__global__ void normalize_to_chw(const uint8_t* rgb, float* out, int w, int h, float3 mean, float3 inv_std)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    size_t p = (size_t)y * w + x, plane = (size_t)w * h;
    out[p] = (rgb[3 * p + 0] / 255.f - mean.x) * inv_std.x;
    out[plane + p] = (rgb[3 * p + 1] / 255.f - mean.y) * inv_std.y;
    out[2 * plane + p] = (rgb[3 * p + 2] / 255.f - mean.z) * inv_std.z;
}

static inline uint8_t synth_pixel(int frame, size_t i)
{
    return (uint8_t)((i * 2654435761u >> 24) + frame * 17);
}

int main()
{
    uint8_t *frame_a = nullptr, *frame_b = nullptr;
    CUDA_CHECK(cudaMallocManaged(&frame_a, kFrameBytes));
    CUDA_CHECK(cudaMallocManaged(&frame_b, kFrameBytes));
    float* d_tensor = nullptr; // two CHW frames
    CUDA_CHECK(cudaMalloc(&d_tensor, 2 * 3 * (size_t)kW * kH * sizeof(float)));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const float3 mean = make_float3(0.485f, 0.456f, 0.406f);
    const float3 inv_std = make_float3(1 / 0.229f, 1 / 0.224f, 1 / 0.225f);
    dim3 block(32, 8), grid((kW + 31) / 32, (kH + 7) / 8);

    for (size_t i = 0; i < kFrameBytes; ++i) frame_a[i] = synth_pixel(0, i); // nothing runs yet

    normalize_to_chw<<<grid, block, 0, s>>>(frame_a, d_tensor, kW, kH, mean, inv_std);

    // decode the next frame while the GPU normalizes this one
    for (size_t i = 0; i < kFrameBytes; ++i)
        frame_b[i] = synth_pixel(1, i); // EXPECT: managed_concurrent_access

    CUDA_CHECK(cudaStreamSynchronize(s));
    normalize_to_chw<<<grid, block, 0, s>>>(frame_b, d_tensor + 3 * (size_t)kW * kH, kW, kH, mean, inv_std);
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::vector<float> h_tensor(2 * 3 * (size_t)kW * kH);
    CUDA_CHECK(cudaMemcpy(h_tensor.data(), d_tensor, h_tensor.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    double sum = 0.0;
    for (float v : h_tensor) sum += v;
    printf("preprocess: 2 frames, tensor mean %.5f\n", sum / h_tensor.size());

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_tensor));
    CUDA_CHECK(cudaFree(frame_b));
    CUDA_CHECK(cudaFree(frame_a));
    return 0;
}
