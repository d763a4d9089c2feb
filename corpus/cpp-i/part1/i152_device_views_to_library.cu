// case: a batched GEMM driver computes per-matrix device pointers by host-side pointer arithmetic and hands them to a GEMM routine from another library whose body is not in the program, then copies the result back
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

extern "C" int tiledgemm_sgemm(cudaStream_t stream, int m, int n, int k, float alpha,
                               const float* A, int lda, const float* B, int ldb, float beta,
                               float* C, int ldc);

struct BatchedOperands {
    float* A;
    float* B;
    float* C;
    int m, n, k, batch;

    float* a_at(int i) const { return A + (size_t)i * m * k; }
    float* b_at(int i) const { return B + (size_t)i * k * n; }
    float* c_at(int i) const { return C + (size_t)i * m * n; }
};

int main() {
    BatchedOperands ops{nullptr, nullptr, nullptr, 128, 128, 64, 32};
    const size_t a_elems = (size_t)ops.m * ops.k * ops.batch;
    const size_t b_elems = (size_t)ops.k * ops.n * ops.batch;
    const size_t c_elems = (size_t)ops.m * ops.n * ops.batch;
    CUDA_CHECK(cudaMalloc(&ops.A, a_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ops.B, b_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ops.C, c_elems * sizeof(float)));

    std::vector<float> hA(a_elems, 0.5f), hB(b_elems, 2.0f), hC(c_elems);
    CUDA_CHECK(cudaMemcpy(ops.A, hA.data(), a_elems * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(ops.B, hB.data(), b_elems * sizeof(float), cudaMemcpyHostToDevice));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    for (int i = 0; i < ops.batch; ++i) {
        float* Ai = ops.a_at(i);
        float* Bi = ops.b_at(i);
        float* Ci = ops.c_at(i);
        if (tiledgemm_sgemm(s, ops.m, ops.n, ops.k, 1.0f, Ai, ops.m, Bi, ops.k, 0.0f, Ci, ops.m) != 0) {
            fprintf(stderr, "gemm %d failed\n", i);
            exit(1);
        }
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(hC.data(), ops.C, c_elems * sizeof(float), cudaMemcpyDeviceToHost));
    printf("C[0] = %.1f (expected %.1f)\n", hC[0], 0.5f * 2.0f * ops.k);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(ops.C));
    CUDA_CHECK(cudaFree(ops.B));
    CUDA_CHECK(cudaFree(ops.A));
    return 0;
}
