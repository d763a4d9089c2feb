// Data-parallel logistic regression with NCCL. Gradients are averaged in place on a
// communication stream; the hand-offs between the compute and communication streams are
// events in both directions, so the host only waits when it logs the loss.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                         \
        }                                                                         \
    } while (0)

#define NCCL_CHECK(call)                                                          \
    do {                                                                          \
        ncclResult_t r_ = (call);                                                 \
        if (r_ != ncclSuccess) {                                                  \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         ncclGetErrorString(r_));                                 \
            MPI_Abort(MPI_COMM_WORLD, 1);                                         \
        }                                                                         \
    } while (0)

constexpr int kFeatures = 2048;
constexpr int kRows = 16384;
constexpr int kSteps = 200;
constexpr int kLogEvery = 20;

__device__ float sigmoid(float z) { return 1.0f / (1.0f + __expf(-z)); }

// p = sigmoid(x_row . w); d = p - label; loss += cross-entropy
__global__ void logistic_residual(const float* __restrict__ x, const float* __restrict__ labels,
                                  const float* __restrict__ w, float* __restrict__ d,
                                  float* __restrict__ loss, int rows, int features) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + static_cast<size_t>(r) * features;
    float z = 0.f;
    for (int f = 0; f < features; ++f) z += xr[f] * w[f];
    const float p = sigmoid(z);
    d[r] = p - labels[r];
    atomicAdd(loss, -(labels[r] * __logf(p + 1e-7f) + (1.0f - labels[r]) * __logf(1.0f - p + 1e-7f)));
}

__global__ void logistic_grad(const float* __restrict__ x, const float* __restrict__ d,
                              float* __restrict__ grad, int rows, int features) {
    const int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= features) return;
    float g = 0.f;
    for (int r = 0; r < rows; ++r) g += d[r] * x[static_cast<size_t>(r) * features + f];
    grad[f] = g / rows;
}

__global__ void sgd_step(float* __restrict__ w, const float* __restrict__ grad, float lr, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * grad[i];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, nranks = 1, devices = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    CUDA_CHECK(cudaGetDeviceCount(&devices));
    CUDA_CHECK(cudaSetDevice(rank % devices));
    ncclUniqueId id;
    if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    NCCL_CHECK(ncclCommInitRank(&comm, nranks, id, rank));

    cudaStream_t compute, comm_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking));
    cudaEvent_t grads_ready, grads_reduced;
    CUDA_CHECK(cudaEventCreateWithFlags(&grads_ready, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&grads_reduced, cudaEventDisableTiming));

    const size_t x_elems = static_cast<size_t>(kRows) * kFeatures;
    float *h_x, *h_labels, *h_loss;
    CUDA_CHECK(cudaMallocHost(&h_x, x_elems * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_labels, kRows * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_loss, sizeof(float)));
    for (int r = 0; r < kRows; ++r) {
        float margin = 0.f;
        for (int f = 0; f < kFeatures; ++f) {
            const float v = std::cos(0.0007f * (r + 3) * (f + 1) + 0.5f * rank);
            h_x[static_cast<size_t>(r) * kFeatures + f] = v;
            margin += (f % 2 ? 0.1f : -0.1f) * v;
        }
        h_labels[r] = margin > 0.f ? 1.0f : 0.0f;
    }

    float *d_x, *d_labels, *d_w, *d_resid, *d_grad, *d_loss;
    CUDA_CHECK(cudaMalloc(&d_x, x_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_labels, kRows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_w, kFeatures * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_resid, kRows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_grad, kFeatures * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_loss, sizeof(float)));
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, x_elems * sizeof(float), cudaMemcpyHostToDevice, compute));
    CUDA_CHECK(cudaMemcpyAsync(d_labels, h_labels, kRows * sizeof(float), cudaMemcpyHostToDevice, compute));
    CUDA_CHECK(cudaMemsetAsync(d_w, 0, kFeatures * sizeof(float), compute));

    const int threads = 256;
    const float lr = 0.5f;
    for (int step = 0; step < kSteps; ++step) {
        CUDA_CHECK(cudaMemsetAsync(d_loss, 0, sizeof(float), compute));
        logistic_residual<<<(kRows + threads - 1) / threads, threads, 0, compute>>>(
            d_x, d_labels, d_w, d_resid, d_loss, kRows, kFeatures);
        CUDA_CHECK(cudaGetLastError());
        logistic_grad<<<(kFeatures + threads - 1) / threads, threads, 0, compute>>>(
            d_x, d_resid, d_grad, kRows, kFeatures);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(grads_ready, compute));

        CUDA_CHECK(cudaStreamWaitEvent(comm_stream, grads_ready, 0));
        NCCL_CHECK(ncclAllReduce(d_grad, d_grad, kFeatures, ncclFloat, ncclAvg, comm, comm_stream));
        CUDA_CHECK(cudaEventRecord(grads_reduced, comm_stream));

        CUDA_CHECK(cudaStreamWaitEvent(compute, grads_reduced, 0));
        sgd_step<<<(kFeatures + threads - 1) / threads, threads, 0, compute>>>(d_w, d_grad, lr, kFeatures);
        CUDA_CHECK(cudaGetLastError());

        if (step % kLogEvery == 0) {
            CUDA_CHECK(cudaMemcpyAsync(h_loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost, compute));
            CUDA_CHECK(cudaStreamSynchronize(compute));
            if (rank == 0) std::printf("step %3d  loss %.5f\n", step, *h_loss / kRows);
        }
    }

    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaStreamSynchronize(comm_stream));
    CUDA_CHECK(cudaFree(d_loss));
    CUDA_CHECK(cudaFree(d_grad));
    CUDA_CHECK(cudaFree(d_resid));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFree(d_labels));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_loss));
    CUDA_CHECK(cudaFreeHost(h_labels));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaEventDestroy(grads_reduced));
    CUDA_CHECK(cudaEventDestroy(grads_ready));
    CUDA_CHECK(cudaStreamDestroy(comm_stream));
    CUDA_CHECK(cudaStreamDestroy(compute));
    NCCL_CHECK(ncclCommDestroy(comm));
    MPI_Finalize();
    return 0;
}
