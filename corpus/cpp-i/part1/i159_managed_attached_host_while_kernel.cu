// case: a controller allocates its command block with cudaMallocManaged(cudaMemAttachHost) and rewrites it while an unrelated kernel runs; host-attached memory is not taken by kernels, and it is attached to the stream only after a synchronize
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

struct Commands {
    int op;
    float scale;
    float offset;
    int count;
};

__global__ void warmup(float* scratch, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scratch[i] = sinf(i * 0.001f);
}

__global__ void apply(const Commands* cmd, const float* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cmd->count) return;
    out[i] = cmd->op == 0 ? in[i] * cmd->scale + cmd->offset : in[i];
}

int main() {
    const int n = 1 << 22;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    Commands* cmd = nullptr;
    CUDA_CHECK(cudaMallocManaged(&cmd, sizeof(Commands), cudaMemAttachHost));
    float *d_scratch, *d_out;
    CUDA_CHECK(cudaMalloc(&d_scratch, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));

    warmup<<<(n + 255) / 256, 256, 0, s>>>(d_scratch, n);
    cmd->op = 0;
    cmd->scale = 2.0f;
    cmd->offset = -1.0f;
    cmd->count = n;
    CUDA_CHECK(cudaStreamSynchronize(s));

    CUDA_CHECK(cudaStreamAttachMemAsync(s, cmd, 0, cudaMemAttachSingle));
    apply<<<(n + 255) / 256, 256, 0, s>>>(cmd, d_scratch, d_out);
    CUDA_CHECK(cudaStreamSynchronize(s));

    std::vector<float> out(n);
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("out[1000] = %.4f (op %d)\n", out[1000], cmd->op);

    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_scratch));
    CUDA_CHECK(cudaFree(cmd));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
