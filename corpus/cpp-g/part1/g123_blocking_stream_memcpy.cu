// case: The kernel runs on a stream made with plain cudaStreamCreate (a blocking stream), so the following cudaMemcpy on the legacy default stream waits for it and returns only after the copy is done; the host reads the std::vector result right after.
// expect: none
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)

__global__ void mandel_rows(unsigned char* img, int w, int h, int max_iter) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / h;
    float zr = 0.f, zi = 0.f;
    int it = 0;
    while (it < max_iter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    img[y * w + x] = (unsigned char)(255 * it / max_iter);
}

int main() {
    const int w = 4096, h = 4096;
    std::vector<unsigned char> image(size_t(w) * h);
    unsigned char* d_img = nullptr;
    cudaStream_t work;

    CHECK(cudaStreamCreate(&work));   // blocking w.r.t. the legacy default stream
    CHECK(cudaMalloc(&d_img, image.size()));

    dim3 block(256), grid((w + 255) / 256, h);
    mandel_rows<<<grid, block, 0, work>>>(d_img, w, h, 256);
    CHECK(cudaGetLastError());

    // legacy default stream: implicitly ordered after the work on `work`
    CHECK(cudaMemcpy(image.data(), d_img, image.size(), cudaMemcpyDeviceToHost));

    size_t inside = 0;
    for (unsigned char v : image) inside += (v == 255);
    std::printf("%zu pixels inside the set\n", inside);

    CHECK(cudaFree(d_img));
    CHECK(cudaStreamDestroy(work));
    return 0;
}
