// case: a chunked vector-add enqueues each chunk's upload, kernel and download on a per-chunk stream from a pool, synchronizes every stream of the pool, and only then verifies the pinned output
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e__ = (x); if (e__ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e__)); exit(1); } } while (0)

__global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

class StreamPool {
public:
    explicit StreamPool(int n) : streams_(n) {
        for (auto& s : streams_) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    }
    ~StreamPool() {
        for (auto s : streams_) cudaStreamDestroy(s);
    }
    cudaStream_t at(size_t i) const { return streams_[i % streams_.size()]; }
    void sync_all() const {
        for (auto s : streams_) CUDA_CHECK(cudaStreamSynchronize(s));
    }
private:
    std::vector<cudaStream_t> streams_;
};

int main() {
    const int n = 1 << 24;
    const int chunk = 1 << 20;
    const size_t bytes = (size_t)n * sizeof(float);
    float *ha, *hb, *hc, *da, *db, *dc;
    CUDA_CHECK(cudaMallocHost(&ha, bytes));
    CUDA_CHECK(cudaMallocHost(&hb, bytes));
    CUDA_CHECK(cudaMallocHost(&hc, bytes));
    CUDA_CHECK(cudaMalloc(&da, bytes));
    CUDA_CHECK(cudaMalloc(&db, bytes));
    CUDA_CHECK(cudaMalloc(&dc, bytes));
    for (int i = 0; i < n; ++i) { ha[i] = (float)i; hb[i] = (float)(n - i); }

    StreamPool pool(4);
    for (int off = 0, c = 0; off < n; off += chunk, ++c) {
        cudaStream_t s = pool.at(c);
        const size_t cb = chunk * sizeof(float);
        CUDA_CHECK(cudaMemcpyAsync(da + off, ha + off, cb, cudaMemcpyHostToDevice, s));
        CUDA_CHECK(cudaMemcpyAsync(db + off, hb + off, cb, cudaMemcpyHostToDevice, s));
        vadd<<<chunk / 256, 256, 0, s>>>(da + off, db + off, dc + off, chunk);
        CUDA_CHECK(cudaMemcpyAsync(hc + off, dc + off, cb, cudaMemcpyDeviceToHost, s));
    }
    pool.sync_all();

    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += hc[i] != (float)n;
    printf("%d wrong sums\n", wrong);

    CUDA_CHECK(cudaFree(dc));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFreeHost(hc));
    CUDA_CHECK(cudaFreeHost(hb));
    CUDA_CHECK(cudaFreeHost(ha));
    return 0;
}
