// case: the Poisson cycle graph of s1109; after each replay an event is recorded and the
//       host appends the previous cycle's residual to a convergence history, polls the
//       event with cudaEventQuery until it has completed, and only then reads the new
//       residual
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(call)                                                                   \
    do {                                                                           \
        cudaError_t err = (call);                                                  \
        if (err != cudaSuccess) {                                                  \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call,   \
                         cudaGetErrorString(err));                                 \
            std::exit(2);                                                          \
        }                                                                          \
    } while (0)

static const int BS = 16;

// f = -2 pi^2 sin(pi x) sin(pi y): the exact pressure is sin(pi x) sin(pi y).
__global__ void manufactured_rhs(float* f, int n, float h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    const float pi = 3.14159265f;
    f[j * n + i] = -2.0f * pi * pi * sinf(pi * i * h) * sinf(pi * j * h);
}

__global__ void jacobi(const float* __restrict__ p, float* __restrict__ p_new,
                       const float* __restrict__ f, int n, float h2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    int c = j * n + i;
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
        p_new[c] = 0.0f;  // Dirichlet walls
        return;
    }
    p_new[c] = 0.25f * (p[c - 1] + p[c + 1] + p[c - n] + p[c + n] - h2 * f[c]);
}

__global__ void residual_sq(const float* __restrict__ p, const float* __restrict__ f, int n,
                            float inv_h2, float* __restrict__ out) {
    __shared__ float s[BS * BS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int t = threadIdx.y * BS + threadIdx.x;
    float r = 0.0f;
    if (i > 0 && j > 0 && i < n - 1 && j < n - 1) {
        int c = j * n + i;
        float d = f[c] - (p[c - 1] + p[c + 1] + p[c - n] + p[c + n] - 4.0f * p[c]) * inv_h2;
        r = d * d;
    }
    s[t] = r;
    __syncthreads();
    for (int k = BS * BS / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}

int main() {
    const int n = 513;
    const float h = 1.0f / (n - 1);
    const size_t cells = static_cast<size_t>(n) * n;
    const size_t bytes = cells * sizeof(float);
    const int sweeps_per_cycle = 20;  // even: the cycle ends with the iterate back in d_p
    const int max_cycles = 4000;
    const float tol = 1e-4f;

    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_p, *d_q, *d_f, *d_res2;
    CK(cudaMalloc(&d_p, bytes));
    CK(cudaMalloc(&d_q, bytes));
    CK(cudaMalloc(&d_f, bytes));
    CK(cudaMalloc(&d_res2, sizeof(float)));
    float *h_res2, *h_p;
    CK(cudaMallocHost(&h_res2, sizeof(float)));
    CK(cudaMallocHost(&h_p, bytes));

    dim3 block(BS, BS);
    dim3 grid((n + BS - 1) / BS, (n + BS - 1) / BS);
    manufactured_rhs<<<grid, block, 0, stream>>>(d_f, n, h);
    CK(cudaGetLastError());
    CK(cudaMemsetAsync(d_p, 0, bytes, stream));
    CK(cudaMemsetAsync(d_q, 0, bytes, stream));

    // ||f|| for the relative residual, from the same formula on the host.
    double f2 = 0.0;
    for (int j = 1; j < n - 1; ++j)
        for (int i = 1; i < n - 1; ++i) {
            double v = -2.0 * M_PI * M_PI * std::sin(M_PI * i * h) * std::sin(M_PI * j * h);
            f2 += v * v;
        }
    const float f_norm = static_cast<float>(std::sqrt(f2));

    // Capture one cycle.
    cudaGraph_t graph;
    cudaGraphExec_t cycle;
    CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int s = 0; s < sweeps_per_cycle; s += 2) {
        jacobi<<<grid, block, 0, stream>>>(d_p, d_q, d_f, n, h * h);
        jacobi<<<grid, block, 0, stream>>>(d_q, d_p, d_f, n, h * h);
    }
    CK(cudaGetLastError());
    CK(cudaMemsetAsync(d_res2, 0, sizeof(float), stream));
    residual_sq<<<grid, block, 0, stream>>>(d_p, d_f, n, 1.0f / (h * h), d_res2);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(h_res2, d_res2, sizeof(float), cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamEndCapture(stream, &graph));
    CK(cudaGraphInstantiate(&cycle, graph, 0));

    cudaEvent_t cycle_done;
    CK(cudaEventCreateWithFlags(&cycle_done, cudaEventDisableTiming));
    std::vector<float> history;
    history.reserve(max_cycles);
    float previous = 1.0f;
    long long polls = 0;
    int cycles = 0;
    while (cycles < max_cycles) {
        CK(cudaGraphLaunch(cycle, stream));
        CK(cudaEventRecord(cycle_done, stream));
        ++cycles;
        // Book-keep the previous cycle while this one runs, then wait for it by polling.
        if (cycles > 1) history.push_back(previous);
        cudaError_t q;
        while ((q = cudaEventQuery(cycle_done)) == cudaErrorNotReady) {
            ++polls;
        }
        CK(q);
        const float rel = std::sqrt(*h_res2) / f_norm;
        previous = rel;
        if (rel < tol) break;
    }
    history.push_back(previous);
    CK(cudaStreamSynchronize(stream));
    CK(cudaEventDestroy(cycle_done));
    std::printf("%.1f polls per cycle\n", static_cast<double>(polls) / cycles);
    if (history.size() > 10) {
        const float rate = std::pow(history.back() / history[history.size() - 11], 0.1f);
        std::printf("asymptotic reduction per cycle %.4f\n", rate);
    }
    std::printf("stopped after %d cycles (%d sweeps), relative residual %.3e\n", cycles,
                cycles * sweeps_per_cycle, std::sqrt(*h_res2) / f_norm);

    CK(cudaMemcpyAsync(h_p, d_p, bytes, cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamSynchronize(stream));
    double err = 0.0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            double exact = std::sin(M_PI * i * h) * std::sin(M_PI * j * h);
            err = std::fmax(err, std::fabs(h_p[j * n + i] - exact));
        }
    std::printf("max error against the exact pressure: %.3e\n", err);

    CK(cudaGraphExecDestroy(cycle));
    CK(cudaGraphDestroy(graph));
    CK(cudaFree(d_p));
    CK(cudaFree(d_q));
    CK(cudaFree(d_f));
    CK(cudaFree(d_res2));
    CK(cudaFreeHost(h_res2));
    CK(cudaFreeHost(h_p));
    CK(cudaStreamDestroy(stream));
    return 0;
}
