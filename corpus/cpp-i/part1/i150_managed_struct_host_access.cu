// case: a graph BFS keeps its frontier and distances in cudaMallocManaged memory, so the host reads and writes them directly, each time after cudaDeviceSynchronize
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Graph {
    int nv;
    int* row;
    int* col;
};

struct BfsState {
    int* dist;
    int* changed;
};

__global__ void bfs_level(Graph g, BfsState st, int level) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= g.nv || st.dist[v] != level) return;
    for (int e = g.row[v]; e < g.row[v + 1]; ++e) {
        int u = g.col[e];
        if (st.dist[u] < 0) {
            st.dist[u] = level + 1;
            *st.changed = 1;
        }
    }
}

int main() {
    const int side = 1024, nv = side * side;
    Graph g;
    g.nv = nv;
    CUDA_CHECK(cudaMallocManaged(&g.row, (nv + 1) * sizeof(int)));
    CUDA_CHECK(cudaMallocManaged(&g.col, 4 * nv * sizeof(int)));
    int e = 0;
    for (int v = 0; v < nv; ++v) {
        g.row[v] = e;
        int x = v % side, y = v / side;
        if (x > 0) g.col[e++] = v - 1;
        if (x < side - 1) g.col[e++] = v + 1;
        if (y > 0) g.col[e++] = v - side;
        if (y < side - 1) g.col[e++] = v + side;
    }
    g.row[nv] = e;

    BfsState st;
    CUDA_CHECK(cudaMallocManaged(&st.dist, nv * sizeof(int)));
    CUDA_CHECK(cudaMallocManaged(&st.changed, sizeof(int)));
    for (int v = 0; v < nv; ++v) st.dist[v] = -1;
    st.dist[0] = 0;

    int level = 0;
    for (;;) {
        *st.changed = 0;
        bfs_level<<<(nv + 255) / 256, 256>>>(g, st, level);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (!*st.changed) break;
        ++level;
    }
    printf("levels %d, far corner at distance %d\n", level, st.dist[nv - 1]);

    CUDA_CHECK(cudaFree(st.changed));
    CUDA_CHECK(cudaFree(st.dist));
    CUDA_CHECK(cudaFree(g.col));
    CUDA_CHECK(cudaFree(g.row));
    return 0;
}
