#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CSR_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)

// Owning wrapper around one cudaMalloc'd array.
template <typename T>
class DeviceArray {
public:
    explicit DeviceArray(size_t n) : n_(n) { CSR_CHECK(cudaMalloc(&ptr_, n * sizeof(T))); }
    DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }
    ~DeviceArray() { if (ptr_) cudaFree(ptr_); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;

    void upload(const std::vector<T>& host) {
        CSR_CHECK(cudaMemcpy(ptr_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    void download(std::vector<T>& host) const {
        host.resize(n_);
        CSR_CHECK(cudaMemcpy(host.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    }
    T* get() { return ptr_; }
    const T* get() const { return ptr_; }
    size_t size() const { return n_; }

private:
    T* ptr_ = nullptr;
    size_t n_ = 0;
};

struct CsrMatrix {
    int rows, cols;
    DeviceArray<int> row_ptr;
    DeviceArray<int> col_idx;
    DeviceArray<double> vals;

    CsrMatrix(int r, int c, const std::vector<int>& rp, const std::vector<int>& ci,
              const std::vector<double>& v)
        : rows(r), cols(c), row_ptr(rp), col_idx(ci), vals(v) {}
};
