// case: a seismic NMO-correction tool allocates its shot-gather buffer with cudaMallocHost only under SEISMIC_PINNED_TRACES, which nothing defines, so the default build uploads a malloc'd gather with cudaMemcpyAsync
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

// Optional: build with -DSEISMIC_PINNED_TRACES for page-locked trace buffers.

#define SCHECK(call)                                                                    \
    do {                                                                                \
        cudaError_t s_ = (call);                                                        \
        if (s_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "seis: %s failed (%s)\n", #call, cudaGetErrorString(s_)); \
            std::exit(2);                                                               \
        }                                                                               \
    } while (0)

struct Gather {
    int ntraces, nsamples;
    float dt;
    float* offsets;   // metres, host
    float* samples;   // ntraces x nsamples
};

static float* alloc_traces(size_t count) {
    float* p = nullptr;
#ifdef SEISMIC_PINNED_TRACES
    SCHECK(cudaMallocHost(&p, count * sizeof(float)));
#else
    p = static_cast<float*>(std::malloc(count * sizeof(float)));
#endif
    return p;
}

static void free_traces(float* p) {
#ifdef SEISMIC_PINNED_TRACES
    cudaFreeHost(p);
#else
    std::free(p);
#endif
}

__global__ void nmo_correct(const float* in, float* out, const float* offsets, int ntr, int ns, float dt, float vrms) {
    int it = blockIdx.x * blockDim.x + threadIdx.x;
    int tr = blockIdx.y;
    if (it >= ns || tr >= ntr) return;
    float t0 = it * dt;
    float x = offsets[tr];
    float t = sqrtf(t0 * t0 + (x * x) / (vrms * vrms));
    float f = t / dt;
    int i0 = (int)f;
    float w = f - i0;
    const float* trace = in + (size_t)tr * ns;
    out[(size_t)tr * ns + it] = (i0 + 1 < ns) ? (1.f - w) * trace[i0] + w * trace[i0 + 1] : 0.f;
}

int main() {
    Gather g{480, 3000, 0.002f, nullptr, nullptr};
    const size_t count = (size_t)g.ntraces * g.nsamples;
    g.samples = alloc_traces(count);
    g.offsets = static_cast<float*>(std::malloc(g.ntraces * sizeof(float)));
    for (int tr = 0; tr < g.ntraces; ++tr) {
        g.offsets[tr] = 25.f * tr;
        for (int it = 0; it < g.nsamples; ++it)
            g.samples[(size_t)tr * g.nsamples + it] = std::sin(0.05f * it) * std::exp(-0.001f * it);
    }

    float *d_in, *d_out, *d_off;
    SCHECK(cudaMalloc(&d_in, count * sizeof(float)));
    SCHECK(cudaMalloc(&d_out, count * sizeof(float)));
    SCHECK(cudaMalloc(&d_off, g.ntraces * sizeof(float)));

    cudaStream_t s;
    SCHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    SCHECK(cudaMemcpyAsync(d_in, g.samples, count * sizeof(float), cudaMemcpyHostToDevice, s)); // EXPECT: pageable_async_copy
    SCHECK(cudaMemcpyAsync(d_off, g.offsets, 480 * sizeof(float), cudaMemcpyHostToDevice, s));
    nmo_correct<<<dim3((g.nsamples + 255) / 256, g.ntraces), 256, 0, s>>>(d_in, d_out, d_off, g.ntraces,
                                                                       g.nsamples, g.dt, 2000.f);
    SCHECK(cudaStreamSynchronize(s));
    // corrected gather goes back through a blocking copy into the same host buffer
    SCHECK(cudaMemcpy(g.samples, d_out, count * sizeof(float), cudaMemcpyDeviceToHost));

    double rms = 0.0;
    for (size_t i = 0; i < count; ++i) rms += g.samples[i] * g.samples[i];
    std::printf("NMO-corrected gather rms %.5f\n", std::sqrt(rms / count));

    SCHECK(cudaStreamDestroy(s));
    cudaFree(d_off); cudaFree(d_out); cudaFree(d_in);
    std::free(g.offsets);
    free_traces(g.samples);
    return 0;
}
