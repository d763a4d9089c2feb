// case: a graph BFS frontier manager keeps the next-frontier counter in cudaMalloc memory and, after synchronizing, tests it on the host by dereferencing the device pointer (synchronizing does not make device memory host-addressable).
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t s_ = (x); if (s_ != cudaSuccess) { \
    std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(s_), __FILE__, __LINE__); std::abort(); } } while (0)

__global__ void expand(const int* row_ptr, const int* cols, const int* frontier, int frontier_len,
                       int* depth, int level, int* next, int* next_len) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frontier_len) return;
    int v = frontier[t];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int u = cols[e];
        if (atomicCAS(&depth[u], -1, level + 1) == -1) next[atomicAdd(next_len, 1)] = u;
    }
}

class FrontierManager {
public:
    FrontierManager(const std::vector<int>& row_ptr, const std::vector<int>& cols)
        : n_(int(row_ptr.size()) - 1) {
        CUDA_CHECK(cudaMalloc(&d_row_ptr_, row_ptr.size() * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_cols_, cols.size() * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_depth_, n_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_front_[0], n_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_front_[1], n_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_next_len_, sizeof(int)));
        CUDA_CHECK(cudaMemcpy(d_row_ptr_, row_ptr.data(), row_ptr.size() * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_cols_, cols.data(), cols.size() * sizeof(int), cudaMemcpyHostToDevice));
    }
    ~FrontierManager() {
        cudaDeviceSynchronize();
        cudaFree(d_next_len_);
        cudaFree(d_front_[1]);
        cudaFree(d_front_[0]);
        cudaFree(d_depth_);
        cudaFree(d_cols_);
        cudaFree(d_row_ptr_);
    }

    int run(int source) {
        CUDA_CHECK(cudaMemset(d_depth_, 0xff, n_ * sizeof(int)));
        int zero = 0;
        CUDA_CHECK(cudaMemcpy(d_depth_ + source, &zero, sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_front_[0], &source, sizeof(int), cudaMemcpyHostToDevice));
        int frontier_len = 1, level = 0, cur = 0;
        while (frontier_len > 0) {
            CUDA_CHECK(cudaMemset(d_next_len_, 0, sizeof(int)));
            expand<<<(frontier_len + 127) / 128, 128>>>(d_row_ptr_, d_cols_, d_front_[cur], frontier_len,
                                                        d_depth_, level, d_front_[cur ^ 1], d_next_len_);
            CUDA_CHECK(cudaDeviceSynchronize());
            if (*d_next_len_ == 0) break; // EXPECT: host_deref_device_ptr
            CUDA_CHECK(cudaMemcpy(&frontier_len, d_next_len_, sizeof(int), cudaMemcpyDeviceToHost));
            cur ^= 1;
            ++level;
        }
        return level;
    }

private:
    int n_;
    int* d_row_ptr_ = nullptr;
    int* d_cols_ = nullptr;
    int* d_depth_ = nullptr;
    int* d_front_[2] = {nullptr, nullptr};
    int* d_next_len_ = nullptr;
};

int main() {
    // a ring of 1024 vertices, each linked to the next
    const int n = 1024;
    std::vector<int> row_ptr(n + 1), cols(n);
    for (int v = 0; v < n; ++v) { row_ptr[v] = v; cols[v] = (v + 1) % n; }
    row_ptr[n] = n;
    FrontierManager fm(row_ptr, cols);
    std::printf("BFS depth from 0: %d levels\n", fm.run(0));
    return 0;
}
