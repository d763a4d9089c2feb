#pragma once
// Minimal binary PGM (P5) loader. Pixels are page-locked so uploads can overlap.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

struct HostImage {
    unsigned char* pixels = nullptr;
    int width = 0;
    int height = 0;
};

// Loads `path`; if it cannot be read, returns a synthetic 1024x1024 test pattern.
inline HostImage load_pgm(const char* path) {
    HostImage img;
    int w = 1024, h = 1024, maxval = 255;
    FILE* f = path ? std::fopen(path, "rb") : nullptr;
    bool header_ok = f && std::fscanf(f, "P5 %d %d %d", &w, &h, &maxval) == 3 && maxval == 255;
    if (!header_ok) { w = 1024; h = 1024; }
    if (header_ok) std::fgetc(f);  // single whitespace after the header
    img.width = w;
    img.height = h;
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&img.pixels), size_t(w) * h, cudaHostAllocDefault));
    size_t got = header_ok ? std::fread(img.pixels, 1, size_t(w) * h, f) : 0;
    for (size_t i = got; i < size_t(w) * h; ++i)
        img.pixels[i] = (unsigned char)(((i % w) / 32 + (i / w) / 32) % 2 ? 200 : 40);
    if (f) std::fclose(f);
    return img;
}

inline void save_pgm(const char* path, const unsigned char* pixels, int w, int h) {
    FILE* f = std::fopen(path, "wb");
    if (!f) return;
    std::fprintf(f, "P5 %d %d 255\n", w, h);
    std::fwrite(pixels, 1, size_t(w) * h, f);
    std::fclose(f);
}
