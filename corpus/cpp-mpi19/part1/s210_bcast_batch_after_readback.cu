// case: model-parallel inference on the legacy stream; every rank copies its predictions back with a blocking cudaMemcpy at the end of each batch, which waits for the forward kernel, so the next MPI_Bcast into d_batch races with nothing (near miss of s209).
// expect: none
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(err_),          \
                    __FILE__, __LINE__);                                       \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

__global__ void forward_shard(const float* w, const float* batch, float* out,
                              int out_shard, int in_dim, int bsz) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (o >= out_shard || b >= bsz) return;
    float acc = 0.0f;
    for (int k = 0; k < in_dim; ++k) acc += w[o * in_dim + k] * batch[b * in_dim + k];
    out[b * out_shard + o] = acc > 0.0f ? acc : 0.0f;
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
    std::vector<float> h_out(out_elems);
    float* h_batch = nullptr;  // pinned staging for rank 0's uploads
    CHECK(cudaMallocHost(&h_batch, batch_elems * sizeof(float)));
    std::vector<double> argmax_sum(bsz, 0.0);

    float *d_w, *d_batch, *d_out;
    CHECK(cudaMalloc(&d_w, h_w.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_batch, batch_elems * sizeof(float)));
    CHECK(cudaMalloc(&d_out, out_elems * sizeof(float)));
    CHECK(cudaMemcpy(d_w, h_w.data(), h_w.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_batch, 0, batch_elems * sizeof(float)));
    CHECK(cudaDeviceSynchronize());

    dim3 block(128), grid((out_shard + 127) / 128, bsz);
    for (int b = 0; b < nbatches; ++b) {
        if (rank == 0) {
            for (size_t k = 0; k < batch_elems; ++k) h_batch[k] = (float)((k * 5 + b) % 17) / 17.0f;
            CHECK(cudaMemcpy(d_batch, h_batch, batch_elems * sizeof(float), cudaMemcpyHostToDevice));
        }
        MPI_Bcast(d_batch, (int)batch_elems, MPI_FLOAT, 0, MPI_COMM_WORLD);
        forward_shard<<<grid, block>>>(d_w, d_batch, d_out, out_shard, in_dim, bsz);
        // blocking copy on the legacy stream: returns after forward_shard is done
        CHECK(cudaMemcpy(h_out.data(), d_out, out_elems * sizeof(float), cudaMemcpyDeviceToHost));
        for (int r = 0; r < bsz; ++r) {
            int best = 0;
            for (int o = 1; o < out_shard; ++o)
                if (h_out[(size_t)r * out_shard + o] > h_out[(size_t)r * out_shard + best]) best = o;
            argmax_sum[r] += best;
        }
    }

    std::vector<double> total(bsz, 0.0);
    MPI_Reduce(argmax_sum.data(), total.data(), bsz, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("mean argmax of row 0: %.2f\n", total[0] / (nbatches * size));

    CHECK(cudaFreeHost(h_batch));
    CHECK(cudaFree(d_w));
    CHECK(cudaFree(d_batch));
    CHECK(cudaFree(d_out));
    MPI_Finalize();
    return 0;
}
