// case: Managed buffers each attached to their own stream with cudaStreamAttachMemAsync(cudaMemAttachSingle) and the attach waited for; the host fills the io-stream buffer while a kernel runs on the compute stream, which is legal even without concurrent managed access.
// expect: none
#include <cstdio>
#include <cuda_runtime.h>

#define CK(call) do { cudaError_t s_ = (call); if (s_ != cudaSuccess) { \
    std::printf("%s failed: %s\n", #call, cudaGetErrorString(s_)); return 1; } } while (0)

static const int N = 1 << 20;

__global__ void relax(float* field, int n, int sweeps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= 0 || i >= n - 1) return;
    for (int s = 0; s < sweeps; ++s)
        field[i] = 0.5f * field[i] + 0.25f * (field[i - 1] + field[i + 1]);
}

int main() {
    float* field = nullptr;     // used by the compute stream's kernels
    float* next_input = nullptr; // prepared by the host for the next step
    cudaStream_t compute, io;

    CK(cudaStreamCreate(&compute));
    CK(cudaStreamCreate(&io));
    CK(cudaMallocManaged(&field, N * sizeof(float)));
    CK(cudaMallocManaged(&next_input, N * sizeof(float), cudaMemAttachHost));

    for (int i = 0; i < N; ++i) field[i] = (i % 97) * 0.01f;

    CK(cudaStreamAttachMemAsync(compute, field, 0, cudaMemAttachSingle));
    CK(cudaStreamAttachMemAsync(io, next_input, 0, cudaMemAttachSingle));
    CK(cudaStreamSynchronize(compute));
    CK(cudaStreamSynchronize(io));

    relax<<<(N + 255) / 256, 256, 0, compute>>>(field, N, 16);
    CK(cudaGetLastError());

    // next_input belongs to the idle io stream: the host may touch it while compute runs
    for (int i = 0; i < N; ++i) next_input[i] = 1.0f / (1 + i);

    CK(cudaStreamSynchronize(compute));
    double acc = 0.0;
    for (int i = 0; i < N; ++i) acc += field[i] * next_input[i];
    std::printf("dot = %f\n", acc);

    cudaFree(next_input);
    cudaFree(field);
    cudaStreamDestroy(io);
    cudaStreamDestroy(compute);
    return 0;
}
