// case: an inference Engine runs its virtual Layer stack on a stream, copies the logits into a pinned buffer with cudaMemcpyAsync and computes the argmax from that buffer before it synchronizes the stream.
// expect: missing_sync=1
#include "layers.cuh"
#include <cstdio>
#include <memory>
#include <vector>

static int argmax(const float* v, int n) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (v[i] > v[best]) best = i;
    return best;
}

class Engine {
public:
    Engine(int in, int hidden, int classes) : in_(in), logits_(classes) {
        layers_.push_back(std::make_unique<Dense>(in, hidden));
        layers_.push_back(std::make_unique<Relu>(hidden));
        layers_.push_back(std::make_unique<Dense>(hidden, classes));
        ENGINE_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        ENGINE_CHECK(cudaMalloc(&act_a_, sizeof(float) * hidden * 4));
        ENGINE_CHECK(cudaMalloc(&act_b_, sizeof(float) * hidden * 4));
    }
    ~Engine() {
        cudaStreamSynchronize(stream_);
        cudaFree(act_a_);
        cudaFree(act_b_);
        cudaStreamDestroy(stream_);
    }

    int infer(PinnedBuffer<float>& input) {
        ENGINE_CHECK(cudaMemcpyAsync(act_a_, input.data(), sizeof(float) * in_,
                                     cudaMemcpyHostToDevice, stream_));
        float* src = act_a_;
        float* dst = act_b_;
        for (auto& layer : layers_) {
            layer->forward(src, dst, stream_);
            std::swap(src, dst);
        }
        ENGINE_CHECK(cudaMemcpyAsync(logits_.data(), src, sizeof(float) * logits_.size(),
                                     cudaMemcpyDeviceToHost, stream_));
        int best = argmax(logits_.data(), static_cast<int>(logits_.size()));
        ENGINE_CHECK(cudaStreamSynchronize(stream_));
        return best;
    }

private:
    int in_;
    std::vector<std::unique_ptr<Layer>> layers_;
    PinnedBuffer<float> logits_;
    cudaStream_t stream_{};
    float* act_a_ = nullptr;
    float* act_b_ = nullptr;
};

int main() {
    Engine engine(4096, 4096, 1000);
    PinnedBuffer<float> input(4096);
    for (size_t i = 0; i < input.size(); ++i) input[i] = 1.0f / (1 + i);
    for (int request = 0; request < 3; ++request)
        std::printf("request %d -> class %d\n", request, engine.infer(input));
    return 0;
}
