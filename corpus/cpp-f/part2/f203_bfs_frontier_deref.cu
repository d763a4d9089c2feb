// case: A level-synchronous BFS over a CSR graph decides when to stop by dereferencing the cudaMalloc'd frontier counter on the host inside the level loop (after a device synchronize, which does not make it host memory).
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("%s failed: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void expand_frontier(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                int* dist, const int* frontier, int frontier_len,
                                int* next, int* next_len, int level) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frontier_len) return;
    int v = frontier[t];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int u = col_idx[e];
        if (atomicCAS(&dist[u], -1, level + 1) == -1) {
            int slot = atomicAdd(next_len, 1);
            next[slot] = u;
        }
    }
}

static void build_grid_graph(int side, std::vector<int>& row_ptr, std::vector<int>& col_idx) {
    int n = side * side;
    row_ptr.assign(n + 1, 0);
    for (int v = 0; v < n; ++v) {
        int r = v / side, c = v % side;
        if (r > 0) col_idx.push_back(v - side);
        if (r < side - 1) col_idx.push_back(v + side);
        if (c > 0) col_idx.push_back(v - 1);
        if (c < side - 1) col_idx.push_back(v + 1);
        row_ptr[v + 1] = (int)col_idx.size();
    }
}

int main() {
    const int side = 1024, n = side * side, source = 0;
    std::vector<int> row_ptr, col_idx;
    build_grid_graph(side, row_ptr, col_idx);

    int *d_row, *d_col, *d_dist, *d_front[2], *d_next_len;
    CHECK(cudaMalloc(&d_row, row_ptr.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_col, col_idx.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_dist, n * sizeof(int)));
    CHECK(cudaMalloc(&d_front[0], n * sizeof(int)));
    CHECK(cudaMalloc(&d_front[1], n * sizeof(int)));
    CHECK(cudaMalloc(&d_next_len, sizeof(int)));

    CHECK(cudaMemcpy(d_row, row_ptr.data(), row_ptr.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col, col_idx.data(), col_idx.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_dist, 0xff, n * sizeof(int)));
    int zero = 0;
    CHECK(cudaMemcpy(d_dist + source, &zero, sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_front[0], &source, sizeof(int), cudaMemcpyHostToDevice));

    int frontier_len = 1, level = 0, cur = 0;
    while (true) {
        CHECK(cudaMemset(d_next_len, 0, sizeof(int)));
        expand_frontier<<<(frontier_len + 255) / 256, 256>>>(d_row, d_col, d_dist, d_front[cur],
                                                             frontier_len, d_front[cur ^ 1],
                                                             d_next_len, level);
        CHECK(cudaDeviceSynchronize());
        frontier_len = *d_next_len;   // device pointer read on the host
        if (frontier_len == 0) break;
        cur ^= 1;
        ++level;
    }

    std::vector<int> dist(n);
    CHECK(cudaMemcpy(dist.data(), d_dist, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("BFS depth %d, dist[last] = %d\n", level, dist[n - 1]);

    cudaFree(d_row); cudaFree(d_col); cudaFree(d_dist);
    cudaFree(d_front[0]); cudaFree(d_front[1]); cudaFree(d_next_len);
    return 0;
}
