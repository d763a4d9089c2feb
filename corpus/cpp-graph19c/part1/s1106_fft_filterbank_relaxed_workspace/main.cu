// case: the batched cuFFT filter bank of s1105: the lazy cudaMalloc of cuFFT's work area
//       still happens inside the global-mode capture, but between two calls of
//       cudaThreadExchangeStreamCaptureMode that put the thread in relaxed mode for it
// expect: none
#include <cmath>
#include <cstdio>
#include <random>
#include "checks.h"
#include "filter_bank.cuh"

namespace {

// Synthetic ping: a tone inside the band on the channels that face the target, noise elsewhere.
void synthesize_ping(float* block, int n, int channels, int ping, std::mt19937& rng) {
    std::normal_distribution<float> noise(0.0f, 0.2f);
    const int target = (ping * 3) % channels;
    for (int c = 0; c < channels; ++c) {
        const float gain = std::abs(c - target) <= 2 ? 1.0f : 0.0f;
        for (int t = 0; t < n; ++t) {
            block[static_cast<size_t>(c) * n + t] =
                gain * std::sin(0.2f * 3.14159265f * t) + noise(rng);
        }
    }
}

}  // namespace

int main() {
    const int n = 4096;        // samples per channel and ping
    const int channels = 64;   // hydrophones
    const int pings = 32;
    std::mt19937 rng(1234);

    FilterBank bank(n, channels, 380, 440);  // 0.2 * n / 2 = bin 409
    synthesize_ping(bank.input(), n, channels, 0, rng);
    bank.build_graph();

    for (int ping = 0; ping < pings; ++ping) {
        if (ping > 0) synthesize_ping(bank.input(), n, channels, ping, rng);
        bank.process_ping();
        int best = 0;
        for (int c = 1; c < channels; ++c) {
            if (bank.energy()[c] > bank.energy()[best]) best = c;
        }
        std::printf("ping %2d: strongest channel %2d, band energy %.4f\n", ping, best,
                    bank.energy()[best]);
    }
    return 0;
}
