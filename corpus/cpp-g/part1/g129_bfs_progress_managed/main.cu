// case: Rodinia-style BFS with all arrays in cudaMallocManaged memory; after each level's kernel launch the host updates a managed RunStats struct (header helper record_level) that no kernel uses, before the cudaDeviceSynchronize that ends the level.
// expect: managed_concurrent_access=1
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "progress.h"

#define NODES   (1 << 20)
#define DEGREE  4
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e)); std::exit(1); } } while (0)

__global__ void bfs_level(const int* edges, int* cost, bool* frontier, bool* next, bool* changed, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !frontier[v]) return;
    frontier[v] = false;
    for (int k = 0; k < DEGREE; ++k) {
        int u = edges[v * DEGREE + k];
        if (cost[u] < 0) { cost[u] = cost[v] + 1; next[u] = true; *changed = true; }
    }
}

int main() {
    int *edges, *cost;
    bool *frontier, *next, *changed;
    RunStats* stats;
    CK(cudaMallocManaged(&edges, NODES * DEGREE * sizeof(int)));
    CK(cudaMallocManaged(&cost, NODES * sizeof(int)));
    CK(cudaMallocManaged(&frontier, NODES * sizeof(bool)));
    CK(cudaMallocManaged(&next, NODES * sizeof(bool)));
    CK(cudaMallocManaged(&changed, sizeof(bool)));
    CK(cudaMallocManaged(&stats, sizeof(RunStats)));

    srand(3);
    for (int v = 0; v < NODES; ++v) {
        for (int k = 0; k < DEGREE; ++k) edges[v * DEGREE + k] = rand() % NODES;
        cost[v] = -1; frontier[v] = false; next[v] = false;
    }
    cost[0] = 0; frontier[0] = true;
    stats->levels = 0;
    stats->last_tick = now_us();

    do {
        *changed = false;
        bfs_level<<<(NODES + 255) / 256, 256>>>(edges, cost, frontier, next, changed, NODES);
        record_level(stats);
        CK(cudaDeviceSynchronize());
        bool* t = frontier; frontier = next; next = t;
    } while (*changed);

    int reached = 0;
    for (int v = 0; v < NODES; ++v) reached += cost[v] >= 0;
    std::printf("reached %d of %d nodes\n", reached, NODES);
    print_stats(stats);

    cudaFree(stats); cudaFree(changed); cudaFree(next); cudaFree(frontier); cudaFree(cost); cudaFree(edges);
    return 0;
}
