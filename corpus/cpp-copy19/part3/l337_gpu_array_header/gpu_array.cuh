#pragma once
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

namespace gpu {

inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(EXIT_FAILURE);
    }
}

// Owning, move-only device array.
template <typename T>
class Array {
public:
    Array() = default;
    explicit Array(std::size_t n) : n_(n) { check(cudaMalloc(&data_, n * sizeof(T)), "cudaMalloc"); }
    ~Array() { release(); }

    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;
    Array(Array&& other) noexcept : data_(other.data_), n_(other.n_) {
        other.data_ = nullptr;
        other.n_ = 0;
    }
    Array& operator=(Array&& other) noexcept {
        if (this != &other) {
            release();
            data_ = other.data_;
            n_ = other.n_;
            other.data_ = nullptr;
            other.n_ = 0;
        }
        return *this;
    }

    void copy_from_host(const T* src) {
        check(cudaMemcpy(data_, src, n_ * sizeof(T), cudaMemcpyHostToDevice), "H2D");
    }
    void copy_to_host(T* dst) const {
        check(cudaMemcpy(dst, data_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "D2H");
    }
    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return n_; }

private:
    void release() {
        if (data_) cudaFree(data_);
        data_ = nullptr;
    }
    T* data_ = nullptr;
    std::size_t n_ = 0;
};

}  // namespace gpu
