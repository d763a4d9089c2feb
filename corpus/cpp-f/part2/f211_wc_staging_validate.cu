// case: An embedding-table uploader wraps a write-combined, portable pinned staging buffer in a class; filling and uploading it is fine, but its validate() method reads the staged rows back on the host to checksum them.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

inline void throw_on_error(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <typename T>
class StagingBuffer {
public:
    explicit StagingBuffer(size_t n) : n_(n) {
        throw_on_error(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), n * sizeof(T),
                                     cudaHostAllocWriteCombined | cudaHostAllocPortable),
                       "cudaHostAlloc");
    }
    ~StagingBuffer() { cudaFreeHost(ptr_); }
    StagingBuffer(const StagingBuffer&) = delete;

    T& operator[](size_t i) { return ptr_[i]; }
    T* data() { return ptr_; }
    size_t size() const { return n_; }

    // Debug aid: Fletcher-style checksum of what was staged.
    uint64_t validate(size_t count) const {
        uint64_t a = 1, b = 0;
        const uint8_t* bytes = reinterpret_cast<const uint8_t*>(ptr_);
        for (size_t i = 0; i < count * sizeof(T); ++i) {
            a = (a + bytes[i]) % 65521;
            b = (b + a) % 65521;
        }
        return (b << 16) | a;
    }

private:
    T* ptr_ = nullptr;
    size_t n_;
};

__global__ void gather_rows(const float* __restrict__ table, const int* __restrict__ ids,
                            float* __restrict__ out, int n_ids, int dim) {
    int r = blockIdx.x, c = threadIdx.x;
    if (r < n_ids && c < dim) out[r * dim + c] = table[size_t(ids[r]) * dim + c];
}

int main() {
    const int rows = 200000, dim = 128, batch = 4096;
    float *d_table, *d_out;
    int* d_ids;
    throw_on_error(cudaMalloc(&d_table, size_t(rows) * dim * sizeof(float)), "table");
    throw_on_error(cudaMalloc(&d_out, size_t(batch) * dim * sizeof(float)), "out");
    throw_on_error(cudaMalloc(&d_ids, batch * sizeof(int)), "ids");

    cudaStream_t s;
    throw_on_error(cudaStreamCreate(&s), "stream");

    StagingBuffer<float> stage(size_t(rows / 10) * dim);
    const int chunk_rows = rows / 10;
    for (int c = 0; c < 10; ++c) {
        for (size_t i = 0; i < stage.size(); ++i) stage[i] = float((c * chunk_rows * dim + i) % 1000) * 1e-3f;
        throw_on_error(cudaMemcpyAsync(d_table + size_t(c) * chunk_rows * dim, stage.data(),
                                       stage.size() * sizeof(float), cudaMemcpyHostToDevice, s),
                       "upload");
        throw_on_error(cudaStreamSynchronize(s), "sync");
    }
    printf("last chunk checksum %016llx\n", (unsigned long long)stage.validate(stage.size()));

    std::vector<int> ids(batch);
    for (int i = 0; i < batch; ++i) ids[i] = (i * 7919) % rows;
    throw_on_error(cudaMemcpy(d_ids, ids.data(), batch * sizeof(int), cudaMemcpyHostToDevice), "ids");
    gather_rows<<<batch, dim, 0, s>>>(d_table, d_ids, d_out, batch, dim);
    std::vector<float> out(size_t(batch) * dim);
    throw_on_error(cudaStreamSynchronize(s), "gather");
    throw_on_error(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost), "dl");
    printf("out[0] = %f\n", out[0]);

    cudaFree(d_table); cudaFree(d_out); cudaFree(d_ids);
    cudaStreamDestroy(s);
    return 0;
}
