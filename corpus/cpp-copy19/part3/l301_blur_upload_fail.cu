// case: a horizontal Gaussian blur helper allocates the input and output images, then returns false when the weight or image upload fails without freeing either
// expect: device_memory_leak=2
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define WIDTH 1920
#define HEIGHT 1080
#define RADIUS 4
#define SIGMA 2.0f

__constant__ float c_weights[2 * RADIUS + 1];

__global__ void blur_rows(const float* in, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int xx = min(max(x + k, 0), w - 1);
        acc += c_weights[k + RADIUS] * in[y * w + xx];
    }
    out[y * w + x] = acc;
}

static void make_kernel(float* weights) {
    float sum = 0.f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        weights[k + RADIUS] = expf(-(k * k) / (2.f * SIGMA * SIGMA));
        sum += weights[k + RADIUS];
    }
    for (int k = 0; k < 2 * RADIUS + 1; ++k) weights[k] /= sum;
}

static bool blur_image(const std::vector<float>& src, std::vector<float>& dst) {
    const size_t bytes = sizeof(float) * WIDTH * HEIGHT;
    float* d_in = nullptr;
    float* d_out = nullptr;
    if (cudaMalloc(&d_in, bytes) != cudaSuccess) return false; // EXPECT: device_memory_leak
    if (cudaMalloc(&d_out, bytes) != cudaSuccess) { // EXPECT: device_memory_leak
        cudaFree(d_in);
        return false;
    }

    float weights[2 * RADIUS + 1];
    make_kernel(weights);
    if (cudaMemcpyToSymbol(c_weights, weights, sizeof(weights)) != cudaSuccess) {
        fprintf(stderr, "weight upload failed\n");
        return false;
    }
    if (cudaMemcpy(d_in, src.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "image upload failed\n");
        return false;
    }

    dim3 block(32, 8);
    dim3 grid((WIDTH + block.x - 1) / block.x, (HEIGHT + block.y - 1) / block.y);
    blur_rows<<<grid, block>>>(d_in, d_out, WIDTH, HEIGHT);
    cudaError_t err = cudaMemcpy(dst.data(), d_out, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
    return err == cudaSuccess;
}

int main() {
    std::vector<float> src(WIDTH * HEIGHT), dst(WIDTH * HEIGHT);
    for (int y = 0; y < HEIGHT; ++y)
        for (int x = 0; x < WIDTH; ++x)
            src[y * WIDTH + x] = ((x / 16 + y / 16) & 1) ? 1.f : 0.f;

    if (!blur_image(src, dst)) {
        fprintf(stderr, "blur failed\n");
        return EXIT_FAILURE;
    }
    double mean = 0.0;
    for (float v : dst) mean += v;
    printf("mean after blur: %f\n", mean / dst.size());
    return 0;
}
