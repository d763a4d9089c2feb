// case: a Sobel edge detector moves a grayscale image between a std::vector and cudaMallocPitch buffers with cudaMemcpy2D and cudaMemcpy2DAsync, every copy in the right direction.
// expect: none
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void sobel(const unsigned char* in, size_t ip, unsigned char* out, size_t op, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    auto P = [&](int xx, int yy) { return (int)in[yy * ip + xx]; };
    int gx = -P(x - 1, y - 1) - 2 * P(x - 1, y) - P(x - 1, y + 1) + P(x + 1, y - 1) + 2 * P(x + 1, y) + P(x + 1, y + 1);
    int gy = -P(x - 1, y - 1) - 2 * P(x, y - 1) - P(x + 1, y - 1) + P(x - 1, y + 1) + 2 * P(x, y + 1) + P(x + 1, y + 1);
    int m = abs(gx) + abs(gy);
    out[y * op + x] = (unsigned char)(m > 255 ? 255 : m);
}

int main() {
    const int w = 1280, h = 720;
    std::vector<unsigned char> gray(w * h), edges(w * h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) gray[y * w + x] = (unsigned char)((x / 64 + y / 64) % 2 ? 200 : 30);

    unsigned char *d_in, *d_out;
    size_t inPitch, outPitch;
    cudaMallocPitch((void**)&d_in, &inPitch, w, h);
    cudaMallocPitch((void**)&d_out, &outPitch, w, h);
    cudaMemset2D(d_out, outPitch, 0, w, h);

    cudaMemcpy2D(d_in, inPitch, gray.data(), w, w, h, cudaMemcpyHostToDevice);
    dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    sobel<<<grid, block>>>(d_in, inPitch, d_out, outPitch, w, h);
    cudaMemcpy2D(edges.data(), w, d_out, outPitch, w, h, cudaMemcpyDeviceToHost);

    // copy the top half of the edge map back into the input for a second pass
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMemcpy2DAsync(d_in, inPitch, d_out, outPitch, w, h / 2, cudaMemcpyDeviceToDevice, s);
    cudaStreamSynchronize(s);

    long strong = 0;
    for (unsigned char e : edges) strong += (e > 128);
    printf("strong edges: %ld\n", strong);

    cudaStreamDestroy(s);
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
