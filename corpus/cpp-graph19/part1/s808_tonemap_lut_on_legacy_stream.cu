// Tone-mapping stage of a video encoder front end. The per-frame work (upload, tone map
// through a gamma lookup table, download) is recorded on a non-blocking stream. The lookup
// table is built while the graph is recorded by a kernel on the legacy default stream: that
// kernel is not part of the recording (the capturing stream does not synchronize with the
// legacy stream) and simply runs; the device is synchronized before the first replay.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t s_ = (call);                                                        \
        if (s_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(s_)); \
            std::exit(1);                                                               \
        }                                                                               \
    } while (0)

constexpr int kLutSize = 4096;

__global__ void build_gamma_lut(unsigned char* lut, int size, float gamma, float white) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    float x = (i + 0.5f) / size * white;
    float mapped = x / (1.0f + x);  // Reinhard
    lut[i] = static_cast<unsigned char>(255.0f * powf(mapped, 1.0f / gamma) + 0.5f);
}

__global__ void tonemap(const float* __restrict__ hdr, const unsigned char* __restrict__ lut,
                        unsigned char* __restrict__ ldr, int count, float white) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    float v = hdr[i] / white;
    int idx = static_cast<int>(v * kLutSize);
    idx = idx < 0 ? 0 : (idx >= kLutSize ? kLutSize - 1 : idx);
    ldr[i] = lut[idx];
}

struct FrameBuffers {
    float* h_hdr;
    unsigned char* h_ldr;
    float* d_hdr;
    unsigned char* d_ldr;
    unsigned char* d_lut;
};

int main() {
    const int width = 3840, height = 2160, channels = 3;
    const int count = width * height * channels;
    const float white = 16.0f;

    cudaStream_t stream;
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    FrameBuffers fb{};
    CK(cudaMallocHost(&fb.h_hdr, count * sizeof(float)));
    CK(cudaMallocHost(&fb.h_ldr, count));
    CK(cudaMalloc(&fb.d_hdr, count * sizeof(float)));
    CK(cudaMalloc(&fb.d_ldr, count));
    CK(cudaMalloc(&fb.d_lut, kLutSize));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CK(cudaMemcpyAsync(fb.d_hdr, fb.h_hdr, count * sizeof(float), cudaMemcpyHostToDevice, stream));
    // Legacy default stream, outside the recording: runs now, once.
    build_gamma_lut<<<(kLutSize + 255) / 256, 256>>>(fb.d_lut, kLutSize, 2.2f, white);
    CK(cudaGetLastError());
    tonemap<<<(count + 255) / 256, 256, 0, stream>>>(fb.d_hdr, fb.d_lut, fb.d_ldr, count, white);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(fb.h_ldr, fb.d_ldr, count, cudaMemcpyDeviceToHost, stream));
    CK(cudaStreamEndCapture(stream, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    CK(cudaDeviceSynchronize());  // the table is ready before any replay reads it

    for (int frame = 0; frame < 48; ++frame) {
        for (int i = 0; i < count; ++i)
            fb.h_hdr[i] = 0.002f * ((i * 7 + frame * 13) % 8000) * (1.0f + (i % 3) * 0.1f);
        CK(cudaGraphLaunch(exec, stream));
        CK(cudaStreamSynchronize(stream));
        unsigned long long sum = 0;
        for (int i = 0; i < count; i += 997) sum += fb.h_ldr[i];
        if (frame % 12 == 0) std::printf("frame %2d: sampled luma sum %llu\n", frame, sum);
    }

    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    CK(cudaFree(fb.d_lut));
    CK(cudaFree(fb.d_ldr));
    CK(cudaFree(fb.d_hdr));
    CK(cudaFreeHost(fb.h_ldr));
    CK(cudaFreeHost(fb.h_hdr));
    CK(cudaStreamDestroy(stream));
    return 0;
}
