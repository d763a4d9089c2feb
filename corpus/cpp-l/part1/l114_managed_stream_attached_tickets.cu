// case: a relaxation solver keeps its field in globally attached managed memory and its host-filled work tickets in managed memory attached to a separate I/O stream; the host refills the tickets while the relaxation kernel runs on the compute stream, which is legal because the ticket stream is idle (synchronized) and the ticket memory is attached to it alone, and the field is read only after a device synchronize.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t e = (call);                                                  \
        if (e != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

constexpr int kN = 1 << 22;
constexpr int kTickets = 4096;
constexpr int kSteps = 8;

__global__ void relax(float* field, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1 && (i & 1) == 0) field[i] = 0.5f * (field[i - 1] + field[i + 1]);
}

__global__ void count_tickets(const int* tickets, int* histogram, int ntickets) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ntickets) atomicAdd(&histogram[tickets[i] & 63], 1);
}

int main() {
    float* field = nullptr;
    int* tickets = nullptr;
    int* d_hist = nullptr;
    CUDA_CHECK(cudaMallocManaged(&field, kN * sizeof(float)));
    CUDA_CHECK(cudaMallocManaged(&tickets, kTickets * sizeof(int), cudaMemAttachHost));
    CUDA_CHECK(cudaMalloc(&d_hist, 64 * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_hist, 0, 64 * sizeof(int)));

    for (int i = 0; i < kN; ++i) field[i] = (i % 1024 == 0) ? 1.f : 0.f;

    cudaStream_t s_compute, s_io;
    CUDA_CHECK(cudaStreamCreate(&s_compute));
    CUDA_CHECK(cudaStreamCreate(&s_io));
    // tickets belong to s_io only: kernels on s_compute never take them
    CUDA_CHECK(cudaStreamAttachMemAsync(s_io, tickets, 0, cudaMemAttachSingle));
    CUDA_CHECK(cudaStreamSynchronize(s_io));

    for (int step = 0; step < kSteps; ++step) {
        relax<<<(kN + 255) / 256, 256, 0, s_compute>>>(field, kN);
        CUDA_CHECK(cudaGetLastError());

        // s_io is idle here: the host may touch its memory while relax runs
        for (int t = 0; t < kTickets; ++t) tickets[t] = step * 131 + t * 7;
        count_tickets<<<(kTickets + 255) / 256, 256, 0, s_io>>>(tickets, d_hist, kTickets);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaStreamSynchronize(s_io));
    }

    CUDA_CHECK(cudaDeviceSynchronize());
    double mass = 0.0;
    for (int i = 0; i < kN; ++i) mass += field[i];
    int h_hist[64];
    CUDA_CHECK(cudaMemcpy(h_hist, d_hist, sizeof(h_hist), cudaMemcpyDeviceToHost));
    printf("field mass %.3f, bucket0 %d\n", mass, h_hist[0]);

    CUDA_CHECK(cudaStreamDestroy(s_compute));
    CUDA_CHECK(cudaStreamDestroy(s_io));
    CUDA_CHECK(cudaFree(d_hist));
    CUDA_CHECK(cudaFree(tickets));
    CUDA_CHECK(cudaFree(field));
    return 0;
}
