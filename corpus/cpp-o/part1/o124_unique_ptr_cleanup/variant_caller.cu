// case: genotype-likelihood step whose device and pinned buffers are owned by unique_ptrs with cudaFree/cudaFreeHost deleters (cuda_ptr.h), a raw scratch buffer freed on every early-return path, and a buffer handed back to the caller that frees it: no leak.
// expect: none
#include "cuda_ptr.h"
#include <cstdlib>
#include <cmath>
#include <vector>

__global__ void genotype_likelihoods(const unsigned char* __restrict__ quals, const unsigned char* __restrict__ alt,
                                     int depth, int sites, float* __restrict__ gl)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= sites) return;
    float l0 = 0.f, l1 = 0.f, l2 = 0.f;
    for (int d = 0; d < depth; ++d) {
        float e = __powf(10.f, -quals[(size_t)s * depth + d] / 10.f);
        bool a = alt[(size_t)s * depth + d];
        l0 += __logf(a ? e / 3.f : 1.f - e);
        l1 += __logf(0.5f * (1.f - e) + 0.5f * e / 3.f);
        l2 += __logf(a ? 1.f - e : e / 3.f);
    }
    gl[3 * s] = l0; gl[3 * s + 1] = l1; gl[3 * s + 2] = l2;
}

// Caller owns the returned buffer.
static cudaError_t upload_bytes(const std::vector<unsigned char>& v, unsigned char** out)
{
    unsigned char* d = nullptr;
    RETURN_ON_ERROR(cudaMalloc(&d, v.size()));
    cudaError_t e = cudaMemcpy(d, v.data(), v.size(), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) { cudaFree(d); return e; }
    *out = d;
    return cudaSuccess;
}

static cudaError_t call_sites(int sites, int depth, std::vector<int>& calls)
{
    std::vector<unsigned char> q((size_t)sites * depth), a((size_t)sites * depth);
    for (size_t i = 0; i < q.size(); ++i) { q[i] = 20 + (i % 21); a[i] = (i * 2654435761u >> 7) % 3 == 0; }

    unsigned char* d_alt_raw = nullptr;
    RETURN_ON_ERROR(upload_bytes(a, &d_alt_raw));
    device_ptr<unsigned char> d_alt(d_alt_raw);

    unsigned char* d_q = nullptr;
    RETURN_ON_ERROR(upload_bytes(q, &d_q));

    device_ptr<float> d_gl;
    cudaError_t e = make_device(d_gl, (size_t)3 * sites);
    if (e != cudaSuccess) { cudaFree(d_q); return e; }
    pinned_ptr<float> h_gl;
    e = make_pinned(h_gl, (size_t)3 * sites);
    if (e != cudaSuccess) { cudaFree(d_q); return e; }

    genotype_likelihoods<<<(sites + 127) / 128, 128>>>(d_q, d_alt.get(), depth, sites, d_gl.get());
    e = cudaGetLastError();
    if (e != cudaSuccess) { cudaFree(d_q); return e; }
    e = cudaMemcpy(h_gl.get(), d_gl.get(), (size_t)3 * sites * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_q);
    if (e != cudaSuccess) return e;

    calls.resize(sites);
    for (int s = 0; s < sites; ++s) {
        const float* g = h_gl.get() + 3 * s;
        calls[s] = g[0] >= g[1] && g[0] >= g[2] ? 0 : (g[1] >= g[2] ? 1 : 2);
    }
    return cudaSuccess;
}

int main(int argc, char** argv)
{
    int sites = argc > 1 ? std::atoi(argv[1]) : 500000, depth = 30;
    std::vector<int> calls;
    if (call_sites(sites, depth, calls) != cudaSuccess) return 1;
    int het = 0, hom = 0;
    for (int c : calls) { het += c == 1; hom += c == 2; }
    std::printf("%d sites: %d het, %d hom-alt\n", sites, het, hom);
    return 0;
}
