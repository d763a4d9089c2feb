// case: reaction model on a non-blocking stream whose output is staged through a pinned host buffer for a host-memory MPI_Gather to rank 0; cudaStreamSynchronize after the cudaMemcpyAsync completes h_stage before MPI_Gather reads it (near miss of s211).
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                        \
                    cudaGetErrorString(err_), __FILE__, __LINE__);             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

// Logistic growth with a spatially varying rate, one cell per thread.
__global__ void react(float* u, const float* rate, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) u[i] += dt * rate[i] * u[i] * (1.0f - u[i]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int n = 1 << 18, outputs = 10, steps_per_output = 25;
    const float dt = 0.01f;
    const size_t bytes = n * sizeof(float);

    std::vector<float> h_init(n), h_rate(n);
    for (int i = 0; i < n; ++i) {
        h_init[i] = 0.01f + 0.001f * ((i + rank) % 7);
        h_rate[i] = 0.5f + 0.5f * (float)((i * 3 + rank) % 10) / 10.0f;
    }

    float *d_u, *d_rate, *h_stage;
    CHECK(cudaMalloc(&d_u, bytes));
    CHECK(cudaMalloc(&d_rate, bytes));
    CHECK(cudaMallocHost(&h_stage, bytes));
    CHECK(cudaMemcpy(d_u, h_init.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_rate, h_rate.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());

    std::vector<float> h_all;
    if (rank == 0) h_all.resize((size_t)n * size);

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int threads = 256, blocks = (n + threads - 1) / threads;
    for (int out = 0; out < outputs; ++out) {
        for (int k = 0; k < steps_per_output; ++k)
            react<<<blocks, threads, 0, s>>>(d_u, d_rate, n, dt);
        CHECK(cudaMemcpyAsync(h_stage, d_u, bytes, cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        MPI_Gather(h_stage, n, MPI_FLOAT, rank == 0 ? h_all.data() : nullptr, n, MPI_FLOAT, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double mean = 0.0;
            for (float v : h_all) mean += v;
            printf("output %d: mean population %.5f\n", out, mean / h_all.size());
        }
    }
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(h_stage));
    CHECK(cudaFree(d_u));
    CHECK(cudaFree(d_rate));
    MPI_Finalize();
    return 0;
}
