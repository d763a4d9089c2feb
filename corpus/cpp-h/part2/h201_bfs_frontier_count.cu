// case: level-synchronous BFS engine reads the pinned frontier counter right after the async device-to-host copy of it, with no stream synchronize in the default build (the sync is only in a debug #ifdef arm).
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); } } while (0)

__global__ void expand_frontier(const int* row_ptr, const int* cols, int* dist,
                                const int* frontier, int frontier_len,
                                int* next, int* next_len, int level) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frontier_len) return;
    int v = frontier[t];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int u = cols[e];
        if (atomicCAS(&dist[u], -1, level + 1) == -1) {
            int slot = atomicAdd(next_len, 1);
            next[slot] = u;
        }
    }
}

class BfsEngine {
public:
    BfsEngine(const std::vector<int>& row_ptr, const std::vector<int>& cols)
        : n_(static_cast<int>(row_ptr.size()) - 1), m_(static_cast<int>(cols.size())) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&d_row_ptr_, (n_ + 1) * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_cols_, m_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_dist_, n_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_front_[0], n_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_front_[1], n_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_next_len_, sizeof(int)));
        CUDA_CHECK(cudaMallocHost(&h_next_len_, sizeof(int)));
        CUDA_CHECK(cudaMemcpy(d_row_ptr_, row_ptr.data(), (n_ + 1) * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_cols_, cols.data(), m_ * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize());   // stream_ is non-blocking: finish the legacy-stream uploads
    }
    ~BfsEngine() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_row_ptr_); cudaFree(d_cols_); cudaFree(d_dist_);
        cudaFree(d_front_[0]); cudaFree(d_front_[1]); cudaFree(d_next_len_);
        cudaFreeHost(h_next_len_);
        cudaStreamDestroy(stream_);
    }

    int run(int source) {
        CUDA_CHECK(cudaMemsetAsync(d_dist_, 0xff, n_ * sizeof(int), stream_));
        int zero = 0;
        CUDA_CHECK(cudaMemcpyAsync(d_dist_ + source, &zero, sizeof(int), cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaMemcpyAsync(d_front_[0], &source, sizeof(int), cudaMemcpyHostToDevice, stream_));
        int frontier_len = 1, level = 0, cur = 0;
        while (frontier_len > 0) {
            CUDA_CHECK(cudaMemsetAsync(d_next_len_, 0, sizeof(int), stream_));
            int blocks = (frontier_len + 255) / 256;
            expand_frontier<<<blocks, 256, 0, stream_>>>(d_row_ptr_, d_cols_, d_dist_,
                d_front_[cur], frontier_len, d_front_[cur ^ 1], d_next_len_, level);
            CUDA_CHECK(cudaMemcpyAsync(h_next_len_, d_next_len_, sizeof(int),
                                       cudaMemcpyDeviceToHost, stream_));
#ifdef BFS_DEBUG_SYNC
            CUDA_CHECK(cudaStreamSynchronize(stream_));
#endif
            frontier_len = *h_next_len_;
            cur ^= 1;
            ++level;
        }
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        return level;
    }

private:
    int n_, m_;
    cudaStream_t stream_{};
    int* d_row_ptr_ = nullptr;
    int* d_cols_ = nullptr;
    int* d_dist_ = nullptr;
    int* d_front_[2] = {nullptr, nullptr};
    int* d_next_len_ = nullptr;
    int* h_next_len_ = nullptr;
};

int main() {
    std::vector<int> row_ptr = {0, 2, 4, 5, 6, 6};
    std::vector<int> cols = {1, 2, 3, 4, 4, 0};
    BfsEngine bfs(row_ptr, cols);
    printf("levels: %d\n", bfs.run(0));
    return 0;
}
