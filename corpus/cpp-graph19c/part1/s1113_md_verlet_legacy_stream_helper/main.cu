// case: a Lennard-Jones MD code captures blocks of velocity-Verlet steps on a stream made by
//       cudaStreamCreate; the force evaluation calls an older header helper that clears the
//       force accumulators with a kernel launched on the legacy default stream, which is
//       not permitted while a blocking stream captures
// expect: uncapturable_call=1
#include <cmath>
#include <cstdio>
#include <random>
#include "cuda_check.h"
#include "md_system.cuh"

int main() {
    const int cells = 12;                // fcc lattice, 4 atoms per cell
    const int n = 4 * cells * cells * cells;
    const float density = 0.8f;
    const float box = std::cbrt(n / density);
    const float a = box / cells;
    const float dt = 0.004f;
    const int blocks = 250;

    float4* h_pos = nullptr;
    float4* h_vel = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_pos, n * sizeof(float4)));
    CUDA_CHECK(cudaMallocHost(&h_vel, n * sizeof(float4)));

    const float basis[4][3] = {{0, 0, 0}, {0.5f, 0.5f, 0}, {0.5f, 0, 0.5f}, {0, 0.5f, 0.5f}};
    std::mt19937 rng(2024);
    std::normal_distribution<float> maxwell(0.0f, std::sqrt(0.72f));  // T* = 0.72
    int k = 0;
    for (int x = 0; x < cells; ++x)
        for (int y = 0; y < cells; ++y)
            for (int z = 0; z < cells; ++z)
                for (int b = 0; b < 4; ++b, ++k) {
                    h_pos[k] = make_float4((x + basis[b][0]) * a, (y + basis[b][1]) * a,
                                           (z + basis[b][2]) * a, 0.0f);
                    h_vel[k] = make_float4(maxwell(rng), maxwell(rng), maxwell(rng), 0.0f);
                }

    {
        MdSystem md(n, box, dt, 20);
        md.load(h_pos, h_vel);
        md.capture();
        float e0 = 0.0f;
        for (int blk = 0; blk < blocks; ++blk) {
            float kinetic = 0.0f;
            const float e = md.run_block(&kinetic);
            if (blk == 0) e0 = e;
            if (blk % 50 == 0)
                std::printf("block %3d: T* = %.4f, energy drift %.2e\n", blk,
                            2.0f * kinetic / (3.0f * n), (e - e0) / std::fabs(e0));
        }
        md.save(h_pos);
    }

    double cx = 0.0;
    for (int i = 0; i < n; ++i) cx += h_pos[i].x;
    std::printf("centre of mass x: %.4f (box %.4f)\n", cx / n, box);

    CUDA_CHECK(cudaFreeHost(h_pos));
    CUDA_CHECK(cudaFreeHost(h_vel));
    return 0;
}
