// case: A per-batch softmax/cross-entropy loss allocates its scratch from a cudaMemPool with cudaMallocFromPoolAsync, frees it with cudaFreeAsync on the same stream right after the kernels that use it (stream-ordered, legal), and reads the pinned loss only after cudaEventSynchronize.
// expect: none
#include <cuda_runtime.h>
#include <cfloat>
#include <cstdio>
#include <cstdint>
#include <vector>

#define CE_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s (%s:%d)\n", cudaGetErrorString(e), __FILE__, __LINE__); return 1; } } while (0)

__global__ void row_logsumexp(const float* __restrict__ logits, float* __restrict__ lse, int classes) {
    const float* row = logits + size_t(blockIdx.x) * classes;
    __shared__ float sm[256];
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, row[c]);
    sm[threadIdx.x] = m; __syncthreads();
    for (int o = 128; o > 0; o >>= 1) { if (threadIdx.x < o) sm[threadIdx.x] = fmaxf(sm[threadIdx.x], sm[threadIdx.x + o]); __syncthreads(); }
    m = sm[0]; __syncthreads();
    float s = 0.f;
    for (int c = threadIdx.x; c < classes; c += blockDim.x) s += __expf(row[c] - m);
    sm[threadIdx.x] = s; __syncthreads();
    for (int o = 128; o > 0; o >>= 1) { if (threadIdx.x < o) sm[threadIdx.x] += sm[threadIdx.x + o]; __syncthreads(); }
    if (threadIdx.x == 0) lse[blockIdx.x] = m + __logf(sm[0]);
}

__global__ void nll_sum(const float* __restrict__ logits, const float* __restrict__ lse,
                        const int32_t* __restrict__ labels, int batch, int classes, float* loss) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < batch) atomicAdd(loss, lse[r] - logits[size_t(r) * classes + labels[r]]);
}

int main() {
    const int batch = 4096, classes = 32000, steps = 8;
    cudaStream_t s;
    CE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaMemPool_t pool;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CE_CHECK(cudaMemPoolCreate(&pool, &props));
    uint64_t keep = UINT64_MAX;
    CE_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));

    float *d_logits, *d_loss, *h_loss;
    int32_t* d_labels;
    CE_CHECK(cudaMalloc(&d_logits, size_t(batch) * classes * sizeof(float)));
    CE_CHECK(cudaMalloc(&d_labels, batch * sizeof(int32_t)));
    CE_CHECK(cudaMalloc(&d_loss, steps * sizeof(float)));
    CE_CHECK(cudaMallocHost(&h_loss, steps * sizeof(float)));
    CE_CHECK(cudaMemsetAsync(d_logits, 0, size_t(batch) * classes * sizeof(float), s));
    CE_CHECK(cudaMemsetAsync(d_labels, 0, batch * sizeof(int32_t), s));
    CE_CHECK(cudaMemsetAsync(d_loss, 0, steps * sizeof(float), s));

    cudaEvent_t done;
    CE_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    for (int step = 0; step < steps; ++step) {
        float* d_lse = nullptr;
        CE_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&d_lse), batch * sizeof(float), pool, s));
        row_logsumexp<<<batch, 256, 0, s>>>(d_logits, d_lse, classes);
        nll_sum<<<(batch + 255) / 256, 256, 0, s>>>(d_logits, d_lse, d_labels, batch, classes, d_loss + step);
        CE_CHECK(cudaFreeAsync(d_lse, s));
    }
    CE_CHECK(cudaMemcpyAsync(h_loss, d_loss, steps * sizeof(float), cudaMemcpyDeviceToHost, s));
    CE_CHECK(cudaEventRecord(done, s));
    CE_CHECK(cudaEventSynchronize(done));

    for (int step = 0; step < steps; ++step) printf("step %d mean loss %.4f\n", step, h_loss[step] / batch);

    CE_CHECK(cudaEventDestroy(done));
    cudaFreeHost(h_loss);
    cudaFree(d_logits); cudaFree(d_labels); cudaFree(d_loss);
    CE_CHECK(cudaMemPoolDestroy(pool));
    CE_CHECK(cudaStreamDestroy(s));
    return 0;
}
