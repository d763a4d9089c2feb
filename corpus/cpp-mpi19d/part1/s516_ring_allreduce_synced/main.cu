// case: data-parallel training step whose gradient is summed by ring_allreduce (ring_allreduce.h), MPI_Sendrecv on chunks d + chunk * s with a cudaStreamSynchronize after each accumulate kernel and after the gradient kernel before the call: near miss.
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ring_allreduce.h"

static void cuda_or_die(cudaError_t e, const char* where) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", where, cudaGetErrorString(e));
        MPI_Abort(MPI_COMM_WORLD, 1);
        std::exit(1);
    }
}

__global__ void backward(const double* __restrict__ act, const double* __restrict__ err,
                         double* __restrict__ grad, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) grad[i] = act[i] * err[i];
}

__global__ void sgd(double* __restrict__ w, const double* __restrict__ grad, size_t n, double lr, double inv_ranks) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * grad[i] * inv_ranks;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    const size_t chunk = 262144;
    const size_t n = chunk * nranks;
    const int epochs = 20;

    std::vector<double> act(n), err(n), w(n, 0.5);
    for (size_t i = 0; i < n; ++i) {
        act[i] = 1.0 / (1.0 + (i % 17));
        err[i] = 0.1 * ((rank + i) % 5) - 0.2;
    }

    double *d_act, *d_err, *d_grad, *d_w, *d_scratch;
    cuda_or_die(cudaMalloc(&d_act, n * sizeof(double)), "act");
    cuda_or_die(cudaMalloc(&d_err, n * sizeof(double)), "err");
    cuda_or_die(cudaMalloc(&d_grad, n * sizeof(double)), "grad");
    cuda_or_die(cudaMalloc(&d_w, n * sizeof(double)), "w");
    cuda_or_die(cudaMalloc(&d_scratch, chunk * sizeof(double)), "scratch");
    cuda_or_die(cudaMemcpy(d_act, act.data(), n * sizeof(double), cudaMemcpyHostToDevice), "up act");
    cuda_or_die(cudaMemcpy(d_err, err.data(), n * sizeof(double), cudaMemcpyHostToDevice), "up err");
    cuda_or_die(cudaMemcpy(d_w, w.data(), n * sizeof(double), cudaMemcpyHostToDevice), "up w");
    cuda_or_die(cudaMemset(d_scratch, 0, chunk * sizeof(double)), "zero scratch");

    cudaStream_t s;
    cuda_or_die(cudaStreamCreate(&s), "stream");
    const unsigned blocks = static_cast<unsigned>((n + 255) / 256);

    for (int e = 0; e < epochs; ++e) {
        backward<<<blocks, 256, 0, s>>>(d_act, d_err, d_grad, n);
        cuda_or_die(cudaStreamSynchronize(s), "backward");
        ring_allreduce(d_grad, d_scratch, chunk, s, MPI_COMM_WORLD);
        sgd<<<blocks, 256, 0, s>>>(d_w, d_grad, n, 0.05, 1.0 / nranks);
    }
    cuda_or_die(cudaStreamSynchronize(s), "final");

    cuda_or_die(cudaMemcpy(w.data(), d_w, n * sizeof(double), cudaMemcpyDeviceToHost), "down w");
    if (rank == 0) std::printf("w[0] = %.8f, w[n-1] = %.8f\n", w[0], w[n - 1]);

    cudaFree(d_act);
    cudaFree(d_err);
    cudaFree(d_grad);
    cudaFree(d_w);
    cudaFree(d_scratch);
    cudaStreamDestroy(s);
    MPI_Finalize();
    return 0;
}
