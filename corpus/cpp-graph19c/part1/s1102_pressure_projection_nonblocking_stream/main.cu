// case: the CFD projection step of s1101 on a stream made with cudaStreamNonBlocking:
//       the one-time synchronous cudaMemset of the counters inside the global-mode
//       capture succeeds beside a non-blocking capturing stream (measured), runs at once,
//       and is finished by a device synchronize before the first replay
// expect: none
#include <cmath>
#include <cstdio>
#include "cuda_check.h"
#include "pressure_solver.cuh"

int main() {
    const int nx = 384;
    const int ny = 256;
    const float dx = 1.0f / static_cast<float>(nx - 1);
    const float dt = 2.0e-3f;
    const int steps = 60;
    const size_t cells = static_cast<size_t>(nx) * ny;
    const float pi = 3.14159265f;

    float* h_u = nullptr;
    float* h_v = nullptr;
    float* h_p = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_u, cells * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_v, cells * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_p, cells * sizeof(float)));

    // Taylor-Green vortex plus a divergent perturbation the projection has to remove.
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            const float x = i * dx;
            const float y = j * dx;
            h_u[j * nx + i] = std::sin(pi * x) * std::cos(pi * y) + 0.10f * x;
            h_v[j * nx + i] = -std::cos(pi * x) * std::sin(pi * y) + 0.05f * y;
        }
    }

    {
        PressureSolver solver(nx, ny, dx, dt, 40);
        solver.upload_velocity(h_u, h_v);
        solver.capture_projection();

        for (int step = 0; step < steps; ++step) {
            const float rms = solver.project();
            if (step % 10 == 0) std::printf("step %3d  pressure residual %.3e\n", step, rms);
        }

        const SolveStats stats = solver.statistics();
        std::printf("%u solves, %llu sweeps, worst residual^2 %.3e\n", stats.solves,
                    stats.sweeps, stats.worst_residual2);

        solver.download(h_u, h_v, h_p);
        double ke = 0.0, pmean = 0.0;
        for (size_t c = 0; c < cells; ++c) {
            ke += 0.5 * (static_cast<double>(h_u[c]) * h_u[c] + static_cast<double>(h_v[c]) * h_v[c]);
            pmean += h_p[c];
        }
        std::printf("kinetic energy %.6f, mean pressure %.6f\n", ke * dx * dx, pmean / cells);
    }

    CUDA_CHECK(cudaFreeHost(h_u));
    CUDA_CHECK(cudaFreeHost(h_v));
    CUDA_CHECK(cudaFreeHost(h_p));
    return 0;
}
