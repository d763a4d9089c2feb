// device_memory_leak: an allocation whose last pointer is lost before it was released.
#include <cuda_runtime.h>
#include <cstdlib>
#include <memory>

#define N 4096

void take_ownership(float* d);

int fires_early_return_skips_the_free(const float* h) {
    float* d;
    cudaMalloc(&d, N * sizeof(float)); //~ device_memory_leak
    if (cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {
        return -1;
    }
    cudaFree(d);
    return 0;
}

void fires_pinned_staging_never_freed(const float* d) {
    float* h;
    cudaMallocHost(&h, N * sizeof(float)); //~ device_memory_leak
    cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost);
}

int ok_freed_on_every_path(const float* h) {
    float* d;
    if (cudaMalloc(&d, N * sizeof(float)) != cudaSuccess) {
        return -1;
    }
    if (cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {
        cudaFree(d);
        return -1;
    }
    cudaFree(d);
    return 0;
}

float* ok_returned_to_the_caller() {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    return d;
}

static void alloc_out(float** p) {
    cudaMalloc((void**)p, N * sizeof(float));
}

void ok_handed_to_an_unseen_owner() {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    take_ownership(d);
}

struct Deleter {
    void operator()(float* p) const { cudaFree(p); }
};

void ok_owned_by_a_unique_ptr() {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    std::unique_ptr<float, Deleter> owner(d);
}

void ok_exit_on_error() {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    if (cudaMemset(d, 0, N * sizeof(float)) != cudaSuccess) {
        exit(1);
    }
    cudaFree(d);
}

class Buffer {
public:
    Buffer() { cudaMalloc(&d_, N * sizeof(float)); }
    ~Buffer() { cudaFree(d_); }
    float* get() { return d_; }
private:
    float* d_;
};

void ok_raii_member() {
    Buffer b;
    cudaMemset(b.get(), 0, N * sizeof(float));
}

void fires_allocation_in_a_loop_without_a_free(const float* h, int batches) {
    for (int b = 0; b < batches; ++b) {
        float* d;
        cudaMalloc(&d, N * sizeof(float)); //~ device_memory_leak
        cudaMemcpy(d, h + b * N, N * sizeof(float), cudaMemcpyHostToDevice);
    }
}

void ok_allocation_in_a_loop_freed_each_round(const float* h, int batches) {
    for (int b = 0; b < batches; ++b) {
        float* d;
        cudaMalloc(&d, N * sizeof(float));
        cudaMemcpy(d, h + b * N, N * sizeof(float), cudaMemcpyHostToDevice);
        cudaFree(d);
    }
}

int ok_main_style_failure_exit_is_the_process_end() {
    float* d;
    cudaMalloc(&d, N * sizeof(float));
    if (cudaMemset(d, 0, N * sizeof(float)) != cudaSuccess) {
        exit(1);
    }
    cudaFree(d);
    return 0;
}

int* d_table;

int main(int argc, char** argv) {
    cudaMalloc(&d_table, N * sizeof(int)); //~ device_memory_leak
    float* early;
    cudaMalloc(&early, N * sizeof(float));
    if (argc > 3) {
        return 1; // a failure exit: the process ends, nothing to report
    }
    cudaFree(early);
    float* scratch;
    alloc_out(&scratch);
    cudaMemset(d_table, 0, N * sizeof(int));
    cudaMemset(scratch, 0, N * sizeof(float));
    cudaFree(scratch);
    return 0;
}
