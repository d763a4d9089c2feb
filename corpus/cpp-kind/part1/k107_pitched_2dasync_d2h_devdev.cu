// case: a frame-cropping step copies a region between two pitched device frames with cudaMemcpy2DAsync but states cudaMemcpyDeviceToHost, so the cudaMallocPitch destination is named as host memory.
// expect: memcpy_kind_mismatch=1
#include <cstdio>
#include <cuda_runtime.h>

struct Frame {
    unsigned char* data;
    size_t pitch;
    int width, height;
};

static Frame makeFrame(int w, int h) {
    Frame f{nullptr, 0, w, h};
    cudaMallocPitch((void**)&f.data, &f.pitch, w * 4, h);
    return f;
}

__global__ void fill(unsigned char* p, size_t pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w * 4 && y < h) p[y * pitch + x] = (unsigned char)(x ^ y);
}

int main() {
    Frame full = makeFrame(3840, 2160);
    Frame crop = makeFrame(1280, 720);
    cudaStream_t s;
    cudaStreamCreate(&s);

    fill<<<dim3((full.width * 4 + 255) / 256, full.height), 256, 0, s>>>(
        full.data, full.pitch, full.width, full.height);

    const int x0 = 640, y0 = 360;
    unsigned char* srcOrigin = full.data + y0 * full.pitch + x0 * 4;
    cudaMemcpy2DAsync(crop.data, crop.pitch, srcOrigin, full.pitch, // EXPECT: memcpy_kind_mismatch
                      crop.width * 4, crop.height, cudaMemcpyDeviceToHost, s);

    unsigned char* hostCrop;
    cudaMallocHost(&hostCrop, crop.width * 4 * crop.height);
    cudaMemcpy2DAsync(hostCrop, crop.width * 4, crop.data, crop.pitch,
                      crop.width * 4, crop.height, cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    printf("first byte %u\n", hostCrop[0]);

    cudaFreeHost(hostCrop);
    cudaFree(crop.data);
    cudaFree(full.data);
    cudaStreamDestroy(s);
    return 0;
}
