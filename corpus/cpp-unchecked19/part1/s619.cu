// case: A separable Gaussian blur launches each pass inside a helper that returns at once; the caller checks cudaGetLastError right after each helper call, before synchronizing.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t err = (call);                                              \
        if (err != cudaSuccess) {                                              \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err)); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

__global__ void blur_1d(const float* in, float* out, int w, int h, int dx, int dy) {
    const float k[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    for (int t = -2; t <= 2; ++t) {
        int xx = min(max(x + t * dx, 0), w - 1);
        int yy = min(max(y + t * dy, 0), h - 1);
        acc += k[t + 2] * in[yy * w + xx];
    }
    out[y * w + x] = acc;
}

static void launch_pass(const float* in, float* out, int w, int h, bool horizontal) {
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    blur_1d<<<grid, block>>>(in, out, w, h, horizontal ? 1 : 0, horizontal ? 0 : 1);
}

int main() {
    const int w = 2048, h = 2048;
    const size_t bytes = size_t(w) * h * sizeof(float);
    std::vector<float> img(size_t(w) * h);
    for (size_t i = 0; i < img.size(); ++i) img[i] = (i % 97 == 0) ? 1.0f : 0.0f;

    float *d_img = nullptr, *d_tmp = nullptr;
    CUDA_CHECK(cudaMalloc(&d_img, bytes));
    CUDA_CHECK(cudaMalloc(&d_tmp, bytes));
    CUDA_CHECK(cudaMemcpy(d_img, img.data(), bytes, cudaMemcpyHostToDevice));

    launch_pass(d_img, d_tmp, w, h, true);
    CUDA_CHECK(cudaGetLastError());
    launch_pass(d_tmp, d_img, w, h, false);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(img.data(), d_img, bytes, cudaMemcpyDeviceToHost));

    double energy = 0.0;
    for (float v : img) energy += v;
    printf("energy after blur: %.3f\n", energy);

    CUDA_CHECK(cudaFree(d_tmp));
    CUDA_CHECK(cudaFree(d_img));
    return 0;
}
