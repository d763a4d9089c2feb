// case: a least-squares solver allocates the device right-hand side for kCols floats but copies the whole kRows x kCols design matrix into it, a copy larger than its destination
// expect: copy_out_of_bounds=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

constexpr int kRows = 512;
constexpr int kCols = 64;

__global__ void normal_equations(const float* A, const float* b, float* AtA, float* Atb) {
    int i = blockIdx.x, j = threadIdx.x;
    float s = 0.f;
    for (int r = 0; r < kRows; ++r) s += A[r * kCols + i] * A[r * kCols + j];
    AtA[i * kCols + j] = s;
    if (j == 0) {
        float t = 0.f;
        for (int r = 0; r < kRows; ++r) t += A[r * kCols + i] * b[r];
        Atb[i] = t;
    }
}

int main() {
    std::vector<float> A(kRows * kCols), b(kRows);
    for (int r = 0; r < kRows; ++r) {
        b[r] = 1.0f + 0.01f * r;
        for (int c = 0; c < kCols; ++c) A[r * kCols + c] = (r == c) ? 2.0f : 0.001f * (r + c);
    }

    float *d_A, *d_b, *d_AtA, *d_Atb;
    CUDA_CHECK(cudaMalloc(&d_A, kRows * kCols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, kCols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_AtA, kCols * kCols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_Atb, kCols * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_A, A.data(), kRows * kCols * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, A.data(), kRows * kCols * sizeof(float), cudaMemcpyHostToDevice)); // EXPECT: copy_out_of_bounds

    normal_equations<<<kCols, kCols>>>(d_A, d_b, d_AtA, d_Atb);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> AtA(kCols * kCols), Atb(kCols);
    CUDA_CHECK(cudaMemcpy(AtA.data(), d_AtA, AtA.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(Atb.data(), d_Atb, Atb.size() * sizeof(float), cudaMemcpyDeviceToHost));
    printf("AtA[0] = %.4f Atb[0] = %.4f\n", AtA[0], Atb[0]);

    CUDA_CHECK(cudaFree(d_Atb));
    CUDA_CHECK(cudaFree(d_AtA));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_A));
    return 0;
}
