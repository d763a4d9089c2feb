// Delay-and-sum beamformer for a hydrophone array. The acquisition library hands over
// ordinary malloc'd buffers; the program page-locks them in place with cudaHostRegister
// before it records the per-block graph (upload the block, form the beams, download the beam
// powers), and unregisters them only after the last replay and the graph are gone.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "beamformer: %s (%s:%d)\n", cudaGetErrorString(e_),      \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

constexpr int kSensors = 64;
constexpr int kBeams = 181;  // -90..90 degrees

// Stand-in for the acquisition library's buffer allocation.
static float* acquisition_buffer(size_t count) {
    return static_cast<float*>(std::malloc(count * sizeof(float)));
}

__global__ void delay_and_sum(const float* __restrict__ samples, float* __restrict__ power,
                              int block_len, float spacing_over_c, float fs) {
    int beam = blockIdx.x;
    float theta = (beam - 90) * 0.0174532925f;
    float acc = 0.0f;
    for (int t = threadIdx.x; t < block_len; t += blockDim.x) {
        float sum = 0.0f;
        for (int s = 0; s < kSensors; ++s) {
            int delay = static_cast<int>(s * spacing_over_c * sinf(theta) * fs);
            int src = t - delay;
            if (src >= 0 && src < block_len) sum += samples[s * block_len + src];
        }
        acc += sum * sum;
    }
    atomicAdd(&power[beam], acc / block_len);
}

int main(int argc, char** argv) {
    const int block_len = argc > 1 ? std::atoi(argv[1]) : 16384;
    const float fs = 48000.0f, spacing_over_c = 0.75f / 1500.0f;
    const size_t sample_count = static_cast<size_t>(kSensors) * block_len;
    const size_t sample_bytes = sample_count * sizeof(float);
    const size_t power_bytes = kBeams * sizeof(float);

    float* samples = acquisition_buffer(sample_count);
    float* beam_power = acquisition_buffer(kBeams);
    if (samples == nullptr || beam_power == nullptr) return 1;
    CUDA_CHECK(cudaHostRegister(samples, sample_bytes, cudaHostRegisterDefault));
    CUDA_CHECK(cudaHostRegister(beam_power, power_bytes, cudaHostRegisterDefault));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float *d_samples, *d_power;
    CUDA_CHECK(cudaMalloc(&d_samples, sample_bytes));
    CUDA_CHECK(cudaMalloc(&d_power, power_bytes));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_samples, samples, sample_bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemsetAsync(d_power, 0, power_bytes, stream));
    delay_and_sum<<<kBeams, 256, 0, stream>>>(d_samples, d_power, block_len, spacing_over_c, fs);
    CUDA_CHECK(cudaMemcpyAsync(beam_power, d_power, power_bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    for (int blk = 0; blk < 400; ++blk) {
        const float source_deg = -40.0f + 0.2f * blk;  // a slowly crossing target
        for (int s = 0; s < kSensors; ++s)
            for (int t = 0; t < block_len; ++t) {
                float delay = s * spacing_over_c * std::sin(source_deg * 0.0174532925f);
                samples[s * block_len + t] = std::sin(6.2831853f * 700.0f * (t / fs - delay));
            }
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        int best = 0;
        for (int b = 1; b < kBeams; ++b) best = beam_power[b] > beam_power[best] ? b : best;
        if (blk % 100 == 0) std::printf("block %d: bearing %d deg\n", blk, best - 90);
    }

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_power));
    CUDA_CHECK(cudaFree(d_samples));
    CUDA_CHECK(cudaHostUnregister(beam_power));
    CUDA_CHECK(cudaHostUnregister(samples));
    std::free(beam_power);
    std::free(samples);
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
