// case: each worker rank builds a partial histogram in a scratch device buffer inside send_partial_histogram and ships it to rank 0 with MPI_Isend; the helper frees the scratch buffer with cudaFree before anyone waits for the request, which the caller only completes later.
// expect: missing_sync=1
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

static const int kTag = 7;

__global__ void generate(float* x, int n, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = (i + 1) * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    x[i] = (float)(h & 0xffff) / 65536.0f;
}

__global__ void histogram(const float* x, int n, unsigned* hist, int nbins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = (int)(x[i] * nbins);
    if (b >= nbins) b = nbins - 1;
    atomicAdd(&hist[b], 1u);
}

static void send_partial_histogram(const float* d_samples, int n, int nbins,
                                   cudaStream_t s, MPI_Request* req) {
    unsigned* d_hist = nullptr;
    CHECK(cudaMalloc(&d_hist, nbins * sizeof(unsigned)));
    CHECK(cudaMemsetAsync(d_hist, 0, nbins * sizeof(unsigned), s));
    histogram<<<(n + 255) / 256, 256, 0, s>>>(d_samples, n, d_hist, nbins);
    CHECK(cudaStreamSynchronize(s));
    MPI_Isend(d_hist, nbins, MPI_UNSIGNED, 0, kTag, MPI_COMM_WORLD, req);
    CHECK(cudaFree(d_hist));  // EXPECT: missing_sync
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 1 << 22, nbins = 64;

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float* d_samples = nullptr;
    CHECK(cudaMalloc(&d_samples, n * sizeof(float)));
    generate<<<(n + 255) / 256, 256, 0, s>>>(d_samples, n, 1234u + rank);

    if (rank != 0) {
        MPI_Request req;
        send_partial_histogram(d_samples, n, nbins, s, &req);
        // ... the next batch could be generated here while the histogram travels
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        unsigned* d_root = nullptr;
        CHECK(cudaMalloc(&d_root, nbins * sizeof(unsigned)));
        CHECK(cudaMemsetAsync(d_root, 0, nbins * sizeof(unsigned), s));
        histogram<<<(n + 255) / 256, 256, 0, s>>>(d_samples, n, d_root, nbins);
        std::vector<unsigned> total(nbins), part(nbins);
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemcpy(total.data(), d_root, nbins * sizeof(unsigned), cudaMemcpyDeviceToHost));
        for (int r = 1; r < size; ++r) {
            MPI_Recv(part.data(), nbins, MPI_UNSIGNED, r, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int b = 0; b < nbins; ++b) total[b] += part[b];
        }
        unsigned long long sum = 0;
        for (unsigned c : total) sum += c;
        printf("bins[0]=%u bins[%d]=%u, %llu samples\n", total[0], nbins - 1, total[nbins - 1], sum);
        CHECK(cudaFree(d_root));
    }

    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(d_samples));
    CHECK(cudaStreamDestroy(s));
    MPI_Finalize();
    return 0;
}
