#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#define STAGE_CHECK(x)                                                                    \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) throw std::runtime_error(std::string(#x) + ": " + cudaGetErrorString(e_)); \
    } while (0)

struct FrameStats {
    uint64_t frames;
    uint64_t bytes_in;
    float last_exposure;
};

class Stage {
public:
    using Callback = std::function<void(const FrameStats&)>;
    virtual ~Stage() = default;
    virtual void run(const uint8_t* host_frame, cudaStream_t stream) = 0;
    void on_frame_done(Callback cb) { on_done_ = std::move(cb); }
protected:
    void notify(const FrameStats& s) { if (on_done_) on_done_(s); }
    Callback on_done_;
};
