// Constructors of one arity: the one whose parameters take the arguments (a vector for
// `const std::vector<T>&`, a count for `size_t`). Lines that must be reported end with an
// annotation; ok_* functions stay silent.
#include <cuda_runtime.h>
#include <vector>

template <typename T>
class DeviceArray {
  public:
    explicit DeviceArray(size_t n) : n_(n) { cudaMalloc(&ptr_, n * sizeof(T)); }
    DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }
    ~DeviceArray() { cudaFree(ptr_); }
    void upload(const std::vector<T>& host) { cudaMemcpy(ptr_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice); }
    T* get() { return ptr_; }

  private:
    T* ptr_ = nullptr;
    size_t n_;
};

__global__ void copy_through(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

void ok_built_from_a_vector(int n) {
    std::vector<double> x0(n, 1.0);
    DeviceArray<double> x(x0);
    DeviceArray<double> y(n);
    copy_through<<<(n + 255) / 256, 256>>>(x.get(), y.get(), n);
    cudaDeviceSynchronize();
}

void read_before_anything_was_written(int n) {
    DeviceArray<double> x(n);
    DeviceArray<double> y(n);
    copy_through<<<(n + 255) / 256, 256>>>(x.get(), y.get(), n); //~ uninitialized_device_read
    cudaDeviceSynchronize();
}
