// case: distributed k-means on a non-blocking stream with CUDA-aware in-place MPI_Allreduce of the cluster sums and counts; the event is recorded after assign_and_sum but before count_members, so cudaEventSynchronize does not cover the kernel still writing d_counts when MPI_Allreduce reads it.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cmath>
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

constexpr int K = 16, DIM = 8;

__global__ void assign_and_sum(const float* pts, const float* cent, int* assign, float* sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int best = 0;
    float best_d = 1e30f;
    for (int c = 0; c < K; ++c) {
        float d = 0.0f;
        for (int k = 0; k < DIM; ++k) { float t = pts[i * DIM + k] - cent[c * DIM + k]; d += t * t; }
        if (d < best_d) { best_d = d; best = c; }
    }
    assign[i] = best;
    for (int k = 0; k < DIM; ++k) atomicAdd(&sums[best * DIM + k], pts[i * DIM + k]);
}

__global__ void count_members(const int* assign, int* counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[assign[i]], 1);
}

__global__ void update_centroids(float* cent, const float* sums, const int* counts) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < K && counts[c] > 0)
        for (int k = 0; k < DIM; ++k) cent[c * DIM + k] = sums[c * DIM + k] / counts[c];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 200000, iters = 25;

    std::vector<float> h_pts((size_t)n * DIM), h_cent(K * DIM);
    for (size_t j = 0; j < h_pts.size(); ++j) h_pts[j] = (float)((j * 7919 + rank * 104729) % 10007) / 10007.0f;
    for (int j = 0; j < K * DIM; ++j) h_cent[j] = (float)((j * 31) % 97) / 97.0f;

    float *d_pts, *d_cent, *d_sums, *h_cent_pinned;
    int *d_assign, *d_counts;
    CHECK(cudaMalloc(&d_pts, h_pts.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_cent, K * DIM * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, K * DIM * sizeof(float)));
    CHECK(cudaMalloc(&d_assign, n * sizeof(int)));
    CHECK(cudaMalloc(&d_counts, K * sizeof(int)));
    CHECK(cudaMallocHost(&h_cent_pinned, K * DIM * sizeof(float)));
    CHECK(cudaMemcpy(d_pts, h_pts.data(), h_pts.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_cent, h_cent.data(), K * DIM * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());

    cudaStream_t s;
    cudaEvent_t sums_ready;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&sums_ready, cudaEventDisableTiming));
    const int tb = 256, nb = (n + tb - 1) / tb;
    float shift = 0.0f;
    for (int it = 0; it < iters; ++it) {
        CHECK(cudaMemsetAsync(d_sums, 0, K * DIM * sizeof(float), s));
        CHECK(cudaMemsetAsync(d_counts, 0, K * sizeof(int), s));
        assign_and_sum<<<nb, tb, 0, s>>>(d_pts, d_cent, d_assign, d_sums, n);
        CHECK(cudaEventRecord(sums_ready, s));
        count_members<<<nb, tb, 0, s>>>(d_assign, d_counts, n);
        CHECK(cudaEventSynchronize(sums_ready));
        MPI_Allreduce(MPI_IN_PLACE, d_sums, K * DIM, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, d_counts, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD);  // EXPECT: missing_sync
        update_centroids<<<1, 32, 0, s>>>(d_cent, d_sums, d_counts);
        CHECK(cudaMemcpyAsync(h_cent_pinned, d_cent, K * DIM * sizeof(float), cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        shift = 0.0f;
        for (int j = 0; j < K * DIM; ++j) {
            shift += fabsf(h_cent_pinned[j] - h_cent[j]);
            h_cent[j] = h_cent_pinned[j];
        }
        if (shift < 1e-6f) break;
    }
    if (rank == 0) printf("k-means: last centroid shift %.3e\n", shift);

    CHECK(cudaEventDestroy(sums_ready));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_pts));
    CHECK(cudaFree(d_cent));
    CHECK(cudaFree(d_sums));
    CHECK(cudaFree(d_assign));
    CHECK(cudaFree(d_counts));
    CHECK(cudaFreeHost(h_cent_pinned));
    MPI_Finalize();
    return 0;
}
