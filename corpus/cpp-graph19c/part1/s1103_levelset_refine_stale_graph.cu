// case: a level-set advection solver captures its time step (upwind advection, narrow-band
//       clamp) into a graph; when the grid is refined the fields are prolongated into new
//       buffers and the coarse ones freed, but the old graph is replayed: its kernels still
//       name the freed coarse buffers
// expect: graph_uses_freed_memory=1
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "CUDA error %s (%s:%d): %s\n", #call, __FILE__,  \
                         __LINE__, cudaGetErrorString(e_));                        \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

namespace {

constexpr int kBlock = 16;

__global__ void init_disk(float* phi, int nx, int ny, float dx, float cx, float cy, float r) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const float x = i * dx - cx, y = j * dx - cy;
    phi[j * nx + i] = sqrtf(x * x + y * y) - r;  // signed distance, negative inside
}

// Solid-body rotation about the domain centre.
__global__ void init_rotation(float2* vel, int nx, int ny, float dx, float omega) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const float x = i * dx - 0.5f, y = j * dx - 0.5f;
    vel[j * nx + i] = make_float2(-omega * y, omega * x);
}

// First-order upwind advection of phi by vel into phi_out.
__global__ void advect_upwind(const float* __restrict__ phi, const float2* __restrict__ vel,
                              float* __restrict__ phi_out, int nx, int ny, float dt_dx) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    const int c = j * nx + i;
    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
        phi_out[c] = phi[c];
        return;
    }
    const float2 u = vel[c];
    const float ddx = u.x > 0.0f ? phi[c] - phi[c - 1] : phi[c + 1] - phi[c];
    const float ddy = u.y > 0.0f ? phi[c] - phi[c - nx] : phi[c + nx] - phi[c];
    phi_out[c] = phi[c] - dt_dx * (u.x * ddx + u.y * ddy);
}

// Keep phi a distance function only in a narrow band around the interface.
__global__ void clamp_band(const float* __restrict__ phi_in, float* __restrict__ phi, int n,
                           float band) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) phi[k] = fminf(fmaxf(phi_in[k], -band), band);
}

// Bilinear prolongation from a coarse grid onto a grid twice as fine.
__global__ void prolong_bilinear(const float* __restrict__ coarse, int ncx, int ncy,
                                 float* __restrict__ fine, int nfx, int nfy) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nfx || j >= nfy) return;
    const float xc = fminf(0.5f * i, ncx - 1.001f), yc = fminf(0.5f * j, ncy - 1.001f);
    const int i0 = static_cast<int>(xc), j0 = static_cast<int>(yc);
    const float tx = xc - i0, ty = yc - j0;
    const float a = coarse[j0 * ncx + i0], b = coarse[j0 * ncx + i0 + 1];
    const float c = coarse[(j0 + 1) * ncx + i0], d = coarse[(j0 + 1) * ncx + i0 + 1];
    fine[j * nfx + i] = (1 - ty) * ((1 - tx) * a + tx * b) + ty * ((1 - tx) * c + tx * d);
}

// max |u| over the grid, as the bit pattern of a non-negative float.
__global__ void max_speed(const float2* __restrict__ vel, int n, int* max_bits) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const float2 u = vel[k];
    atomicMax(max_bits, __float_as_int(sqrtf(u.x * u.x + u.y * u.y)));
}

class LevelSetSolver {
public:
    LevelSetSolver(int n, float omega, float cfl) : nx_(n), ny_(n), omega_(omega), cfl_(cfl) {
        dx_ = 1.0f / static_cast<float>(n - 1);
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMallocHost(&h_scalar_, sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_scalar_, sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_phi_, cells() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_tmp_, cells() * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_vel_, cells() * sizeof(float2)));
        init_disk<<<grid(), block(), 0, stream_>>>(d_phi_, nx_, ny_, dx_, 0.5f, 0.75f, 0.15f);
        init_rotation<<<grid(), block(), 0, stream_>>>(d_vel_, nx_, ny_, dx_, omega_);
        CUDA_CHECK(cudaGetLastError());
        update_time_step();
    }

    ~LevelSetSolver() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (exec_ != nullptr) CUDA_CHECK(cudaGraphExecDestroy(exec_));
        if (graph_ != nullptr) CUDA_CHECK(cudaGraphDestroy(graph_));
        CUDA_CHECK(cudaFree(d_phi_));
        CUDA_CHECK(cudaFree(d_tmp_));
        CUDA_CHECK(cudaFree(d_vel_));
        CUDA_CHECK(cudaFree(d_scalar_));
        CUDA_CHECK(cudaFreeHost(h_scalar_));
        CUDA_CHECK(cudaStreamDestroy(stream_));
    }

    LevelSetSolver(const LevelSetSolver&) = delete;
    LevelSetSolver& operator=(const LevelSetSolver&) = delete;

    size_t cells() const { return static_cast<size_t>(nx_) * static_cast<size_t>(ny_); }
    int nx() const { return nx_; }
    float dx() const { return dx_; }

    void capture_step() {
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        advect_upwind<<<grid(), block(), 0, stream_>>>(d_phi_, d_vel_, d_tmp_, nx_, ny_, dt_ / dx_);
        clamp_band<<<(static_cast<int>(cells()) + 255) / 256, 256, 0, stream_>>>(d_tmp_, d_phi_, static_cast<int>(cells()), 6.0f * dx_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph_));
        CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
    }

    void advance(int steps) {
        for (int s = 0; s < steps; ++s) {
            CUDA_CHECK(cudaGraphLaunch(exec_, stream_));  // EXPECT: graph_uses_freed_memory
        }
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        time_ += steps * dt_;
    }

    // Doubles the resolution: phi is prolongated, the velocity re-evaluated on the fine grid.
    void refine() {
        const int nxf = 2 * nx_ - 1, nyf = 2 * ny_ - 1;
        const size_t fine_cells = static_cast<size_t>(nxf) * static_cast<size_t>(nyf);
        const float dxf = 0.5f * dx_;
        float* phi_f = nullptr;
        float* tmp_f = nullptr;
        float2* vel_f = nullptr;
        CUDA_CHECK(cudaMalloc(&phi_f, fine_cells * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&tmp_f, fine_cells * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&vel_f, fine_cells * sizeof(float2)));

        const dim3 gf((nxf + kBlock - 1) / kBlock, (nyf + kBlock - 1) / kBlock);
        prolong_bilinear<<<gf, block(), 0, stream_>>>(d_phi_, nx_, ny_, phi_f, nxf, nyf);
        init_rotation<<<gf, block(), 0, stream_>>>(vel_f, nxf, nyf, dxf, omega_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaStreamSynchronize(stream_));

        CUDA_CHECK(cudaFree(d_phi_));
        CUDA_CHECK(cudaFree(d_tmp_));
        CUDA_CHECK(cudaFree(d_vel_));
        d_phi_ = phi_f;
        d_tmp_ = tmp_f;
        d_vel_ = vel_f;
        nx_ = nxf;
        ny_ = nyf;
        dx_ = dxf;
        update_time_step();
    }

    // h_phi: pinned, cells() floats.
    void download(float* h_phi) {
        CUDA_CHECK(cudaMemcpyAsync(h_phi, d_phi_, cells() * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    float time() const { return time_; }

private:
    dim3 block() const { return dim3(kBlock, kBlock); }
    dim3 grid() const { return dim3((nx_ + kBlock - 1) / kBlock, (ny_ + kBlock - 1) / kBlock); }

    // dt from the CFL condition on the current grid.
    void update_time_step() {
        CUDA_CHECK(cudaMemsetAsync(d_scalar_, 0, sizeof(int), stream_));
        max_speed<<<(static_cast<int>(cells()) + 255) / 256, 256, 0, stream_>>>(d_vel_, static_cast<int>(cells()), d_scalar_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_scalar_, d_scalar_, sizeof(int), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        float umax = 0.0f;
        static_assert(sizeof(float) == sizeof(int), "bit cast");
        std::memcpy(&umax, h_scalar_, sizeof(float));
        dt_ = cfl_ * dx_ / (umax > 1e-6f ? umax : 1e-6f);
        std::printf("grid %dx%d  max|u| %.3f  dt %.3e\n", nx_, ny_, umax, dt_);
    }

    int nx_, ny_;
    float dx_ = 0.0f, dt_ = 0.0f, time_ = 0.0f;
    float omega_, cfl_;
    cudaStream_t stream_ = nullptr;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    float* d_phi_ = nullptr;
    float* d_tmp_ = nullptr;
    float2* d_vel_ = nullptr;
    int* d_scalar_ = nullptr;
    int* h_scalar_ = nullptr;
};

// Area of the region phi < 0, in domain units.
double enclosed_area(const float* phi, size_t cells, float dx) {
    size_t inside = 0;
    for (size_t c = 0; c < cells; ++c) inside += phi[c] < 0.0f ? 1 : 0;
    return static_cast<double>(inside) * dx * dx;
}

}  // namespace

int main() {
    const float omega = 2.0f * 3.14159265f;  // one revolution per time unit
    LevelSetSolver solver(257, omega, 0.45f);
    solver.capture_step();
    solver.advance(400);

    // The disk has rotated into the region of interest: refine before the next quarter turn.
    solver.refine();
    solver.advance(800);

    float* h_phi = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_phi, solver.cells() * sizeof(float)));
    solver.download(h_phi);
    std::printf("t = %.3f  enclosed area %.5f (exact %.5f)\n", solver.time(),
                enclosed_area(h_phi, solver.cells(), solver.dx()), 3.14159265 * 0.15 * 0.15);
    CUDA_CHECK(cudaFreeHost(h_phi));
    return 0;
}
