// case: Rodinia-style BFS whose kernels run on a stream made by plain cudaStreamCreate (a blocking stream) while the "continue?" flag and the costs come back with cudaMemcpy on the legacy default stream, which waits for that stream's kernels; device pointers are only printed and offset on the host, never dereferenced: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

struct Node { int start; int degree; };

__global__ void bfs_expand(const Node* nodes, const int* edges, bool* frontier, bool* updating,
                           const bool* visited, int* cost, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !frontier[v]) return;
    frontier[v] = false;
    for (int e = nodes[v].start; e < nodes[v].start + nodes[v].degree; ++e) {
        int u = edges[e];
        if (!visited[u]) { cost[u] = cost[v] + 1; updating[u] = true; }
    }
}

__global__ void bfs_commit(bool* frontier, bool* updating, bool* visited, bool* again, int n)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !updating[v]) return;
    frontier[v] = true; visited[v] = true; *again = true; updating[v] = false;
}

int main()
{
    const int n = 1 << 20, deg = 4;
    Node* h_nodes = (Node*)malloc(n * sizeof(Node));
    int* h_edges = (int*)malloc((size_t)n * deg * sizeof(int));
    int* h_cost = (int*)malloc(n * sizeof(int));
    bool* h_frontier = (bool*)calloc(n, sizeof(bool));
    for (int v = 0; v < n; ++v) {
        h_nodes[v].start = v * deg; h_nodes[v].degree = deg;
        for (int k = 0; k < deg; ++k) h_edges[v * deg + k] = (int)(((long long)v * 2654435761u + k * 40503) % n);
        h_cost[v] = -1;
    }
    h_frontier[0] = true; h_cost[0] = 0;

    Node* d_nodes; int* d_edges; int* d_cost; bool *d_frontier, *d_updating, *d_visited, *d_again;
    CUDA_CHECK(cudaMalloc(&d_nodes, n * sizeof(Node)));
    CUDA_CHECK(cudaMalloc(&d_edges, (size_t)n * deg * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_cost, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_frontier, n));
    CUDA_CHECK(cudaMalloc(&d_updating, n));
    CUDA_CHECK(cudaMalloc(&d_visited, n));
    CUDA_CHECK(cudaMalloc(&d_again, sizeof(bool)));
    if (d_cost == nullptr) return 1;
    printf("cost array at %p, upper half at %p\n", (void*)d_cost, (void*)(d_cost + n / 2));

    CUDA_CHECK(cudaMemcpy(d_nodes, h_nodes, n * sizeof(Node), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_edges, h_edges, (size_t)n * deg * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_cost, h_cost, n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_frontier, h_frontier, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_visited, h_frontier, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_updating, 0, n));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s)); // blocking: ordered with the legacy default stream

    bool again = false;
    int level = 0;
    do {
        again = false;
        CUDA_CHECK(cudaMemcpy(d_again, &again, sizeof(bool), cudaMemcpyHostToDevice));
        bfs_expand<<<n / 256, 256, 0, s>>>(d_nodes, d_edges, d_frontier, d_updating, d_visited, d_cost, n);
        bfs_commit<<<n / 256, 256, 0, s>>>(d_frontier, d_updating, d_visited, d_again, n);
        CUDA_CHECK(cudaMemcpy(&again, d_again, sizeof(bool), cudaMemcpyDeviceToHost));
        ++level;
    } while (again);

    CUDA_CHECK(cudaMemcpy(h_cost, d_cost, n * sizeof(int), cudaMemcpyDeviceToHost));
    int reached = 0;
    for (int v = 0; v < n; ++v) reached += h_cost[v] >= 0;
    printf("bfs: %d levels, %d of %d nodes reached\n", level, reached, n);

    CUDA_CHECK(cudaStreamDestroy(s));
    cudaFree(d_nodes); cudaFree(d_edges); cudaFree(d_cost);
    cudaFree(d_frontier); cudaFree(d_updating); cudaFree(d_visited); cudaFree(d_again);
    free(h_nodes); free(h_edges); free(h_cost); free(h_frontier);
    return 0;
}
