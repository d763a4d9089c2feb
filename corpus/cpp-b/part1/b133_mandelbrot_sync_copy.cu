// case: Mandelbrot tile renderer: the kernel is launched on the legacy default stream and the image is read back into a malloc'd buffer with the blocking cudaMemcpy on the same stream, so the host loop that writes the PGM sees finished data
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void mandelbrot(uint8_t* img, int w, int h, float x0, float y0, float scale, int max_iter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    float cr = x0 + px * scale, ci = y0 + py * scale;
    float zr = 0.f, zi = 0.f;
    int it = 0;
    while (it < max_iter && zr * zr + zi * zi < 4.f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.f * zr * zi + ci;
        zr = t;
        ++it;
    }
    img[py * w + px] = static_cast<uint8_t>(255 * it / max_iter);
}

struct Image {
    int w, h;
    uint8_t* host;
    uint8_t* dev;
};

static Image image_create(int w, int h) {
    Image im{w, h, nullptr, nullptr};
    im.host = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(w) * h));
    CUDA_CHECK(cudaMalloc(&im.dev, static_cast<size_t>(w) * h));
    return im;
}

static void image_destroy(Image& im) {
    cudaFree(im.dev);
    std::free(im.host);
    im.dev = nullptr;
    im.host = nullptr;
}

int main(int argc, char** argv) {
    Image im = image_create(4096, 4096);
    dim3 block(16, 16);
    dim3 grid((im.w + 15) / 16, (im.h + 15) / 16);
    mandelbrot<<<grid, block>>>(im.dev, im.w, im.h, -2.0f, -1.5f, 3.0f / im.w, 512);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(im.host, im.dev, static_cast<size_t>(im.w) * im.h, cudaMemcpyDeviceToHost));

    const char* path = argc > 1 ? argv[1] : "mandelbrot.pgm";
    FILE* f = std::fopen(path, "wb");
    if (!f) {
        image_destroy(im);
        return 1;
    }
    std::fprintf(f, "P5\n%d %d\n255\n", im.w, im.h);
    size_t inside = 0;
    for (size_t i = 0; i < static_cast<size_t>(im.w) * im.h; ++i) inside += (im.host[i] == 255);
    std::fwrite(im.host, 1, static_cast<size_t>(im.w) * im.h, f);
    std::fclose(f);
    std::printf("%zu pixels inside the set\n", inside);
    image_destroy(im);
    return 0;
}
