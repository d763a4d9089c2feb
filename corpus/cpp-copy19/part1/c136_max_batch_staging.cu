// case: embedding lookup whose device index and output buffers are sized for MAX_BATCH while each request copies only the current BATCH rows: the counts are smaller than the allocations
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                    \
    do {                                                                    \
        cudaError_t e = (call);                                             \
        if (e != cudaSuccess) {                                             \
            std::fprintf(stderr, "%s\n", cudaGetErrorString(e));            \
            std::exit(1);                                                   \
        }                                                                   \
    } while (0)

enum : int { VOCAB = 30000, DIM = 128, MAX_BATCH = 512, BATCH = 200 };

__global__ void gather_rows(const float *table, const int *ids, float *out, int dim)
{
    int row = blockIdx.x;
    const float *src = table + size_t(ids[row]) * dim;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) out[row * dim + d] = src[d];
}

int main()
{
    std::vector<float> h_table(size_t(VOCAB) * DIM);
    for (size_t i = 0; i < h_table.size(); ++i) h_table[i] = float(i % 1000) * 1e-3f;
    std::vector<int> h_ids(BATCH);
    for (int i = 0; i < BATCH; ++i) h_ids[i] = (i * 7919) % VOCAB;
    std::vector<float> h_out(BATCH * DIM);

    float *d_table, *d_out;
    int *d_ids;
    CUDA_CHECK(cudaMalloc(&d_table, size_t(VOCAB) * DIM * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_ids, MAX_BATCH * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_out, MAX_BATCH * DIM * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_table, h_table.data(), size_t(VOCAB) * DIM * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_ids, h_ids.data(), BATCH * sizeof(int), cudaMemcpyHostToDevice));

    gather_rows<<<BATCH, 128>>>(d_table, d_ids, d_out, DIM);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_out, BATCH * DIM * sizeof(float), cudaMemcpyDeviceToHost));

    std::printf("emb[ids[3]][0] = %f\n", h_out[3 * DIM]);

    CUDA_CHECK(cudaFree(d_table));
    CUDA_CHECK(cudaFree(d_ids));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}
