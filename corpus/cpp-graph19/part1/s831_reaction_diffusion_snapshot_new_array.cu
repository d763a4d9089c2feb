// Gray-Scott reaction-diffusion for a live visualisation: each replay of the recorded graph
// advances the two species by a few sub-steps and copies the V concentration into the host
// frame buffer, which the viewer reads once the replay is done.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "gray-scott: %s (%s:%d)\n", cudaGetErrorString(e_),      \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

struct Species {
    float* u;
    float* v;
    float* u_next;
    float* v_next;
};

__global__ void gray_scott(const float* __restrict__ u, const float* __restrict__ v,
                           float* __restrict__ un, float* __restrict__ vn, int n, float f,
                           float k) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    int c = y * n + x;
    int l = y * n + (x + n - 1) % n, r = y * n + (x + 1) % n;
    int d = ((y + n - 1) % n) * n + x, t = ((y + 1) % n) * n + x;
    float lu = u[l] + u[r] + u[d] + u[t] - 4.0f * u[c];
    float lv = v[l] + v[r] + v[d] + v[t] - 4.0f * v[c];
    float uvv = u[c] * v[c] * v[c];
    un[c] = u[c] + 0.2f * lu - uvv + f * (1.0f - u[c]);
    vn[c] = v[c] + 0.1f * lv + uvv - (f + k) * v[c];
}

__global__ void seed(float* u, float* v, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    bool centre = abs(x - n / 2) < 10 && abs(y - n / 2) < 10;
    u[y * n + x] = centre ? 0.5f : 1.0f;
    v[y * n + x] = centre ? 0.25f : 0.0f;
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
    const size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
    const int substeps = 8;  // even, so u and v end in their own buffers

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    Species s{};
    CUDA_CHECK(cudaMalloc(&s.u, bytes));
    CUDA_CHECK(cudaMalloc(&s.v, bytes));
    CUDA_CHECK(cudaMalloc(&s.u_next, bytes));
    CUDA_CHECK(cudaMalloc(&s.v_next, bytes));
    dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
    seed<<<grid, block, 0, stream>>>(s.u, s.v, n);
    CUDA_CHECK(cudaGetLastError());

    float* frame = new float[static_cast<size_t>(n) * n];  // read by the viewer

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < substeps; k += 2) {
        gray_scott<<<grid, block, 0, stream>>>(s.u, s.v, s.u_next, s.v_next, n, 0.037f, 0.06f);
        gray_scott<<<grid, block, 0, stream>>>(s.u_next, s.v_next, s.u, s.v, n, 0.037f, 0.06f);
    }
    CUDA_CHECK(cudaMemcpyAsync(frame, s.v, bytes, cudaMemcpyDeviceToHost, stream));  // EXPECT: pageable_async_copy
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    for (int f = 0; f < 500; ++f) {
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        if (f % 100 == 0) {
            double mass = 0.0;
            for (size_t c = 0; c < static_cast<size_t>(n) * n; ++c) mass += frame[c];
            std::printf("frame %d: total V %.2f\n", f, mass);
        }
    }

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    delete[] frame;
    CUDA_CHECK(cudaFree(s.v_next));
    CUDA_CHECK(cudaFree(s.u_next));
    CUDA_CHECK(cudaFree(s.v));
    CUDA_CHECK(cudaFree(s.u));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
