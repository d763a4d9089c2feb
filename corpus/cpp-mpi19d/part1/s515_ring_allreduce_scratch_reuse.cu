// case: hand-written ring all-reduce of a gradient with MPI_Sendrecv on chunks d_grad + chunk * k; in the reduce-scatter loop each step's MPI_Sendrecv writes the scratch chunk d_tmp while the previous step's add_chunk kernel may still be reading it (no stream synchronize inside the loop).
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_TRY(call)                                                                \
    do {                                                                              \
        cudaError_t err = (call);                                                     \
        if (err != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,         \
                         cudaGetErrorString(err));                                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                             \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

__global__ void compute_grad(float* __restrict__ g, const float* __restrict__ w, size_t n, int rank) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) g[i] = 0.01f * w[i] * (rank + 1);
}

__global__ void add_chunk(float* __restrict__ dst, const float* __restrict__ src, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) dst[i] += src[i];
}

__global__ void scale(float* __restrict__ g, size_t n, float s) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) g[i] *= s;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, world;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm comm = MPI_COMM_WORLD;

    const size_t chunk = 1 << 20;                 // floats per chunk
    const size_t n = chunk * world;               // one chunk per rank
    const int left = (rank - 1 + world) % world;
    const int right = (rank + 1) % world;

    std::vector<float> h_w(n);
    for (size_t i = 0; i < n; ++i) h_w[i] = 1.0f + 0.001f * static_cast<float>(i % 1000);

    float *d_w, *d_grad, *d_tmp;
    CUDA_TRY(cudaMalloc(&d_w, n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_grad, n * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_tmp, chunk * sizeof(float)));
    CUDA_TRY(cudaMemcpy(d_w, h_w.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemset(d_tmp, 0, chunk * sizeof(float)));

    cudaStream_t stream;
    CUDA_TRY(cudaStreamCreate(&stream));
    const int tpb = 512;
    const unsigned blocks_all = static_cast<unsigned>((n + tpb - 1) / tpb);
    const unsigned blocks_chunk = static_cast<unsigned>((chunk + tpb - 1) / tpb);

    compute_grad<<<blocks_all, tpb, 0, stream>>>(d_grad, d_w, n, rank);
    CUDA_TRY(cudaStreamSynchronize(stream));

    // Reduce-scatter: after world-1 steps, chunk (rank+1)%world holds the full sum.
    for (int k = 0; k < world - 1; ++k) {
        const int send_idx = (rank - k + world) % world;
        const int recv_idx = (rank - k - 1 + world) % world;
        MPI_Sendrecv(d_grad + chunk * send_idx, static_cast<int>(chunk), MPI_FLOAT, right, k, // EXPECT: missing_sync
                     d_tmp, static_cast<int>(chunk), MPI_FLOAT, left, k,
                     comm, MPI_STATUS_IGNORE);
        add_chunk<<<blocks_chunk, tpb, 0, stream>>>(d_grad + chunk * recv_idx, d_tmp, chunk);
    }
    CUDA_TRY(cudaStreamSynchronize(stream));

    // Allgather: pass the reduced chunks around the ring; MPI writes them in place.
    for (int k = 0; k < world - 1; ++k) {
        const int send_idx = (rank - k + 1 + world) % world;
        const int recv_idx = (rank - k + world) % world;
        MPI_Sendrecv(d_grad + chunk * send_idx, static_cast<int>(chunk), MPI_FLOAT, right, 1000 + k,
                     d_grad + chunk * recv_idx, static_cast<int>(chunk), MPI_FLOAT, left, 1000 + k,
                     comm, MPI_STATUS_IGNORE);
    }

    scale<<<blocks_all, tpb, 0, stream>>>(d_grad, n, 1.0f / world);
    CUDA_TRY(cudaStreamSynchronize(stream));

    std::vector<float> h_grad(n);
    CUDA_TRY(cudaMemcpy(h_grad.data(), d_grad, n * sizeof(float), cudaMemcpyDeviceToHost));
    if (rank == 0) std::printf("grad[0] = %.6f (expected %.6f)\n", h_grad[0], 0.01f * h_w[0] * (world + 1) / 2.0f);

    CUDA_TRY(cudaFree(d_w));
    CUDA_TRY(cudaFree(d_grad));
    CUDA_TRY(cudaFree(d_tmp));
    CUDA_TRY(cudaStreamDestroy(stream));
    MPI_Finalize();
    return 0;
}
