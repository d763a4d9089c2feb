// Kernels and launchers of the toy greedy decoder.
#include "decode_kernels.cuh"

__global__ void embed_kernel(const float* wte, const int* token, float* hidden, int dim) {
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d < dim) hidden[d] = wte[size_t(*token) * dim + d];
}

__global__ void lm_head_kernel(const float* wte, const float* hidden, float* logits, int vocab, int dim) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vocab) return;
    float acc = 0.f;
    for (int k = 0; k < dim; ++k) acc += wte[size_t(v) * dim + k] * hidden[k];
    logits[v] = acc;
}

__global__ void argmax_kernel(const float* logits, int* token, int vocab) {
    __shared__ float best_v[1024];
    __shared__ int best_i[1024];
    float bv = -1e30f;
    int bi = 0;
    for (int v = threadIdx.x; v < vocab; v += blockDim.x)
        if (logits[v] > bv) { bv = logits[v]; bi = v; }
    best_v[threadIdx.x] = bv;
    best_i[threadIdx.x] = bi;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && best_v[threadIdx.x + s] > best_v[threadIdx.x]) {
            best_v[threadIdx.x] = best_v[threadIdx.x + s];
            best_i[threadIdx.x] = best_i[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) *token = best_i[0];
}

void launch_embed(const float* d_wte, const int* d_token, float* d_hidden, int dim, cudaStream_t s) {
    embed_kernel<<<(dim + 255) / 256, 256, 0, s>>>(d_wte, d_token, d_hidden, dim);
}

void launch_lm_head(const float* d_wte, const float* d_hidden, float* d_logits, int vocab, int dim,
                    cudaStream_t s) {
    lm_head_kernel<<<(vocab + 255) / 256, 256, 0, s>>>(d_wte, d_hidden, d_logits, vocab, dim);
}

void launch_argmax(const float* d_logits, int* d_token, int vocab, cudaStream_t s) {
    argmax_kernel<<<1, 1024, 0, s>>>(d_logits, d_token, vocab);
}
