// case: Classifier post-processing writes softmax scores into mapped (zero-copy) pinned memory through its cudaHostGetDevicePointer alias, frees the logits scratch with cudaFree right after the launch (cudaFree synchronizes), and reads both the mapped scores and a managed top-k array only after cudaDeviceSynchronize.
// expect: none
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <cstdlib>

#define USE_ZERO_COPY 1
#define CUDA_ASSERT(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s @ %d\n", cudaGetErrorString(e_), __LINE__); abort(); } } while (0)

__global__ void softmax_rows(const float* logits, float* probs, int* top1, int classes)
{
    int row = blockIdx.x;
    const float* in = logits + (size_t)row * classes;
    float mx = -FLT_MAX; int arg = 0;
    for (int c = 0; c < classes; ++c) if (in[c] > mx) { mx = in[c]; arg = c; }
    float sum = 0.f;
    for (int c = 0; c < classes; ++c) sum += __expf(in[c] - mx);
    for (int c = threadIdx.x; c < classes; c += blockDim.x) probs[(size_t)row * classes + c] = __expf(in[c] - mx) / sum;
    if (threadIdx.x == 0) top1[row] = arg;
}

int main()
{
    const int batch = 256, classes = 1000;
    const size_t n = (size_t)batch * classes;
    CUDA_ASSERT(cudaSetDeviceFlags(cudaDeviceMapHost));

    float* h_logits = (float*)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) h_logits[i] = (float)((i * 7919) % 1000) / 100.f;

    float* d_logits;
    CUDA_ASSERT(cudaMalloc(&d_logits, n * sizeof(float)));
    CUDA_ASSERT(cudaMemcpy(d_logits, h_logits, n * sizeof(float), cudaMemcpyHostToDevice));

    int* top1;
    CUDA_ASSERT(cudaMallocManaged(&top1, batch * sizeof(int)));

    float* h_probs;
#ifdef USE_ZERO_COPY
    float* d_probs_alias;
    CUDA_ASSERT(cudaHostAlloc(&h_probs, n * sizeof(float), cudaHostAllocMapped));
    CUDA_ASSERT(cudaHostGetDevicePointer(&d_probs_alias, h_probs, 0));
    softmax_rows<<<batch, 128>>>(d_logits, d_probs_alias, top1, classes);
    CUDA_ASSERT(cudaFree(d_logits));              // implicit synchronization before release
    CUDA_ASSERT(cudaDeviceSynchronize());
#else
    float* d_probs;
    CUDA_ASSERT(cudaMallocHost(&h_probs, n * sizeof(float)));
    CUDA_ASSERT(cudaMalloc(&d_probs, n * sizeof(float)));
    softmax_rows<<<batch, 128>>>(d_logits, d_probs, top1, classes);
    CUDA_ASSERT(cudaMemcpy(h_probs, d_probs, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_ASSERT(cudaFree(d_probs));
    CUDA_ASSERT(cudaFree(d_logits));
    CUDA_ASSERT(cudaDeviceSynchronize());
#endif

    int agree = 0;
    for (int r = 0; r < batch; ++r) {
        float best = h_probs[(size_t)r * classes + top1[r]];
        agree += best > 0.001f;
    }
    printf("%d/%d rows have a confident top-1 (first: class %d)\n", agree, batch, top1[0]);

    cudaFreeHost(h_probs);
    cudaFree(top1);
    free(h_logits);
    return 0;
}
