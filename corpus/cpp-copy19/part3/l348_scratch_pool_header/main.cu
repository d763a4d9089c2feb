// case: a 2-pass prefix-max filter takes all its device scratch from a ScratchPool (header) that records each block and frees them all in its destructor; main never calls cudaFree itself
// expect: none
#include <vector>
#include "scratch_pool.h"

#define SEG 1024
#define NUM_SEGS 4096

__global__ void segment_max(const float* in, float* seg_max) {
    const float* s = in + blockIdx.x * SEG;
    float m = s[0];
    for (int i = 1; i < SEG; ++i) m = fmaxf(m, s[i]);
    seg_max[blockIdx.x] = m;
}

__global__ void running_max(const float* seg_max, float* prefix, int nseg) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    float m = seg_max[0];
    for (int i = 0; i < nseg; ++i) {
        m = fmaxf(m, seg_max[i]);
        prefix[i] = m;
    }
}

int main() {
    std::vector<float> signal((size_t)SEG * NUM_SEGS);
    for (size_t i = 0; i < signal.size(); ++i)
        signal[i] = (float)((i * 2654435761u) % 100000) / 1000.f;

    std::vector<float> prefix(NUM_SEGS);
    {
        ScratchPool pool;
        float* d_in = pool.acquire<float>((size_t)SEG * NUM_SEGS);
        float* d_seg = pool.acquire<float>(NUM_SEGS);
        float* d_prefix = pool.acquire<float>(NUM_SEGS);

        POOL_CHECK(cudaMemcpy(d_in, signal.data(), signal.size() * sizeof(float),
                              cudaMemcpyHostToDevice));
        segment_max<<<NUM_SEGS, 1>>>(d_in, d_seg);
        running_max<<<1, 1>>>(d_seg, d_prefix, NUM_SEGS);
        POOL_CHECK(cudaMemcpy(prefix.data(), d_prefix, NUM_SEGS * sizeof(float),
                              cudaMemcpyDeviceToHost));
        std::printf("pool held %zu bytes\n", pool.bytes_in_use());
    }
    std::printf("prefix max: first %.3f, last %.3f\n", prefix[0], prefix[NUM_SEGS - 1]);
    return 0;
}
