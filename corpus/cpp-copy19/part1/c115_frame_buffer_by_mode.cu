// case: video tone-mapping tool that sizes its device frame for preview or 1080p depending on argv, then uploads a 4K frame; the largest possible allocation is still smaller than the copy
// expect: copy_out_of_bounds=1
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cuda_runtime.h>

#define PREVIEW_W 640
#define PREVIEW_H 360
#define HD_W 1920
#define HD_H 1080
#define UHD_W 3840
#define UHD_H 2160
#define BPP 4

#define CUDA_CHECK(x)                                                       \
    do {                                                                    \
        cudaError_t s = (x);                                                \
        if (s != cudaSuccess) {                                             \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(s));         \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

__global__ void reinhard(uchar4 *px, int n, float exposure)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = px[i];
    float r = p.x * exposure / 255.f, g = p.y * exposure / 255.f, b = p.z * exposure / 255.f;
    px[i] = make_uchar4((unsigned char)(255.f * r / (1.f + r)),
                        (unsigned char)(255.f * g / (1.f + g)),
                        (unsigned char)(255.f * b / (1.f + b)), p.w);
}

int main(int argc, char **argv)
{
    bool preview = argc > 1 && std::strcmp(argv[1], "--preview") == 0;

    uint8_t *h_frame = (uint8_t *)malloc(UHD_W * UHD_H * BPP);
    for (int i = 0; i < UHD_W * UHD_H * BPP; ++i) h_frame[i] = (uint8_t)(i * 13);

    uchar4 *d_frame = nullptr;
    int npix;
    if (preview) {
        CUDA_CHECK(cudaMalloc(&d_frame, PREVIEW_W * PREVIEW_H * BPP));
        npix = PREVIEW_W * PREVIEW_H;
    } else {
        CUDA_CHECK(cudaMalloc(&d_frame, HD_W * HD_H * BPP));
        npix = HD_W * HD_H;
    }

    CUDA_CHECK(cudaMemcpy(d_frame, h_frame, UHD_W * UHD_H * BPP, cudaMemcpyHostToDevice)); // EXPECT: copy_out_of_bounds

    reinhard<<<(npix + 255) / 256, 256>>>(d_frame, npix, 1.5f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_frame, d_frame, (size_t)npix * BPP, cudaMemcpyDeviceToHost));

    printf("first pixel: %u %u %u\n", h_frame[0], h_frame[1], h_frame[2]);

    CUDA_CHECK(cudaFree(d_frame));
    free(h_frame);
    return 0;
}
