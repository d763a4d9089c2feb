// case: per-frame blob detector allocates its candidate list with cudaMalloc inside the frame loop and frees only the last one after the loop (each frame's allocation overwrites the only pointer to the previous one), and reads the device-side candidate counter directly on the host.
// expect: device_memory_leak=1, host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Candidate { int x, y; float response; };

__global__ void dog_response(const float* __restrict__ img, int w, int h, float thresh,
                             Candidate* out, int cap, int* count)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 2 || y < 2 || x >= w - 2 || y >= h - 2) return;
    float c = img[y * w + x];
    float ring = 0.f;
    for (int d = -2; d <= 2; ++d) ring += img[(y + d) * w + x - 2] + img[(y + d) * w + x + 2];
    float r = c - ring / 10.f;
    if (r > thresh) {
        int slot = atomicAdd(count, 1);
        if (slot < cap) out[slot] = {x, y, r};
    }
}

int main(int argc, char** argv)
{
    const int w = argc > 1 ? atoi(argv[1]) : 1920, h = argc > 2 ? atoi(argv[2]) : 1080;
    const int frames = argc > 3 ? atoi(argv[3]) : 300, cap = 4096;
    std::vector<float> frame((size_t)w * h);

    float* d_img;
    int* d_count;
    CUDA_CHECK(cudaMalloc(&d_img, frame.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_count, sizeof(int)));
    Candidate* d_cands = nullptr;
    std::vector<Candidate> cands(cap);

    dim3 blk(16, 16), grd((w + 15) / 16, (h + 15) / 16);
    long total = 0;
    for (int f = 0; f < frames; ++f) {
        for (size_t i = 0; i < frame.size(); ++i) frame[i] = (float)(((i * 31 + f * 7) % 97) / 97.0);
        CUDA_CHECK(cudaMemcpy(d_img, frame.data(), frame.size() * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMalloc(&d_cands, cap * sizeof(Candidate)));          // EXPECT: device_memory_leak
        CUDA_CHECK(cudaMemset(d_count, 0, sizeof(int)));
        dog_response<<<grd, blk>>>(d_img, w, h, 0.35f, d_cands, cap, d_count);
        CUDA_CHECK(cudaDeviceSynchronize());
        int found = *d_count;                                                // EXPECT: host_deref_device_ptr
        int kept = found < cap ? found : cap;
        CUDA_CHECK(cudaMemcpy(cands.data(), d_cands, kept * sizeof(Candidate), cudaMemcpyDeviceToHost));
        total += kept;
        if (f % 60 == 0 && kept > 0)
            printf("frame %d: %d blobs, strongest at (%d,%d)\n", f, kept, cands[0].x, cands[0].y);
    }
    printf("%ld candidates over %d frames\n", total, frames);

    CUDA_CHECK(cudaFree(d_cands));
    CUDA_CHECK(cudaFree(d_count));
    CUDA_CHECK(cudaFree(d_img));
    return 0;
}
