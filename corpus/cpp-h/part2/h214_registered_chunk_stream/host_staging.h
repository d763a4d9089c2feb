#pragma once
#include <cuda_runtime.h>
#include <functional>
#include <vector>

// A host vector page-locked in place with cudaHostRegister, so async copies from it DMA directly.
template <typename T>
class RegisteredBuffer {
public:
    explicit RegisteredBuffer(size_t n) : data_(n) {
        cudaHostRegister(data_.data(), n * sizeof(T), cudaHostRegisterDefault);
    }
    ~RegisteredBuffer() { cudaHostUnregister(data_.data()); }
    T* data() { return data_.data(); }
    size_t size() const { return data_.size(); }
    size_t bytes() const { return data_.size() * sizeof(T); }

private:
    std::vector<T> data_;
};


using ChunkSink = std::function<void(int chunk, double value)>;
