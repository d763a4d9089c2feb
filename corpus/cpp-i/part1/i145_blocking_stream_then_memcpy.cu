// case: a kernel runs on a stream created with plain cudaStreamCreate (a blocking stream), so the following synchronous cudaMemcpy on the legacy default stream waits for it before the host reads the result
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s -> %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void sobel(const unsigned char* in, unsigned char* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { out[y * w + x] = 0; return; }
    int gx = -in[(y - 1) * w + x - 1] - 2 * in[y * w + x - 1] - in[(y + 1) * w + x - 1]
             + in[(y - 1) * w + x + 1] + 2 * in[y * w + x + 1] + in[(y + 1) * w + x + 1];
    int gy = -in[(y - 1) * w + x - 1] - 2 * in[(y - 1) * w + x] - in[(y - 1) * w + x + 1]
             + in[(y + 1) * w + x - 1] + 2 * in[(y + 1) * w + x] + in[(y + 1) * w + x + 1];
    int mag = abs(gx) + abs(gy);
    out[y * w + x] = (unsigned char)(mag > 255 ? 255 : mag);
}

struct EdgeDetector {
    int w, h;
    cudaStream_t stream;
    unsigned char *d_in, *d_out;

    EdgeDetector(int w_, int h_) : w(w_), h(h_) {
        CUDA_CHECK(cudaStreamCreate(&stream));
        CUDA_CHECK(cudaMalloc(&d_in, (size_t)w * h));
        CUDA_CHECK(cudaMalloc(&d_out, (size_t)w * h));
    }
    ~EdgeDetector() {
        cudaFree(d_out);
        cudaFree(d_in);
        cudaStreamDestroy(stream);
    }
    void run(const std::vector<unsigned char>& img, std::vector<unsigned char>& edges) {
        CUDA_CHECK(cudaMemcpy(d_in, img.data(), img.size(), cudaMemcpyHostToDevice));
        dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
        sobel<<<grid, block, 0, stream>>>(d_in, d_out, w, h);
        CUDA_CHECK(cudaGetLastError());
        edges.resize(img.size());
        CUDA_CHECK(cudaMemcpy(edges.data(), d_out, edges.size(), cudaMemcpyDeviceToHost));
    }
};

int main() {
    const int w = 1920, h = 1080;
    std::vector<unsigned char> img((size_t)w * h), edges;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) img[y * w + x] = ((x / 64) + (y / 64)) % 2 ? 200 : 30;

    EdgeDetector det(w, h);
    det.run(img, edges);
    size_t strong = 0;
    for (unsigned char e : edges) strong += e > 128;
    printf("%zu strong edge pixels\n", strong);
    return 0;
}
