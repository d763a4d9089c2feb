// case: a CT back-projector allocates its angle table with cudaMallocManaged(..., cudaMemAttachHost) and rebuilds it on the host while the back-projection kernel (which uses only cudaMalloc memory) runs; host-attached managed memory is not taken by kernels, so the access is legal even without concurrent managed access.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)

constexpr int kViews = 720;
constexpr int kDetectors = 1024;
constexpr int kVol = 512;

struct AngleEntry { float cos_t, sin_t; };

__global__ void backproject(const float* sino, const AngleEntry* angles, float* volume) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= kVol) return;
    float fx = x - kVol / 2.0f, fy = y - kVol / 2.0f, acc = 0.f;
    for (int v = 0; v < kViews; ++v) {
        int d = int(fx * angles[v].cos_t + fy * angles[v].sin_t) + kDetectors / 2;
        if (d >= 0 && d < kDetectors) acc += sino[v * kDetectors + d];
    }
    volume[y * kVol + x] = acc;
}

static void fill_angles(AngleEntry* table, float offset_deg) {
    for (int v = 0; v < kViews; ++v) {
        float t = (offset_deg + 0.5f * v) * 3.14159265f / 180.0f;
        table[v].cos_t = std::cos(t);
        table[v].sin_t = std::sin(t);
    }
}

int main() {
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float *d_sino = nullptr, *d_vol = nullptr;
    AngleEntry* d_angles = nullptr;
    CUDA_CHECK(cudaMalloc(&d_sino, sizeof(float) * kViews * kDetectors));
    CUDA_CHECK(cudaMalloc(&d_vol, sizeof(float) * kVol * kVol));
    CUDA_CHECK(cudaMalloc(&d_angles, sizeof(AngleEntry) * kViews));
    CUDA_CHECK(cudaMemsetAsync(d_sino, 0, sizeof(float) * kViews * kDetectors, stream));

    // next gantry position's geometry, host-attached: kernels on any stream leave it alone
    AngleEntry* next_table = nullptr;
    CUDA_CHECK(cudaMallocManaged(&next_table, sizeof(AngleEntry) * kViews, cudaMemAttachHost));

    AngleEntry first[kViews];
    fill_angles(first, 0.0f);
    CUDA_CHECK(cudaMemcpy(d_angles, first, sizeof(first), cudaMemcpyHostToDevice));

    for (int rotation = 1; rotation <= 4; ++rotation) {
        backproject<<<dim3(kVol / 128, kVol), 128, 0, stream>>>(d_sino, d_angles, d_vol);
        fill_angles(next_table, 0.25f * rotation);     // overlaps the kernel: host-attached memory
        CUDA_CHECK(cudaStreamSynchronize(stream));
        CUDA_CHECK(cudaMemcpy(d_angles, next_table, sizeof(AngleEntry) * kViews, cudaMemcpyDefault));
    }

    float centre = 0.f;
    CUDA_CHECK(cudaMemcpy(&centre, d_vol + (kVol / 2) * kVol + kVol / 2, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("centre voxel %.3f\n", centre);

    CUDA_CHECK(cudaFree(next_table));
    CUDA_CHECK(cudaFree(d_angles));
    CUDA_CHECK(cudaFree(d_vol));
    CUDA_CHECK(cudaFree(d_sino));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
