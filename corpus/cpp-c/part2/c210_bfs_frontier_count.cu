// case: a level-synchronous BFS keeps its graph and frontier counter in a struct of cudaMalloc pointers and the host loop reads the counter through the device pointer after cudaDeviceSynchronize
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <utility>
#include <vector>

#define CUDA_OK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

struct DeviceGraph {
    int n = 0, m = 0;
    int* row_ptr = nullptr;   // n + 1
    int* cols = nullptr;      // m
    int* level = nullptr;     // n
    int* frontier = nullptr;  // n
    int* next = nullptr;      // n
    int* next_count = nullptr;
};

__global__ void expand(const int* row_ptr, const int* cols, int* level, const int* frontier,
                       int frontier_size, int* next, int* next_count, int depth) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frontier_size) return;
    int v = frontier[t];
    for (int k = row_ptr[v]; k < row_ptr[v + 1]; ++k) {
        int u = cols[k];
        if (atomicCAS(&level[u], -1, depth + 1) == -1) next[atomicAdd(next_count, 1)] = u;
    }
}

static int upload_grid_graph(DeviceGraph& g, int side) {
    g.n = side * side;
    std::vector<int> rp(g.n + 1), cl;
    for (int v = 0; v < g.n; ++v) {
        rp[v] = (int)cl.size();
        int r = v / side, c = v % side;
        if (r > 0) cl.push_back(v - side);
        if (r + 1 < side) cl.push_back(v + side);
        if (c > 0) cl.push_back(v - 1);
        if (c + 1 < side) cl.push_back(v + 1);
    }
    rp[g.n] = (int)cl.size();
    g.m = (int)cl.size();
    CUDA_OK(cudaMalloc(&g.row_ptr, (g.n + 1) * sizeof(int)));
    CUDA_OK(cudaMalloc(&g.cols, g.m * sizeof(int)));
    CUDA_OK(cudaMalloc(&g.level, g.n * sizeof(int)));
    CUDA_OK(cudaMalloc(&g.frontier, g.n * sizeof(int)));
    CUDA_OK(cudaMalloc(&g.next, g.n * sizeof(int)));
    CUDA_OK(cudaMalloc(&g.next_count, sizeof(int)));
    CUDA_OK(cudaMemcpy(g.row_ptr, rp.data(), rp.size() * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(g.cols, cl.data(), cl.size() * sizeof(int), cudaMemcpyHostToDevice));
    return 0;
}

int main() {
    DeviceGraph g;
    if (upload_grid_graph(g, 2048)) return 1;

    const int source = 0, zero = 0;
    CUDA_OK(cudaMemset(g.level, 0xFF, g.n * sizeof(int)));
    CUDA_OK(cudaMemcpy(g.level + source, &zero, sizeof(int), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(g.frontier, &source, sizeof(int), cudaMemcpyHostToDevice));

    int frontier_size = 1, depth = 0;
    while (frontier_size > 0) {
        CUDA_OK(cudaMemset(g.next_count, 0, sizeof(int)));
        expand<<<(frontier_size + 255) / 256, 256>>>(g.row_ptr, g.cols, g.level, g.frontier,
                                                     frontier_size, g.next, g.next_count, depth);
        CUDA_OK(cudaDeviceSynchronize());
        frontier_size = *g.next_count; // EXPECT: host_deref_device_ptr
        std::swap(g.frontier, g.next);
        ++depth;
    }
    std::printf("BFS reached depth %d\n", depth);

    cudaFree(g.next_count); cudaFree(g.next); cudaFree(g.frontier);
    cudaFree(g.level); cudaFree(g.cols); cudaFree(g.row_ptr);
    return 0;
}
