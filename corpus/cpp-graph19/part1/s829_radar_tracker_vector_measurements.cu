// Radar tracker: a bank of constant-velocity Kalman filters, one per target, updated once per
// scan. The scan's measurements are written into a std::vector that lives for the whole run,
// and the recorded graph uploads them and runs the predict/update kernel; the track states
// come back into pinned memory for the display.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "tracker: %s (%s:%d)\n", cudaGetErrorString(e_),         \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

struct Track {
    float x, y, vx, vy;
    float pxx, pyy, pvv;  // diagonal covariance (position x, position y, velocity)
    float pad;
};

__global__ void kalman_step(Track* __restrict__ tracks, const float* __restrict__ meas, int n,
                            float dt, float q, float r) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Track t = tracks[i];
    // Predict.
    t.x += dt * t.vx;
    t.y += dt * t.vy;
    t.pxx += dt * dt * t.pvv + q;
    t.pyy += dt * dt * t.pvv + q;
    t.pvv += q;
    // Update with the measured position.
    float kx = t.pxx / (t.pxx + r), ky = t.pyy / (t.pyy + r);
    float ix = meas[2 * i] - t.x, iy = meas[2 * i + 1] - t.y;
    t.x += kx * ix;
    t.y += ky * iy;
    t.vx += 0.1f * kx * ix / dt;
    t.vy += 0.1f * ky * iy / dt;
    t.pxx *= 1.0f - kx;
    t.pyy *= 1.0f - ky;
    tracks[i] = t;
}

int main(int argc, char** argv) {
    const int targets = argc > 1 ? std::atoi(argv[1]) : 50000;
    const float dt = 0.1f;
    const size_t meas_bytes = sizeof(float) * 2 * targets;
    const size_t track_bytes = sizeof(Track) * targets;

    std::vector<float> measurements(2 * static_cast<size_t>(targets));
    std::vector<Track> init(targets);
    for (int i = 0; i < targets; ++i) init[i] = Track{i * 10.0f, 0.0f, 0.0f, 5.0f, 100.0f, 100.0f, 25.0f, 0.0f};

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    Track *d_tracks, *h_tracks;
    float* d_meas;
    CUDA_CHECK(cudaMalloc(&d_tracks, track_bytes));
    CUDA_CHECK(cudaMalloc(&d_meas, meas_bytes));
    CUDA_CHECK(cudaMallocHost(&h_tracks, track_bytes));
    CUDA_CHECK(cudaMemcpy(d_tracks, init.data(), track_bytes, cudaMemcpyHostToDevice));

    cudaGraph_t graph;
    cudaGraphExec_t scan_exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_meas, measurements.data(), meas_bytes, cudaMemcpyHostToDevice, stream));  // EXPECT: pageable_async_copy
    kalman_step<<<(targets + 255) / 256, 256, 0, stream>>>(d_tracks, d_meas, targets, dt, 0.5f, 4.0f);
    CUDA_CHECK(cudaMemcpyAsync(h_tracks, d_tracks, track_bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&scan_exec, graph, 0));

    for (int scan = 1; scan <= 600; ++scan) {
        for (int i = 0; i < targets; ++i) {  // the radar's detections for this scan
            measurements[2 * i] = i * 10.0f + 0.3f * ((i + scan) % 7 - 3);
            measurements[2 * i + 1] = 5.0f * dt * scan + 0.3f * ((i * 3 + scan) % 5 - 2);
        }
        CUDA_CHECK(cudaGraphLaunch(scan_exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        if (scan % 100 == 0)
            std::printf("scan %d: track 0 at (%.2f, %.2f), v = %.2f\n", scan, h_tracks[0].x,
                        h_tracks[0].y, h_tracks[0].vy);
    }

    CUDA_CHECK(cudaGraphExecDestroy(scan_exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_tracks));
    CUDA_CHECK(cudaFree(d_meas));
    CUDA_CHECK(cudaFree(d_tracks));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
