// case: A 2D box-blur image filter checks every call while it works but drops the status of both cudaFree calls in its cleanup.
// expect: unchecked_cuda_result=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_),     \
                    __FILE__, __LINE__);                                           \
            exit(EXIT_FAILURE);                                                    \
        }                                                                          \
    } while (0)

__global__ void box_blur(const unsigned char* in, unsigned char* out, int w, int h, int r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int sum = 0, count = 0;
    for (int dy = -r; dy <= r; ++dy) {
        for (int dx = -r; dx <= r; ++dx) {
            int xx = min(max(x + dx, 0), w - 1);
            int yy = min(max(y + dy, 0), h - 1);
            sum += in[yy * w + xx];
            ++count;
        }
    }
    out[y * w + x] = (unsigned char)(sum / count);
}

int main() {
    const int w = 1920, h = 1080, radius = 3;
    const size_t bytes = size_t(w) * h;
    std::vector<unsigned char> image(bytes), blurred(bytes);
    for (size_t i = 0; i < bytes; ++i) image[i] = (unsigned char)((i * 31) & 0xff);

    unsigned char *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, image.data(), bytes, cudaMemcpyHostToDevice));

    dim3 block(16, 16);
    dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
    box_blur<<<grid, block>>>(d_in, d_out, w, h, radius);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(blurred.data(), d_out, bytes, cudaMemcpyDeviceToHost));

    long checksum = 0;
    for (size_t i = 0; i < bytes; ++i) checksum += blurred[i];
    printf("blurred %dx%d image, checksum %ld\n", w, h, checksum);

    cudaFree(d_in);   // EXPECT: unchecked_cuda_result
    cudaFree(d_out);  // EXPECT: unchecked_cuda_result
    return 0;
}
