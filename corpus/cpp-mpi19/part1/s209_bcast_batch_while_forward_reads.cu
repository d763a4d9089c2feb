// case: model-parallel inference on the legacy stream where rank 0 uploads each input batch with a blocking cudaMemcpy and MPI_Bcast sends it to all ranks; on the other ranks nothing waits for the previous forward kernel, which still reads d_batch when MPI_Bcast writes it.
// expect: missing_sync=1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "rank ?: %s (%s:%d)\n", cudaGetErrorString(err_),  \
                    __FILE__, __LINE__);                                       \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

// Each rank holds rows [0, out_shard) of its slice of the weight matrix.
__global__ void forward_shard(const float* w, const float* batch, float* out,
                              int out_shard, int in_dim, int bsz) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (o >= out_shard || b >= bsz) return;
    float acc = 0.0f;
    for (int k = 0; k < in_dim; ++k) acc += w[o * in_dim + k] * batch[b * in_dim + k];
    out[b * out_shard + o] = acc > 0.0f ? acc : 0.0f;
}

__global__ void accumulate_scores(const float* out, float* scores, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scores[i] += out[i];
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int in_dim = 1024, out_shard = 512, bsz = 64, nbatches = 20;
    const size_t batch_elems = (size_t)bsz * in_dim;
    const size_t out_elems = (size_t)bsz * out_shard;

    std::vector<float> h_w((size_t)out_shard * in_dim);
    for (size_t k = 0; k < h_w.size(); ++k) h_w[k] = (float)((k + rank * 3) % 11) * 0.01f - 0.05f;
    float* h_batch = nullptr;  // pinned staging for rank 0's uploads
    CHECK(cudaMallocHost(&h_batch, batch_elems * sizeof(float)));

    float *d_w, *d_batch, *d_out, *d_scores;
    CHECK(cudaMalloc(&d_w, h_w.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_batch, batch_elems * sizeof(float)));
    CHECK(cudaMalloc(&d_out, out_elems * sizeof(float)));
    CHECK(cudaMalloc(&d_scores, out_elems * sizeof(float)));
    CHECK(cudaMemcpy(d_w, h_w.data(), h_w.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_batch, 0, batch_elems * sizeof(float)));
    CHECK(cudaMemset(d_scores, 0, out_elems * sizeof(float)));
    CHECK(cudaDeviceSynchronize());

    dim3 block(128), grid((out_shard + 127) / 128, bsz);
    for (int b = 0; b < nbatches; ++b) {
        if (rank == 0) {
            for (size_t k = 0; k < batch_elems; ++k) h_batch[k] = (float)((k * 5 + b) % 17) / 17.0f;
            CHECK(cudaMemcpy(d_batch, h_batch, batch_elems * sizeof(float), cudaMemcpyHostToDevice));
        }
        MPI_Bcast(d_batch, (int)batch_elems, MPI_FLOAT, 0, MPI_COMM_WORLD);  // EXPECT: missing_sync
        forward_shard<<<grid, block>>>(d_w, d_batch, d_out, out_shard, in_dim, bsz);
        accumulate_scores<<<(out_elems + 255) / 256, 256>>>(d_out, d_scores, (int)out_elems);
    }

    std::vector<float> h_scores(out_elems);
    CHECK(cudaMemcpy(h_scores.data(), d_scores, out_elems * sizeof(float), cudaMemcpyDeviceToHost));
    double local = 0.0, total = 0.0;
    for (float v : h_scores) local += v;
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("sum of activations over %d batches: %.4e\n", nbatches, total);

    CHECK(cudaFreeHost(h_batch));
    CHECK(cudaFree(d_w));
    CHECK(cudaFree(d_batch));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_scores));
    MPI_Finalize();
    return 0;
}
