// case: recommender inference scores candidate items against a user embedding; the per-item bias buffer stays nullptr (its allocation was dropped) yet the scoring kernel dereferences it unconditionally, and the candidate embeddings are uploaded asynchronously from a std::vector.
// expect: unallocated_pointer=1, pageable_async_copy=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <string>
#include <algorithm>
#include <numeric>

#define RETURN_IF_CUDA(x) do { cudaError_t s_ = (x); if (s_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(s_)); return 1; } } while (0)

constexpr int kEmbDim = 128;

struct ModelConfig {
    int dim = kEmbDim;
    int num_candidates = 200000;
    int top_k = 20;
    std::string name = "two-tower-v3";
};

__global__ void score_items(const float* __restrict__ user, const float* __restrict__ items,
                            const float* __restrict__ item_bias, float* __restrict__ scores,
                            int n, int dim)
{
    int item = blockIdx.x;
    if (item >= n) return;
    __shared__ float partial[128];
    float acc = 0.f;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) acc += user[d] * items[(size_t)item * dim + d];
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) scores[item] = partial[0] + item_bias[item];
}

int main(int argc, char** argv)
{
    ModelConfig cfg;
    if (argc > 1) cfg.num_candidates = atoi(argv[1]);
    const size_t emb_elems = (size_t)cfg.num_candidates * cfg.dim;

    std::vector<float> user(kEmbDim), items(emb_elems);
    for (int d = 0; d < cfg.dim; ++d) user[d] = 0.01f * (d % 13);
    for (size_t i = 0; i < emb_elems; ++i) items[i] = 0.001f * (float)((i * 2654435761u) % 1000);

    cudaStream_t s;
    RETURN_IF_CUDA(cudaStreamCreate(&s));
    float *d_user, *d_items, *d_scores;
    float* d_bias = nullptr;
    RETURN_IF_CUDA(cudaMalloc(&d_user, kEmbDim * sizeof(float)));
    RETURN_IF_CUDA(cudaMalloc(&d_items, emb_elems * sizeof(float)));
    RETURN_IF_CUDA(cudaMalloc(&d_scores, cfg.num_candidates * sizeof(float)));

    RETURN_IF_CUDA(cudaMemcpyAsync(d_user, user.data(), kEmbDim * sizeof(float), cudaMemcpyHostToDevice, s));
    RETURN_IF_CUDA(cudaMemcpyAsync(d_items, items.data(), emb_elems * sizeof(float),  // EXPECT: pageable_async_copy
                                   cudaMemcpyHostToDevice, s));

    score_items<<<cfg.num_candidates, 128, 0, s>>>(d_user, d_items, d_bias, d_scores,  // EXPECT: unallocated_pointer
                                                    cfg.num_candidates, cfg.dim);
    RETURN_IF_CUDA(cudaGetLastError());

    std::vector<float> scores(cfg.num_candidates);
    RETURN_IF_CUDA(cudaMemcpy(scores.data(), d_scores, scores.size() * sizeof(float), cudaMemcpyDeviceToHost));
    RETURN_IF_CUDA(cudaStreamSynchronize(s));

    std::vector<int> idx(cfg.num_candidates);
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + cfg.top_k, idx.end(),
                      [&](int a, int b) { return scores[a] > scores[b]; });
    printf("%s top-%d:", cfg.name.c_str(), cfg.top_k);
    for (int k = 0; k < cfg.top_k; ++k) printf(" %d", idx[k]);
    printf("\n");

    cudaFree(d_scores);
    cudaFree(d_items);
    cudaFree(d_user);
    cudaStreamDestroy(s);
    return 0;
}
