#pragma once
#include <cuda_runtime.h>
#include <cstddef>
#include <stdexcept>
#include <utility>

#define DB_CUDA_CHECK(expr)                                                     \
    do {                                                                        \
        cudaError_t e_ = (expr);                                                \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_)); \
    } while (0)

namespace gdb {

// A column of a GPU-resident table: the values live in device memory.
template <typename T>
class DeviceColumn {
public:
    explicit DeviceColumn(size_t rows) : rows_(rows) {
        DB_CUDA_CHECK(cudaMalloc(&data_, rows * sizeof(T)));
    }
    DeviceColumn(DeviceColumn&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), rows_(std::exchange(other.rows_, 0)) {}
    DeviceColumn& operator=(DeviceColumn&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(rows_, other.rows_);
        return *this;
    }
    DeviceColumn(const DeviceColumn&) = delete;
    ~DeviceColumn() { if (data_) cudaFree(data_); }

    T* data() { return data_; }
    const T* data() const { return data_; }
    size_t rows() const { return rows_; }
    size_t bytes() const { return rows_ * sizeof(T); }

    // Element access (meant for debugging small tables).
    const T& operator[](size_t row) const { return data_[row]; }

private:
    T* data_ = nullptr;
    size_t rows_ = 0;
};

}  // namespace gdb
