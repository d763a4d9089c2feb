// case: the particle-in-cell run of s1115 with two graphs captured up front: the step with
//       the field probe for the linear phase, the bare step for the nonlinear phase; the
//       probe object is deleted between the phases, and only the graph that never named
//       its buffers is replayed after that
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kGrid = 1024;  // cells; the field solve runs in one block of kGrid threads

// Cloud-in-cell deposit of electron number density (weight w per particle).
__global__ void deposit_cic(const float2* __restrict__ part, int np, float* __restrict__ ne,
                            float dx, float w) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    const float xg = part[p].x / dx;
    const int i = static_cast<int>(floorf(xg));
    const float f = xg - i;
    atomicAdd(&ne[i % kGrid], w * (1.0f - f));
    atomicAdd(&ne[(i + 1) % kGrid], w * f);
}

// Gauss's law dE/dx = 1 - ne (ions are a uniform background), periodic, zero-mean E.
__global__ void field_from_gauss(const float* __restrict__ ne, float* __restrict__ efield,
                                 float dx) {
    __shared__ float scan[kGrid];
    __shared__ float mean;
    const int i = threadIdx.x;
    scan[i] = (1.0f - ne[i]) * dx;
    __syncthreads();
    for (int off = 1; off < kGrid; off <<= 1) {
        const float add = i >= off ? scan[i - off] : 0.0f;
        __syncthreads();
        scan[i] += add;
        __syncthreads();
    }
    if (i == 0) {
        float s = 0.0f;
        for (int k = 0; k < kGrid; ++k) s += scan[k];
        mean = s / kGrid;
    }
    __syncthreads();
    efield[i] = scan[i] - mean;
}

// Leapfrog push of electrons (q/m = -1) with CIC field interpolation, periodic wrap.
__global__ void push(float2* __restrict__ part, int np, const float* __restrict__ efield,
                     float dx, float length, float dt) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    float2 s = part[p];
    const float xg = s.x / dx;
    const int i = static_cast<int>(floorf(xg));
    const float f = xg - i;
    const float e = (1.0f - f) * efield[i % kGrid] + f * efield[(i + 1) % kGrid];
    s.y -= e * dt;
    s.x += s.y * dt;
    s.x -= length * floorf(s.x / length);
    part[p] = s;
}

__global__ void probe_cells(int* idx, int count, int stride) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) idx[k] = k * stride;
}

__global__ void gather_probe(const float* __restrict__ efield, const int* __restrict__ idx,
                             float* __restrict__ samples, int count) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) samples[k] = efield[idx[k]];
}

class PicState {
public:
    PicState(int np, float length, cudaStream_t stream) : np_(np), length_(length), stream_(stream) {
        CUDA_CHECK(cudaMalloc(&d_part_, np_ * sizeof(float2)));
        CUDA_CHECK(cudaMalloc(&d_ne_, kGrid * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d_efield_, kGrid * sizeof(float)));
    }
    ~PicState() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        CUDA_CHECK(cudaFree(d_part_));
        CUDA_CHECK(cudaFree(d_ne_));
        CUDA_CHECK(cudaFree(d_efield_));
    }
    PicState(const PicState&) = delete;
    PicState& operator=(const PicState&) = delete;

    float dx() const { return length_ / kGrid; }
    const float* field() const { return d_efield_; }

    // h_part: pinned, np particles.
    void load(const float2* h_part) {
        CUDA_CHECK(cudaMemcpyAsync(d_part_, h_part, np_ * sizeof(float2), cudaMemcpyHostToDevice, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    void store(float2* h_part) {
        CUDA_CHECK(cudaMemcpyAsync(h_part, d_part_, np_ * sizeof(float2), cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    void record_step(float dt) {
        const int threads = 256;
        const int blocks = (np_ + threads - 1) / threads;
        CUDA_CHECK(cudaMemsetAsync(d_ne_, 0, kGrid * sizeof(float), stream_));
        deposit_cic<<<blocks, threads, 0, stream_>>>(d_part_, np_, d_ne_, dx(), static_cast<float>(kGrid) / np_);
        field_from_gauss<<<1, kGrid, 0, stream_>>>(d_ne_, d_efield_, dx());
        push<<<blocks, threads, 0, stream_>>>(d_part_, np_, d_efield_, dx(), length_, dt);
        CUDA_CHECK(cudaGetLastError());
    }

private:
    int np_;
    float length_;
    cudaStream_t stream_;
    float2* d_part_ = nullptr;
    float* d_ne_ = nullptr;
    float* d_efield_ = nullptr;
};

// Samples E at `count` evenly spaced cells every step; keeps the mean square per step.
class FieldProbe {
public:
    FieldProbe(int count, cudaStream_t stream) : count_(count), stream_(stream) {
        CUDA_CHECK(cudaMalloc(&d_idx_, count_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_samples_, count_ * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_samples_, count_ * sizeof(float)));
        probe_cells<<<1, 256, 0, stream_>>>(d_idx_, count_, kGrid / count_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    ~FieldProbe() {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        CUDA_CHECK(cudaFree(d_idx_));
        CUDA_CHECK(cudaFree(d_samples_));
        CUDA_CHECK(cudaFreeHost(h_samples_));
    }
    FieldProbe(const FieldProbe&) = delete;
    FieldProbe& operator=(const FieldProbe&) = delete;

    void record(const float* d_efield) {
        gather_probe<<<1, 256, 0, stream_>>>(d_efield, d_idx_, d_samples_, count_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_samples_, d_samples_, count_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    }

    // Call once the step that recorded has finished.
    void consume() {
        double s = 0.0;
        for (int k = 0; k < count_; ++k) s += static_cast<double>(h_samples_[k]) * h_samples_[k];
        energy_.push_back(s / count_);
    }

    const std::vector<double>& energy() const { return energy_; }

private:
    int count_;
    cudaStream_t stream_;
    int* d_idx_ = nullptr;
    float* d_samples_ = nullptr;
    float* h_samples_ = nullptr;
    std::vector<double> energy_;
};

int main() {
    const int np = 1 << 20;
    const float k0 = 0.8660254f;                // k v0 = sqrt(3)/2: fastest-growing mode for beams at +-1
    const float length = 2.0f * 3.14159265f / k0;
    const float dt = 0.1f;
    const int linear_steps = 300;
    const int total_steps = 1500;

    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float2* h_part = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_part, np * sizeof(float2)));
    std::mt19937 rng(5);
    std::normal_distribution<float> thermal(0.0f, 0.05f);
    for (int p = 0; p < np; ++p) {
        const float x0 = length * (p + 0.5f) / np;
        const float x = x0 + 1e-3f * std::cos(k0 * x0);  // seed the unstable mode
        h_part[p] = make_float2(x - length * std::floor(x / length), (p % 2 ? 1.0f : -1.0f) + thermal(rng));
    }

    {
        PicState pic(np, length, stream);
        pic.load(h_part);
        FieldProbe* probe = new FieldProbe(32, stream);

        // Two variants of the step: with the probe (linear phase), without (the rest).
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t probed_step = nullptr;
        cudaGraphExec_t bare_step = nullptr;
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        pic.record_step(dt);
        probe->record(pic.field());
        CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&probed_step, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        pic.record_step(dt);
        CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&bare_step, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));

        // Linear phase: field energy every step, for the growth rate.
        for (int s = 0; s < linear_steps; ++s) {
            CUDA_CHECK(cudaGraphLaunch(probed_step, stream));
            CUDA_CHECK(cudaStreamSynchronize(stream));
            probe->consume();
        }
        const std::vector<double>& we = probe->energy();
        const int a = linear_steps / 3, b = 2 * linear_steps / 3;
        const double gamma = 0.5 * std::log(we[b] / we[a]) / ((b - a) * dt);
        std::printf("field-energy growth rate %.4f (cold-beam theory 0.354)\n", gamma);
        delete probe;  // the diagnostic is no longer needed
        probe = nullptr;

        // Nonlinear phase: saturation and phase-space holes; only the end state matters.
        for (int s = linear_steps; s < total_steps; ++s) {
            CUDA_CHECK(cudaGraphLaunch(bare_step, stream));
        }
        CUDA_CHECK(cudaStreamSynchronize(stream));
        CUDA_CHECK(cudaGraphExecDestroy(probed_step));
        CUDA_CHECK(cudaGraphExecDestroy(bare_step));
        pic.store(h_part);
    }

    double kinetic = 0.0;
    for (int p = 0; p < np; ++p) kinetic += 0.5 * h_part[p].y * h_part[p].y;
    std::printf("kinetic energy per particle at the end: %.5f\n", kinetic / np);
    CUDA_CHECK(cudaFreeHost(h_part));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
