// case: A Sobel edge detector gets its input image from the header's loader, which page-locks the pixels with cudaHostAlloc, and releases them with the C library's free() as it did when the loader used malloc (mismatched_free at the free); the output image is released correctly with cudaFreeHost.
// expect: mismatched_free=1
#include "image_io.h"

__global__ void sobel(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { out[y * w + x] = 0; return; }
    auto p = [&](int dx, int dy) { return int(in[(y + dy) * w + x + dx]); };
    int gx = -p(-1, -1) - 2 * p(-1, 0) - p(-1, 1) + p(1, -1) + 2 * p(1, 0) + p(1, 1);
    int gy = -p(-1, -1) - 2 * p(0, -1) - p(1, -1) + p(-1, 1) + 2 * p(0, 1) + p(1, 1);
    int mag = abs(gx) + abs(gy);
    out[y * w + x] = (unsigned char)(mag > 255 ? 255 : mag);
}

int main(int argc, char** argv) {
    HostImage src = load_pgm(argc > 1 ? argv[1] : nullptr);
    const size_t bytes = size_t(src.width) * src.height;

    unsigned char* h_edges = nullptr;
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_edges), bytes, cudaHostAllocDefault));
    unsigned char *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    CUDA_CHECK(cudaMemcpyAsync(d_in, src.pixels, bytes, cudaMemcpyHostToDevice, stream));
    dim3 block(32, 8), grid((src.width + 31) / 32, (src.height + 7) / 8);
    sobel<<<grid, block, 0, stream>>>(d_in, d_out, src.width, src.height);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_edges, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    size_t strong = 0;
    for (size_t i = 0; i < bytes; ++i) strong += h_edges[i] > 128;
    std::printf("%dx%d image, %zu strong edge pixels\n", src.width, src.height, strong);
    save_pgm("edges.pgm", h_edges, src.width, src.height);

    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_edges));
    free(src.pixels);  // EXPECT: mismatched_free
    return 0;
}
