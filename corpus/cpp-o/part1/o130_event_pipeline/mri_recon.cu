// case: MRI k-space reconstruction on a compute and a transfer stream (stream_pair.cuh): uploads on the transfer stream are handed to compute by an event, the result's download is ordered after compute by an event, the host waits with cudaEventSynchronize before reading, and the stream-ordered scratch is freed on the compute stream that used it: correct.
// expect: none
#include "stream_pair.cuh"
#include <cuComplex.h>
#include <vector>
#include <cmath>

__global__ void apply_density_comp(cuFloatComplex* k, const float* __restrict__ w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) k[i] = make_cuFloatComplex(cuCrealf(k[i]) * w[i], cuCimagf(k[i]) * w[i]);
}

__global__ void gridding_magnitude(const cuFloatComplex* __restrict__ k, float* __restrict__ scratch,
                                   float* __restrict__ img, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    scratch[i] = cuCabsf(k[i]);
    img[i] = sqrtf(scratch[i]);
}

int main(int argc, char** argv)
{
    int nread = argc > 1 ? atoi(argv[1]) : 512, nphase = 512, coils = 8;
    int n = nread * nphase;
    StreamPair sp;

    cuFloatComplex* h_k;
    float *h_w, *h_img;
    PIPE_CHECK(cudaMallocHost(&h_k, (size_t)n * sizeof(cuFloatComplex)));
    PIPE_CHECK(cudaMallocHost(&h_w, (size_t)n * sizeof(float)));
    PIPE_CHECK(cudaMallocHost(&h_img, (size_t)n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_w[i] = 1.f / (1.f + std::hypot((float)(i % nread - nread / 2), (float)(i / nread - nphase / 2)));

    cuFloatComplex* d_k;
    float *d_w, *d_img;
    PIPE_CHECK(cudaMalloc(&d_k, (size_t)n * sizeof(cuFloatComplex)));
    PIPE_CHECK(cudaMalloc(&d_w, (size_t)n * sizeof(float)));
    PIPE_CHECK(cudaMalloc(&d_img, (size_t)n * sizeof(float)));
    PIPE_CHECK(cudaMemcpyAsync(d_w, h_w, (size_t)n * sizeof(float), cudaMemcpyHostToDevice, sp.transfer()));

    cudaEvent_t img_ready;
    PIPE_CHECK(cudaEventCreateWithFlags(&img_ready, cudaEventDisableTiming));
    std::vector<double> coil_energy(coils);
    for (int c = 0; c < coils; ++c) {
        for (int i = 0; i < n; ++i) h_k[i] = make_cuFloatComplex(std::cos(0.001f * i * (c + 1)), std::sin(0.002f * i));
        PIPE_CHECK(cudaMemcpyAsync(d_k, h_k, (size_t)n * sizeof(cuFloatComplex), cudaMemcpyHostToDevice, sp.transfer()));
        sp.transfer_to_compute();

        float* d_scratch = nullptr;
        PIPE_CHECK(cudaMallocAsync(&d_scratch, (size_t)n * sizeof(float), sp.compute()));
        apply_density_comp<<<(n + 255) / 256, 256, 0, sp.compute()>>>(d_k, d_w, n);
        gridding_magnitude<<<(n + 255) / 256, 256, 0, sp.compute()>>>(d_k, d_scratch, d_img, n);
        PIPE_CHECK(cudaFreeAsync(d_scratch, sp.compute()));

        sp.compute_to_transfer();
        PIPE_CHECK(cudaMemcpyAsync(h_img, d_img, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost, sp.transfer()));
        PIPE_CHECK(cudaEventRecord(img_ready, sp.transfer()));
        PIPE_CHECK(cudaEventSynchronize(img_ready));

        double e = 0.0;
        for (int i = 0; i < n; ++i) e += h_img[i];
        coil_energy[c] = e;
    }
    for (int c = 0; c < coils; ++c) printf("coil %d: %.3f\n", c, coil_energy[c]);

    PIPE_CHECK(cudaStreamSynchronize(sp.compute()));
    PIPE_CHECK(cudaEventDestroy(img_ready));
    PIPE_CHECK(cudaFree(d_img));
    PIPE_CHECK(cudaFree(d_w));
    PIPE_CHECK(cudaFree(d_k));
    PIPE_CHECK(cudaFreeHost(h_img));
    PIPE_CHECK(cudaFreeHost(h_w));
    PIPE_CHECK(cudaFreeHost(h_k));
    return 0;
}
