// case: A double-buffered spectrogram pipeline records an event per slot after each slot's download, waits on that slot's event before refilling its pinned input, reads each slot's pinned output only after its event has completed (cudaEventSynchronize, or a cudaEventQuery poll for the last one), and synchronizes before freeing; correct.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kFrameLen = 1 << 16;
constexpr int kBands = 64;
constexpr int kSlots = 2;

__global__ void band_energy(const float* __restrict__ frame, float* __restrict__ bands) {
    __shared__ float acc[256];
    int band = blockIdx.x;
    int per = kFrameLen / kBands;
    float s = 0.0f;
    for (int i = threadIdx.x; i < per; i += blockDim.x) {
        float v = frame[band * per + i];
        s += v * v;
    }
    acc[threadIdx.x] = s;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) acc[threadIdx.x] += acc[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) bands[band] = 10.0f * log10f(acc[0] + 1e-12f);
}

struct Slot {
    float* h_in = nullptr;
    float* h_out = nullptr;
    float* d_in = nullptr;
    float* d_out = nullptr;
    cudaEvent_t done = nullptr;
};

static void report(int frame, const Slot& s) {
    float peak = s.h_out[0];
    int peak_band = 0;
    for (int b = 1; b < kBands; ++b)
        if (s.h_out[b] > peak) { peak = s.h_out[b]; peak_band = b; }
    std::printf("frame %3d: loudest band %2d (%.1f dB)\n", frame, peak_band, peak);
}

int main() {
    const int frames = 100;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    Slot slots[kSlots];
    for (Slot& s : slots) {
        CUDA_CHECK(cudaMallocHost(&s.h_in, kFrameLen * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&s.h_out, kBands * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&s.d_in, kFrameLen * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&s.d_out, kBands * sizeof(float)));
        CUDA_CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
    }

    for (int f = 0; f < frames; ++f) {
        Slot& s = slots[f % kSlots];
        if (f >= kSlots) CUDA_CHECK(cudaEventSynchronize(s.done));  // slot's previous frame is finished
        for (int i = 0; i < kFrameLen; ++i)
            s.h_in[i] = std::sin(0.001f * i * (1 + f % 7)) * std::exp(-0.00001f * i);
        CUDA_CHECK(cudaMemcpyAsync(s.d_in, s.h_in, kFrameLen * sizeof(float), cudaMemcpyHostToDevice, stream));
        band_energy<<<kBands, 256, 0, stream>>>(s.d_in, s.d_out);
        CUDA_CHECK(cudaMemcpyAsync(s.h_out, s.d_out, kBands * sizeof(float), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaEventRecord(s.done, stream));

        if (f >= 1) {  // consume the previous frame while this one runs
            Slot& prev = slots[(f - 1) % kSlots];
            CUDA_CHECK(cudaEventSynchronize(prev.done));
            if ((f - 1) % 25 == 0) report(f - 1, prev);
        }
    }
    CUDA_CHECK(cudaGetLastError());

    Slot& last = slots[(frames - 1) % kSlots];
    while (cudaEventQuery(last.done) == cudaErrorNotReady) std::this_thread::yield();
    report(frames - 1, last);

    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (Slot& s : slots) {
        CUDA_CHECK(cudaEventDestroy(s.done));
        CUDA_CHECK(cudaFree(s.d_out));
        CUDA_CHECK(cudaFree(s.d_in));
        CUDA_CHECK(cudaFreeHost(s.h_out));
        CUDA_CHECK(cudaFreeHost(s.h_in));
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
