// graph_uses_freed_memory through a helper that captures the graph and stores it through a
// `cudaGraph_t*` out-parameter, then instantiates `*graph` and returns the executable graph by
// value (found in corpus cpp-graph19, s813). Fires: the caller frees the captured kernel's
// buffer and launches again. Near miss: the same helper, the buffer freed after the last launch.
#include <cuda_runtime.h>

__global__ void bump(float* x) { x[threadIdx.x] += 1.0f; }

struct Model {
    float* field;
};

static cudaGraphExec_t record(const Model& m, cudaStream_t s, cudaGraph_t* graph) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    bump<<<1, 32, 0, s>>>(m.field);
    cudaStreamEndCapture(s, graph);
    cudaGraphExec_t exec;
    cudaGraphInstantiate(&exec, *graph, 0);
    return exec;
}

void relaunch_after_free() {
    Model m;
    cudaMalloc(&m.field, 32 * sizeof(float));
    cudaMemset(m.field, 0, 32 * sizeof(float));
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaGraph_t g;
    cudaGraphExec_t e = record(m, s, &g);
    cudaGraphLaunch(e, s);
    cudaStreamSynchronize(s);
    cudaFree(m.field);
    cudaGraphLaunch(e, s); //~ graph_uses_freed_memory
    cudaStreamSynchronize(s);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
}

void free_after_last_launch() {
    Model m;
    cudaMalloc(&m.field, 32 * sizeof(float));
    cudaMemset(m.field, 0, 32 * sizeof(float));
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaGraph_t g;
    cudaGraphExec_t e = record(m, s, &g);
    cudaGraphLaunch(e, s);
    cudaGraphLaunch(e, s);
    cudaStreamSynchronize(s);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    cudaFree(m.field);
    cudaStreamDestroy(s);
}
