// case: an embedding loader uploads its table and hands the device pointer to emb_cache_adopt, a function of another library that is only declared here and takes ownership; the scratch buffer is freed locally
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

// Provided by libembcache (embcache.h): the cache owns adopted buffers and
// releases them in emb_cache_shutdown().
extern "C" void emb_cache_adopt(const char* name, float* device_table, size_t rows, size_t dim);
extern "C" void emb_cache_shutdown(void);

#define VOCAB 50000
#define DIM 256

#define CUDA_CHECK(x) do { cudaError_t _e = (x); if (_e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(_e)); exit(1); } } while (0)

__global__ void l2_normalize_rows(float* table, float* norms, int rows, int dim) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.f;
    for (int d = 0; d < dim; ++d) s += table[(size_t)r * dim + d] * table[(size_t)r * dim + d];
    float inv = s > 0.f ? rsqrtf(s) : 0.f;
    for (int d = 0; d < dim; ++d) table[(size_t)r * dim + d] *= inv;
    norms[r] = sqrtf(s);
}

static int load_embeddings(const std::vector<float>& host) {
    float* d_table = nullptr;
    float* d_norms = nullptr;
    CUDA_CHECK(cudaMalloc(&d_table, sizeof(float) * VOCAB * DIM));
    CUDA_CHECK(cudaMalloc(&d_norms, sizeof(float) * VOCAB));
    CUDA_CHECK(cudaMemcpy(d_table, host.data(), sizeof(float) * VOCAB * DIM,
                          cudaMemcpyHostToDevice));

    l2_normalize_rows<<<(VOCAB + 255) / 256, 256>>>(d_table, d_norms, VOCAB, DIM);
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<float> norms(VOCAB);
    CUDA_CHECK(cudaMemcpy(norms.data(), d_norms, sizeof(float) * VOCAB, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_norms));
    int zero_rows = 0;
    for (float n : norms) zero_rows += (n == 0.f);

    emb_cache_adopt("token_embeddings", d_table, VOCAB, DIM);
    return zero_rows;
}

int main() {
    std::vector<float> host((size_t)VOCAB * DIM);
    for (size_t i = 0; i < host.size(); ++i) host[i] = (float)((i * 7919) % 1000) / 1000.f - 0.5f;
    int zero_rows = load_embeddings(host);
    printf("loaded %d embeddings (%d zero rows)\n", VOCAB, zero_rows);
    emb_cache_shutdown();
    return 0;
}
