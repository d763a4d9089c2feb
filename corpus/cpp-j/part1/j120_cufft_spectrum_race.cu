// case: a batched cuFFT forward transform on a stream, a magnitude kernel and an async download of the spectrum into pinned memory; the peak search reads the pinned spectrum before the stream is synchronized, and the cleanup releases the pinned spectrum with cudaFree
// expect: missing_sync=1, mismatched_free=1
#include <cuda_runtime.h>
#include <cufft.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_RT(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "cuda: %s\n", cudaGetErrorString(e)); exit(1); } } while (0)
#define CUFFT_OK(x) do { cufftResult r = (x); if (r != CUFFT_SUCCESS) { fprintf(stderr, "cufft: %d\n", (int)r); exit(1); } } while (0)

__global__ void magnitude(const cufftComplex* spec, float* mag, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mag[i] = sqrtf(spec[i].x * spec[i].x + spec[i].y * spec[i].y);
}

int main() {
    const int nfft = 4096, batch = 256;
    const int total = nfft * batch;

    cudaStream_t stream;
    CUDA_RT(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cufftHandle plan;
    CUFFT_OK(cufftPlan1d(&plan, nfft, CUFFT_C2C, batch));
    CUFFT_OK(cufftSetStream(plan, stream));

    cufftComplex* h_sig;
    float* h_mag;
    CUDA_RT(cudaMallocHost(&h_sig, sizeof(cufftComplex) * total));
    CUDA_RT(cudaMallocHost(&h_mag, sizeof(float) * total));
    for (int b = 0; b < batch; ++b)
        for (int t = 0; t < nfft; ++t) {
            float ph = 2.f * 3.14159265f * (b + 10) * t / nfft;
            h_sig[b * nfft + t].x = cosf(ph);
            h_sig[b * nfft + t].y = sinf(ph);
        }

    cufftComplex* d_sig;
    float* d_mag;
    CUDA_RT(cudaMalloc(&d_sig, sizeof(cufftComplex) * total));
    CUDA_RT(cudaMalloc(&d_mag, sizeof(float) * total));

    CUDA_RT(cudaMemcpyAsync(d_sig, h_sig, sizeof(cufftComplex) * total, cudaMemcpyHostToDevice, stream));
    CUFFT_OK(cufftExecC2C(plan, d_sig, d_sig, CUFFT_FORWARD));
    magnitude<<<(total + 255) / 256, 256, 0, stream>>>(d_sig, d_mag, total);
    CUDA_RT(cudaMemcpyAsync(h_mag, d_mag, sizeof(float) * total, cudaMemcpyDeviceToHost, stream));

    int wrong_bins = 0;
    for (int b = 0; b < batch; ++b) {
        int peak = 0;
        for (int k = 1; k < nfft; ++k)
            if (h_mag[b * nfft + k] > h_mag[b * nfft + peak]) peak = k; // EXPECT: missing_sync
        if (peak != b + 10) ++wrong_bins;
    }
    printf("%d of %d rows peaked at the wrong bin\n", wrong_bins, batch);

    CUDA_RT(cudaStreamSynchronize(stream));
    CUFFT_OK(cufftDestroy(plan));
    CUDA_RT(cudaFree(d_mag));
    CUDA_RT(cudaFree(d_sig));
    CUDA_RT(cudaFree(h_mag)); // EXPECT: mismatched_free
    CUDA_RT(cudaFreeHost(h_sig));
    CUDA_RT(cudaStreamDestroy(stream));
    return 0;
}
