// case: Sobel edge detector with RAII device/pinned buffers on a non-blocking stream; the edge histogram is computed from the pinned readback only after Stream::sync(), so the read is ordered.
// expect: none
#include "buffers.cuh"
#include <cmath>
#include <vector>

__global__ void sobel(const unsigned char* in, float* out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    auto at = [&](int dx, int dy) { return (float)in[(y + dy) * w + (x + dx)]; };
    float gx = -at(-1, -1) - 2 * at(-1, 0) - at(-1, 1) + at(1, -1) + 2 * at(1, 0) + at(1, 1);
    float gy = -at(-1, -1) - 2 * at(0, -1) - at(1, -1) + at(-1, 1) + 2 * at(0, 1) + at(1, 1);
    out[y * w + x] = sqrtf(gx * gx + gy * gy);
}

int main()
{
    const int w = 3840, h = 2160;
    const size_t px = (size_t)w * h;

    PinnedBuffer<unsigned char> h_img(px);
    PinnedBuffer<float> h_edges(px);
    DeviceBuffer<unsigned char> d_img(px);
    DeviceBuffer<float> d_edges(px);
    Stream stream;

    for (size_t i = 0; i < px; ++i) h_img[i] = (unsigned char)((i * 2654435761u) >> 24);

    CUDA_TRY(cudaMemcpyAsync(d_img.get(), h_img.get(), h_img.bytes(), cudaMemcpyHostToDevice, stream));
    CUDA_TRY(cudaMemsetAsync(d_edges.get(), 0, d_edges.bytes(), stream));
    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    sobel<<<grid, block, 0, stream>>>(d_img.get(), d_edges.get(), w, h);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemcpyAsync(h_edges.get(), d_edges.get(), d_edges.bytes(), cudaMemcpyDeviceToHost, stream));

    stream.sync();

    std::vector<int> hist(64, 0);
    for (size_t i = 0; i < px; ++i) {
        int bin = (int)(h_edges[i] / 32.f);
        hist[bin < 63 ? bin : 63]++;
    }
    for (int b = 0; b < 8; ++b) std::printf("bin %d: %d\n", b, hist[b]);
    return 0;
}
