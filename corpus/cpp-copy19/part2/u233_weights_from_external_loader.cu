// case: an inference program whose embedding table is filled by load_embeddings(), a function declared here but defined in another library, before the gather kernel reads it.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kVocab = 32000;
constexpr int kDim = 256;
constexpr int kTokens = 512;

// Streams the table from the model file straight into device memory (model_io library).
bool load_embeddings(const char* path, float* d_table, size_t rows, size_t cols);

__global__ void gather_rows(const float* table, const int* ids, float* out, int dim, int tokens)
{
    int t = blockIdx.x;
    if (t >= tokens) return;
    const float* row = table + (size_t)ids[t] * dim;
    for (int d = threadIdx.x; d < dim; d += blockDim.x)
        out[(size_t)t * dim + d] = row[d];
}

int main(int argc, char** argv)
{
    const char* model = argc > 1 ? argv[1] : "model.bin";
    std::vector<int> ids(kTokens);
    for (int t = 0; t < kTokens; ++t) ids[t] = (t * 97) % kVocab;

    float *d_table, *d_out;
    int* d_ids;
    CUDA_CHECK(cudaMalloc(&d_table, sizeof(float) * kVocab * kDim));
    CUDA_CHECK(cudaMalloc(&d_ids, sizeof(int) * kTokens));
    CUDA_CHECK(cudaMalloc(&d_out, sizeof(float) * kTokens * kDim));

    if (!load_embeddings(model, d_table, kVocab, kDim)) {
        std::fprintf(stderr, "cannot load %s\n", model);
        std::exit(1);
    }
    CUDA_CHECK(cudaMemcpy(d_ids, ids.data(), sizeof(int) * kTokens, cudaMemcpyHostToDevice));

    gather_rows<<<kTokens, 128>>>(d_table, d_ids, d_out, kDim, kTokens);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> out(kTokens * kDim);
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, sizeof(float) * out.size(), cudaMemcpyDeviceToHost));
    std::printf("emb[0][0] = %f\n", out[0]);

    CUDA_CHECK(cudaFree(d_table));
    CUDA_CHECK(cudaFree(d_ids));
    CUDA_CHECK(cudaFree(d_out));
    return 0;
}
