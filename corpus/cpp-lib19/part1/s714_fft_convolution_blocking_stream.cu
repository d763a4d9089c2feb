// Circular convolution of a batch of 1-D signals with one filter through the frequency domain:
// forward R2C of signals and filter, pointwise complex multiply, inverse C2R. The plans stay
// on the default stream; the multiply runs on a stream created with default flags, which
// the default stream orders itself with in both directions.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cufft.h>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t err_ = (call);                                                \
        if (err_ != cudaSuccess) {                                                \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_));                               \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

#define CUFFT_CHECK(call)                                                         \
    do {                                                                          \
        cufftResult r_ = (call);                                                  \
        if (r_ != CUFFT_SUCCESS) {                                                \
            std::fprintf(stderr, "%s:%d: cuFFT error %d\n", __FILE__, __LINE__,   \
                         static_cast<int>(r_));                                   \
            std::exit(EXIT_FAILURE);                                              \
        }                                                                         \
    } while (0)

constexpr int kLen = 8192;
constexpr int kBins = kLen / 2 + 1;
constexpr int kSignals = 256;

// spec[s * bins + k] *= filt[k] / len (the inverse transform is unnormalised)
__global__ void multiply_spectra(cufftComplex* __restrict__ spec, const cufftComplex* __restrict__ filt,
                                 int bins, int signals, float scale) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i >= static_cast<size_t>(bins) * signals) return;
    const cufftComplex a = spec[i], b = filt[i % bins];
    spec[i] = make_float2((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);
}

int main() {
    const size_t sig_elems = static_cast<size_t>(kSignals) * kLen;
    const size_t spec_elems = static_cast<size_t>(kSignals) * kBins;

    std::vector<float> signals(sig_elems), filter(kLen, 0.0f), result(sig_elems);
    for (size_t i = 0; i < sig_elems; ++i) signals[i] = std::sin(0.001f * static_cast<float>(i)) + ((i % 97) == 0 ? 1.0f : 0.0f);
    for (int t = 0; t < 64; ++t) filter[t] = 1.0f / 64;  // moving average, zero-padded

    cudaStream_t filt_stream;
    CUDA_CHECK(cudaStreamCreate(&filt_stream));

    cufftHandle fwd_batch, fwd_one, inv_batch;
    CUFFT_CHECK(cufftPlan1d(&fwd_batch, kLen, CUFFT_R2C, kSignals));
    CUFFT_CHECK(cufftPlan1d(&fwd_one, kLen, CUFFT_R2C, 1));
    CUFFT_CHECK(cufftPlan1d(&inv_batch, kLen, CUFFT_C2R, kSignals));

    float *d_sig, *d_filt, *d_out;
    cufftComplex *d_sig_spec, *d_filt_spec;
    CUDA_CHECK(cudaMalloc(&d_sig, sig_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_filt, kLen * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, sig_elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_sig_spec, spec_elems * sizeof(cufftComplex)));
    CUDA_CHECK(cudaMalloc(&d_filt_spec, kBins * sizeof(cufftComplex)));

    CUDA_CHECK(cudaMemcpy(d_sig, signals.data(), sig_elems * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_filt, filter.data(), kLen * sizeof(float), cudaMemcpyHostToDevice));
    CUFFT_CHECK(cufftExecR2C(fwd_batch, d_sig, d_sig_spec));
    CUFFT_CHECK(cufftExecR2C(fwd_one, d_filt, d_filt_spec));

    const int threads = 256;
    const unsigned blocks = static_cast<unsigned>((spec_elems + threads - 1) / threads);
    multiply_spectra<<<blocks, threads, 0, filt_stream>>>(d_sig_spec, d_filt_spec, kBins, kSignals, 1.0f / kLen);
    CUDA_CHECK(cudaGetLastError());

    CUFFT_CHECK(cufftExecC2R(inv_batch, d_sig_spec, d_out));
    CUDA_CHECK(cudaMemcpy(result.data(), d_out, sig_elems * sizeof(float), cudaMemcpyDeviceToHost));

    double energy_in = 0.0, energy_out = 0.0;
    for (size_t i = 0; i < sig_elems; ++i) {
        energy_in += static_cast<double>(signals[i]) * signals[i];
        energy_out += static_cast<double>(result[i]) * result[i];
    }
    std::printf("smoothing kept %.2f%% of the energy\n", 100.0 * energy_out / energy_in);

    CUDA_CHECK(cudaFree(d_filt_spec));
    CUDA_CHECK(cudaFree(d_sig_spec));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_filt));
    CUDA_CHECK(cudaFree(d_sig));
    CUFFT_CHECK(cufftDestroy(inv_batch));
    CUFFT_CHECK(cufftDestroy(fwd_one));
    CUFFT_CHECK(cufftDestroy(fwd_batch));
    CUDA_CHECK(cudaStreamDestroy(filt_stream));
    return 0;
}
