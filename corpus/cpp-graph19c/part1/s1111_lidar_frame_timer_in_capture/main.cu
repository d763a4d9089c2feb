// case: a lidar preprocessing pipeline whose per-frame enqueue function times itself with
//       an RAII timer (event record in the constructor, record + cudaEventSynchronize in
//       the destructor); the same function is then called inside a stream capture to build
//       the frame graph, so the timer's destructor synchronizes an event recorded during
//       the capture
// expect: uncapturable_call=1
#include <cmath>
#include <cstdio>
#include <random>
#include "cuda_check.h"
#include "lidar_pipeline.cuh"

namespace {

// One revolution of a synthetic 64-beam sensor over a street with a few obstacles.
void simulate_sweep(float4* points, int n, int frame, std::mt19937& rng) {
    std::uniform_real_distribution<float> jitter(-0.05f, 0.05f);
    const int beams = 64;
    const int per_beam = n / beams;
    for (int k = 0; k < n; ++k) {
        const int beam = (k / per_beam) % beams;
        const float az = 6.2831853f * (k % per_beam) / per_beam;
        const float el = -0.4f + 0.45f * beam / beams;
        float range = 1.7f / std::fmax(0.02f, -std::sin(el));  // ground hit
        if (std::fabs(az - 0.5f - 0.01f * frame) < 0.1f) range = std::fmin(range, 14.0f);  // car
        if (std::fabs(az - 3.5f) < 0.05f) range = std::fmin(range, 32.0f);                 // pole
        range = std::fmin(range + jitter(rng), 119.0f);
        points[k] = make_float4(range * std::cos(el) * std::cos(az),
                                range * std::cos(el) * std::sin(az), range * std::sin(el),
                                0.3f + 0.1f * beam / beams);
    }
}

}  // namespace

int main() {
    const int points = 64 * 2048;
    const int frames = 100;
    Extrinsics sensor_to_vehicle = {{1, 0, 0, 1.2f, 0, 1, 0, 0.0f, 0, 0, 1, 1.9f}};
    std::mt19937 rng(99);

    LidarPipeline pipeline(points, sensor_to_vehicle);
    simulate_sweep(pipeline.input(), points, 0, rng);
    pipeline.process_first_frame();

    unsigned long long kept = 0;
    for (int frame = 1; frame < frames; ++frame) {
        simulate_sweep(pipeline.input(), points, frame, rng);
        pipeline.process_frame();
        const unsigned int* hist = pipeline.histogram();
        int nearest = -1;
        for (int b = 0; b < kRangeBins; ++b) {
            kept += hist[b];
            if (nearest < 0 && hist[b] > 200u) nearest = b;
        }
        if (frame % 20 == 0 && nearest >= 0)
            std::printf("frame %3d: nearest dense bin at %.1f m\n", frame,
                        (nearest + 0.5f) * kMaxRange / kRangeBins);
    }
    std::printf("%llu returns kept; mean frame time %.3f ms over %d timed frames\n", kept,
                pipeline.timing().mean_ms(), pipeline.timing().samples);
    return 0;
}
