// case: A particle-in-cell step deposits charge with a kernel on a cudaStreamNonBlocking stream, then reads the grid back with a plain cudaMemcpy on the legacy default stream, which does not wait for non-blocking streams.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kCells = 1 << 16;
constexpr int kParticles = 1 << 22;
constexpr float kDx = 1.0f / kCells;

struct Particles {
    float* x = nullptr;
    float* v = nullptr;
    int n = 0;
};

__global__ void deposit_charge(const float* x, int n, float* rho, int cells, float dx)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    float xi = x[p] / dx;
    int c = (int)xi;
    float w = xi - c;
    atomicAdd(&rho[c % cells], 1.0f - w);
    atomicAdd(&rho[(c + 1) % cells], w);
}

static Particles make_particles(int n)
{
    Particles ps;
    ps.n = n;
    std::vector<float> hx(n), hv(n, 0.f);
    for (int i = 0; i < n; ++i) hx[i] = (float)((i * 40503u) % 65536u) / 65536.0f;
    CUDA_CHECK(cudaMalloc(&ps.x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&ps.v, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(ps.x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(ps.v, hv.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize()); // pageable uploads may still be in DMA
    return ps;
}

static void release(Particles& ps)
{
    cudaFree(ps.x);
    cudaFree(ps.v);
    ps = Particles{};
}

int main()
{
    Particles ps = make_particles(kParticles);
    float* d_rho = nullptr;
    CUDA_CHECK(cudaMalloc(&d_rho, kCells * sizeof(float)));

    cudaStream_t pic_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&pic_stream, cudaStreamNonBlocking));

    std::vector<float> rho(kCells);
    CUDA_CHECK(cudaMemsetAsync(d_rho, 0, kCells * sizeof(float), pic_stream));
    CUDA_CHECK(cudaStreamSynchronize(pic_stream)); // setup done

    deposit_charge<<<(ps.n + 255) / 256, 256, 0, pic_stream>>>(ps.x, ps.n, d_rho, kCells, kDx);
    CUDA_CHECK(cudaGetLastError());

    // "cudaMemcpy is synchronous, so the deposit is done"
    CUDA_CHECK(cudaMemcpy(rho.data(), d_rho, kCells * sizeof(float), cudaMemcpyDeviceToHost)); // EXPECT: missing_sync

    double total = 0.0;
    for (float q : rho) total += q;
    std::printf("total charge %.1f (expected %d)\n", total, kParticles);

    CUDA_CHECK(cudaStreamSynchronize(pic_stream));
    CUDA_CHECK(cudaFree(d_rho));
    release(ps);
    CUDA_CHECK(cudaStreamDestroy(pic_stream));
    return 0;
}
