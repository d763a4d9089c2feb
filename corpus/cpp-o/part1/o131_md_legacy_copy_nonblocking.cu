// case: molecular-dynamics energy check launches the force kernel on a cudaStreamNonBlocking stream and then reads the energies back with a plain cudaMemcpy, which runs on the legacy default stream and does not wait for that stream.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct LJParams { float eps, sigma, cutoff, box; };

__global__ void lj_forces(const float4* __restrict__ pos, float4* __restrict__ force,
                          float* __restrict__ pe, int n, LJParams p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float3 f = make_float3(0.f, 0.f, 0.f);
    float e = 0.f, rc2 = p.cutoff * p.cutoff, s2 = p.sigma * p.sigma;
    for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        float dx = pi.x - pos[j].x, dy = pi.y - pos[j].y, dz = pi.z - pos[j].z;
        dx -= p.box * rintf(dx / p.box); dy -= p.box * rintf(dy / p.box); dz -= p.box * rintf(dz / p.box);
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 > rc2) continue;
        float sr2 = s2 / r2, sr6 = sr2 * sr2 * sr2;
        float fr = 24.f * p.eps * sr6 * (2.f * sr6 - 1.f) / r2;
        f.x += fr * dx; f.y += fr * dy; f.z += fr * dz;
        e += 2.f * p.eps * sr6 * (sr6 - 1.f);
    }
    force[i] = make_float4(f.x, f.y, f.z, 0.f);
    pe[i] = e;
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 32768;
    LJParams prm{1.f, 1.f, 2.5f, std::cbrt((float)n / 0.8f)};
    int side = (int)std::ceil(std::cbrt((double)n));
    std::vector<float4> pos(n);
    for (int i = 0; i < n; ++i)
        pos[i] = make_float4((i % side) * prm.box / side, ((i / side) % side) * prm.box / side,
                             (i / (side * side)) * prm.box / side, 1.f);

    float4 *d_pos, *d_force;
    float* d_pe;
    CUDA_CHECK(cudaMalloc(&d_pos, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_force, n * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_pe, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_pos, pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));

    cudaStream_t md;
    CUDA_CHECK(cudaStreamCreateWithFlags(&md, cudaStreamNonBlocking));
    lj_forces<<<(n + 127) / 128, 128, 0, md>>>(d_pos, d_force, d_pe, n, prm);
    CUDA_CHECK(cudaGetLastError());

    std::vector<float> pe(n);
    CUDA_CHECK(cudaMemcpy(pe.data(), d_pe, n * sizeof(float), cudaMemcpyDeviceToHost));   // EXPECT: missing_sync
    double total = 0.0;
    for (float e : pe) total += e;
    printf("potential energy per particle: %.5f\n", total / n);

    CUDA_CHECK(cudaStreamSynchronize(md));
    CUDA_CHECK(cudaStreamDestroy(md));
    CUDA_CHECK(cudaFree(d_pe));
    CUDA_CHECK(cudaFree(d_force));
    CUDA_CHECK(cudaFree(d_pos));
    return 0;
}
