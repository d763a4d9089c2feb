// case: two-phase image pipeline that frees its temporary buffer after the blur phase and sets it to nullptr, then reuses it in the sharpen phase without reallocating: the memset, the kernel writing it and the kernel reading it get null
// expect: unallocated_pointer=3
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(e), __FILE__, __LINE__); \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

constexpr int W = 512, H = 512;
constexpr size_t kBytes = size_t(W) * H * sizeof(float);

__global__ void blur_h(const float *in, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || x >= W - 1) return;
    out[y * W + x] = (in[y * W + x - 1] + in[y * W + x] + in[y * W + x + 1]) / 3.f;
}

__global__ void detail(const float *orig, const float *smooth, float *tmp)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < W) tmp[y * W + x] = orig[y * W + x] - smooth[y * W + x];
}

__global__ void add_scaled(float *img, const float *d, float k)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < W) img[y * W + x] += k * d[y * W + x];
}

int main()
{
    std::vector<float> h(W * H);
    for (int i = 0; i < W * H; ++i) h[i] = float((i / 7) % 2);

    float *d_img, *d_smooth, *d_tmp = nullptr;
    CUDA_CHECK(cudaMalloc(&d_img, kBytes));
    CUDA_CHECK(cudaMalloc(&d_smooth, kBytes));
    CUDA_CHECK(cudaMalloc(&d_tmp, kBytes));
    CUDA_CHECK(cudaMemcpy(d_img, h.data(), kBytes, cudaMemcpyHostToDevice));

    dim3 block(256), grid((W + 255) / 256, H);
    // phase 1: two horizontal blur passes, ping-ponging through d_tmp
    CUDA_CHECK(cudaMemcpy(d_tmp, d_img, kBytes, cudaMemcpyDeviceToDevice));
    blur_h<<<grid, block>>>(d_img, d_tmp);
    CUDA_CHECK(cudaMemcpy(d_smooth, d_tmp, kBytes, cudaMemcpyDeviceToDevice));
    blur_h<<<grid, block>>>(d_tmp, d_smooth);
    CUDA_CHECK(cudaFree(d_tmp));
    d_tmp = nullptr;

    // phase 2: unsharp mask
    CUDA_CHECK(cudaMemset(d_tmp, 0, kBytes)); // EXPECT: unallocated_pointer
    detail<<<grid, block>>>(d_img, d_smooth, d_tmp); // EXPECT: unallocated_pointer
    add_scaled<<<grid, block>>>(d_img, d_tmp, 0.5f); // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaMemcpy(h.data(), d_img, kBytes, cudaMemcpyDeviceToHost));
    std::printf("pixel(10,10) = %f\n", h[10 * W + 10]);

    CUDA_CHECK(cudaFree(d_img));
    CUDA_CHECK(cudaFree(d_smooth));
    return 0;
}
