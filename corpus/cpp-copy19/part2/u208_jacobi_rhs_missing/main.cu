// case: a Poisson solver (kernel and RAII problem struct in solver.cuh) zeroes the initial guess but never uploads the right-hand side, so the first Jacobi sweep reads d_rhs uninitialized.
// expect: uninitialized_device_read=1
#include "solver.cuh"
#include <vector>
#include <cmath>

int main()
{
    const float h = 1.0f / (GRID_N - 1);
    std::vector<float> rhs(GRID_CELLS);
    for (int y = 0; y < GRID_N; ++y)
        for (int x = 0; x < GRID_N; ++x)
            rhs[y * GRID_N + x] = std::sin(3.14159f * x * h) * std::sin(3.14159f * y * h);

    PoissonProblem prob;
    CUDA_CHECK(cudaMemset(prob.d_u, 0, GRID_CELLS * sizeof(float)));

    dim3 block(16, 16);
    dim3 grid((GRID_N + 15) / 16, (GRID_N + 15) / 16);
    for (int it = 0; it < 500; ++it) {
        jacobi_sweep<<<grid, block>>>(prob.d_u, prob.d_rhs, prob.d_u_new, h * h); // EXPECT: uninitialized_device_read
        jacobi_sweep<<<grid, block>>>(prob.d_u_new, prob.d_rhs, prob.d_u, h * h);
    }
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> u(GRID_CELLS);
    CUDA_CHECK(cudaMemcpy(u.data(), prob.d_u, GRID_CELLS * sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("u(center) = %f\n", u[(GRID_N / 2) * GRID_N + GRID_N / 2]);
    return 0;
}
