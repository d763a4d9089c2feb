// case: a simulation keeps its tunable parameters in a managed struct and the host updates them for the next step while the current step's kernel, which does not use the struct, is still running
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

struct SimParams {
    float diffusion;
    float decay;
    int width;
    int height;
};

__global__ void diffuse(const float* in, float* out, int w, int h, float k) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    float c = in[y * w + x];
    float lap = in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x] - 4.f * c;
    out[y * w + x] = c + k * lap;
}

__global__ void apply_decay(float* field, const SimParams* p) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < p->width && y < p->height) field[y * p->width + x] *= (1.f - p->decay);
}

int main() {
    const int w = 2048, h = 2048;
    const size_t bytes = (size_t)w * h * sizeof(float);

    SimParams* params = nullptr;
    CUDA_CHECK(cudaMallocManaged(&params, sizeof(SimParams)));
    params->diffusion = 0.1f;
    params->decay = 0.001f;
    params->width = w;
    params->height = h;

    std::vector<float> init(w * h, 0.f);
    init[(h / 2) * w + w / 2] = 1000.f;
    float *d_a, *d_b;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, init.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, init.data(), bytes, cudaMemcpyHostToDevice));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    dim3 block(16, 16), grid(w / 16, h / 16);

    diffuse<<<grid, block, 0, s>>>(d_a, d_b, w, h, 0.1f);
    params->decay = 0.002f; // EXPECT: managed_concurrent_access
    CUDA_CHECK(cudaStreamSynchronize(s));

    apply_decay<<<grid, block, 0, s>>>(d_b, params);
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::vector<float> out(w * h);
    CUDA_CHECK(cudaMemcpy(out.data(), d_b, bytes, cudaMemcpyDeviceToHost));
    printf("center %.4f neighbour %.4f\n", out[(h / 2) * w + w / 2], out[(h / 2) * w + w / 2 + 1]);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(params));
    return 0;
}
