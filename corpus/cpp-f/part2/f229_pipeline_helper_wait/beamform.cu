// case: A delay-and-sum beamformer stage hands its pinned output to a std::function callback only after a header helper (pl::drain) synchronizes the stream, and its second pass reads the pinned buffer after a cudaStreamQuery polling loop.
// expect: none
#include "pipeline.cuh"
#include <cmath>
#include <vector>

__global__ void delay_and_sum(float* out, size_t n_out, int channels, float spacing, float angle) {
    size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (t >= n_out) return;
    float acc = 0.f;
    for (int ch = 0; ch < channels; ++ch) {
        float delay = ch * spacing * __sinf(angle);
        float phase = 0.05f * (float(t) - delay);
        acc += __cosf(phase);
    }
    out[t] = acc / channels;
}

__global__ void envelope(float* x, size_t n) {
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) x[i] = fabsf(x[i]);
}

class Beamformer : public pl::Stage {
public:
    Beamformer(size_t n, int channels, float angle, Callback cb)
        : Stage(n, std::move(cb)), channels_(channels), angle_(angle) {}

    float peak_after_envelope(size_t n) {
        envelope<<<unsigned((n + 255) / 256), 256, 0, stream()>>>(device(), n);
        PL_CHECK(cudaMemcpyAsync(host(), device(), n * sizeof(float), cudaMemcpyDeviceToHost, stream()));
        pl::poll_until_idle(stream());
        float peak = 0.f;
        for (size_t i = 0; i < n; ++i) peak = fmaxf(peak, host()[i]);
        return peak;
    }

protected:
    void enqueue(float* d, size_t n, cudaStream_t s) override {
        delay_and_sum<<<unsigned((n + 255) / 256), 256, 0, s>>>(d, n, channels_, 0.5f, angle_);
    }

private:
    int channels_;
    float angle_;
};

int main() {
    const size_t samples = size_t(1) << 22;
    std::vector<double> energies;
    auto collect = [&energies](const float* out, size_t n) {
        double e = 0.0;
        for (size_t i = 0; i < n; ++i) e += double(out[i]) * out[i];
        energies.push_back(e / n);
    };
    for (int a = -4; a <= 4; ++a) {
        Beamformer bf(samples, 64, 0.1f * a, collect);
        bf.run();
        float peak = bf.peak_after_envelope(samples);
        printf("angle %+.1f rad: energy %.4f, peak %.3f\n", 0.1f * a, energies.back(), peak);
    }
    return 0;
}
