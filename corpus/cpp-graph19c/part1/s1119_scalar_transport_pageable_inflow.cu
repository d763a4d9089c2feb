// case: a 3-D scalar-transport solver captures its step (upload of the turbulent inflow
//       plane, two advection-diffusion sub-steps, outflow flux) into a graph; the inflow
//       plane the host regenerates every step is a std::vector, so the captured upload is
//       an asynchronous copy from pageable memory, repeated at every replay
// expect: pageable_async_copy=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                 \
            std::fprintf(stderr, "%s at %s:%d\n", cudaGetErrorString(err_),       \
                         __FILE__, __LINE__);                                      \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

struct Grid {
    int nx, ny, nz;
    float dx;
    size_t cells() const { return static_cast<size_t>(nx) * ny * nz; }
    size_t plane() const { return static_cast<size_t>(ny) * nz; }
};

__device__ __forceinline__ size_t at(const Grid& g, int i, int j, int k) {
    return (static_cast<size_t>(k) * g.ny + j) * g.nx + i;
}

// Dirichlet inflow: the x = 0 plane takes the generated concentrations.
__global__ void apply_inflow(float* __restrict__ c, const float* __restrict__ inflow, Grid g) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int k = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= g.ny || k >= g.nz) return;
    c[at(g, 0, j, k)] = inflow[static_cast<size_t>(k) * g.ny + j];
}

// Upwind advection by a uniform stream-wise velocity plus 7-point diffusion.
__global__ void advect_diffuse(const float* __restrict__ c, float* __restrict__ out, Grid g,
                               float courant, float fourier) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z;
    if (i >= g.nx || j >= g.ny || k >= g.nz) return;
    const size_t p = at(g, i, j, k);
    if (i == 0) {
        out[p] = c[p];
        return;
    }
    if (i == g.nx - 1) {
        out[p] = c[at(g, i - 1, j, k)];  // zero-gradient outflow
        return;
    }
    const float cw = c[at(g, i - 1, j, k)], ce = c[at(g, i + 1, j, k)];
    const float cs = c[at(g, i, j > 0 ? j - 1 : j, k)], cn = c[at(g, i, j < g.ny - 1 ? j + 1 : j, k)];
    const float cb = c[at(g, i, j, k > 0 ? k - 1 : k)], ct = c[at(g, i, j, k < g.nz - 1 ? k + 1 : k)];
    const float cp = c[p];
    out[p] = cp - courant * (cp - cw) + fourier * (cw + ce + cs + cn + cb + ct - 6.0f * cp);
}

__global__ void outflow_flux(const float* __restrict__ c, Grid g, float* __restrict__ flux) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int k = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= g.ny || k >= g.nz) return;
    atomicAdd(flux, c[at(g, g.nx - 2, j, k)]);
}

// Synthetic-eddy inflow (Jarrin et al. 2006, much simplified): Gaussian blobs of tracer
// convected through the inlet plane.
class EddyInflow {
public:
    EddyInflow(const Grid& g, int eddies, unsigned seed) : g_(g), rng_(seed) {
        std::uniform_real_distribution<float> pos(0.0f, 1.0f);
        for (int e = 0; e < eddies; ++e) {
            ey_.push_back(pos(rng_) * g.ny * g.dx);
            ez_.push_back(pos(rng_) * g.nz * g.dx);
            phase_.push_back(pos(rng_) * 6.2831853f);
        }
    }

    void generate(std::vector<float>& plane, float t) const {
        const float sigma = 8.0f * g_.dx;
        for (int k = 0; k < g_.nz; ++k) {
            for (int j = 0; j < g_.ny; ++j) {
                const float y = j * g_.dx, z = k * g_.dx;
                float v = 0.0f;
                for (size_t e = 0; e < ey_.size(); ++e) {
                    const float dy = y - ey_[e], dz = z - ez_[e];
                    const float amp = 0.5f + 0.5f * std::sin(2.0f * t + phase_[e]);
                    v += amp * std::exp(-(dy * dy + dz * dz) / (2.0f * sigma * sigma));
                }
                plane[static_cast<size_t>(k) * g_.ny + j] = v;
            }
        }
    }

private:
    Grid g_;
    std::mt19937 rng_;
    std::vector<float> ey_, ez_, phase_;
};

int main() {
    const Grid g{128, 256, 256, 1.0f / 256.0f};
    const float velocity = 1.0f, diffusivity = 2.0e-4f;
    const float dt = 0.4f * g.dx / velocity;
    const int steps = 300;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_c, *d_c2, *d_inflow, *d_flux, *h_flux;
    CUDA_CHECK(cudaMalloc(&d_c, g.cells() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c2, g.cells() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_inflow, g.plane() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_flux, sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_flux, sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(d_c, 0, g.cells() * sizeof(float), stream));
    CUDA_CHECK(cudaMemsetAsync(d_c2, 0, g.cells() * sizeof(float), stream));

    EddyInflow eddies(g, 48, 17u);
    std::vector<float> inflow(g.plane());

    const dim3 pblock(16, 16), pgrid((g.ny + 15) / 16, (g.nz + 15) / 16);
    const dim3 vblock(32, 8), vgrid((g.nx + 31) / 32, (g.ny + 7) / 8, g.nz);
    const float courant = velocity * dt / g.dx;
    const float fourier = diffusivity * dt / (g.dx * g.dx);

    cudaGraph_t graph;
    cudaGraphExec_t step;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_inflow, inflow.data(), inflow.size() * sizeof(float), cudaMemcpyHostToDevice, stream));  // EXPECT: pageable_async_copy
    apply_inflow<<<pgrid, pblock, 0, stream>>>(d_c, d_inflow, g);
    advect_diffuse<<<vgrid, vblock, 0, stream>>>(d_c, d_c2, g, courant, fourier);
    apply_inflow<<<pgrid, pblock, 0, stream>>>(d_c2, d_inflow, g);
    advect_diffuse<<<vgrid, vblock, 0, stream>>>(d_c2, d_c, g, courant, fourier);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemsetAsync(d_flux, 0, sizeof(float), stream));
    outflow_flux<<<pgrid, pblock, 0, stream>>>(d_c, g, d_flux);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_flux, d_flux, sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&step, graph, 0));

    double outflow = 0.0;
    for (int s = 0; s < steps; ++s) {
        eddies.generate(inflow, s * 2 * dt);  // the previous replay has finished with it
        CUDA_CHECK(cudaGraphLaunch(step, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        outflow += static_cast<double>(*h_flux) * g.dx * g.dx * velocity * 2 * dt;
        if (s % 50 == 0) std::printf("step %3d: outflow rate %.5f\n", s, *h_flux * g.dx * g.dx * velocity);
    }
    std::printf("tracer through the outlet: %.5f\n", outflow);

    CUDA_CHECK(cudaGraphExecDestroy(step));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_c));
    CUDA_CHECK(cudaFree(d_c2));
    CUDA_CHECK(cudaFree(d_inflow));
    CUDA_CHECK(cudaFree(d_flux));
    CUDA_CHECK(cudaFreeHost(h_flux));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
