// unchecked_cuda_result: a CUDA call's status dropped, or a kernel launch never checked.
//
// Fires (one finding per annotated line):
//   - a runtime call written as a statement of its own, its cudaError_t dropped: cudaMalloc,
//     cudaMemcpy, cudaMemcpyAsync, cudaMemset, cudaFree, cudaStreamSynchronize,
//     cudaDeviceSynchronize, cudaEventRecord, cudaStreamCreate, cudaMallocHost,
//     cudaHostRegister, cudaSetDevice;
//   - a driver call, its CUresult dropped: cuMemAlloc, cuMemcpyHtoD, cuCtxSynchronize,
//     cuLaunchKernel;
//   - a dropped status inside a loop, a static helper, a class method, a destructor, a lambda;
//   - a <<<>>> launch followed, with no cudaGetLastError/cudaPeekAtLastError in between, by
//     cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize or a blocking
//     cudaMemcpy whose own status is checked; a launch in a loop; a launch on a stream; a
//     check that comes only after the synchronization; a printf and a helper of the file that
//     does not check, in between.
//
// Near misses (no finding): CUDA_CHECK(...) around calls; a status assigned (even if then
// ignored), compared, returned, passed to a function of the file, pushed into a vector, used
// in a condition or an if-init; (void) and static_cast<void> casts; cudaGetLastError() and
// cudaPeekAtLastError() alone; cudaGetErrorString / cudaGetErrorName; a launch followed by
// CUDA_CHECK(cudaGetLastError()), by cudaPeekAtLastError() assigned, by a helper of the file
// that reads the error state, by getLastCudaError("msg") or checkKernelErrors() whose bodies
// the file does not show; a launch at the end of a function that returns before any
// synchronization; a helper that launches and returns, whose caller checks cudaGetLastError
// right after calling it; driver calls wrapped in CU_CHECK.
//
// Everything else is kept clean: memory is freed with the function that made it, results are
// read only after a synchronization, async host copies use pinned or registered memory, and
// device memory is written before a kernel or copy reads it.

#include <cuda_runtime.h>
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t status_ = (call);                                                 \
        if (status_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,      \
                    cudaGetErrorString(status_));                                     \
            abort();                                                                  \
        }                                                                             \
    } while (0)

#define CU_CHECK(call)                                                                \
    do {                                                                              \
        CUresult result_ = (call);                                                    \
        if (result_ != CUDA_SUCCESS) {                                                \
            fprintf(stderr, "%s:%d: %s failed: CUresult %d\n", __FILE__, __LINE__,    \
                    #call, (int)result_);                                             \
            abort();                                                                  \
        }                                                                             \
    } while (0)

__global__ void scale_kernel(float* x, int n, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

__global__ void fill_kernel(float* x, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

static int blocks_for(int n) { return (n + 255) / 256; }

static void log_progress(const char* what) { printf("step: %s\n", what); }

static void report(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
        abort();
    }
}

// Reads the error state: a call of it after a launch checks the launch.
static void launch_guard(const char* what) {
    cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
        abort();
    }
}

static CUdevice driver_begin() {
    CU_CHECK(cuInit(0));
    CUdevice dev = 0;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx = nullptr;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    return dev;
}

static void driver_end(CUdevice dev) { CU_CHECK(cuDevicePrimaryCtxRelease(dev)); }

// ---------------------------------------------------------------------------------------
// Fires: statuses dropped
// ---------------------------------------------------------------------------------------

void fires_dropped_cudaMalloc(int n) {
    const size_t bytes = n * sizeof(float);
    float* d = nullptr;
    cudaMalloc(&d, bytes);  //~ unchecked_cuda_result
    CUDA_CHECK(cudaMemset(d, 0, bytes));
    CUDA_CHECK(cudaFree(d));
}

void fires_dropped_cudaMemcpy(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n, 1.0f);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice);  //~ unchecked_cuda_result
    scale_kernel<<<blocks_for(n), 256>>>(d, n, 2.0f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void fires_dropped_cudaMemcpyAsync(int n) {
    const size_t bytes = n * sizeof(float);
    float* h = nullptr;
    CUDA_CHECK(cudaMallocHost(&h, bytes));
    for (int i = 0; i < n; ++i) h[i] = float(i);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s);  //~ unchecked_cuda_result
    scale_kernel<<<blocks_for(n), 256, 0, s>>>(d, n, 2.0f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    printf("%f\n", h[n - 1]);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaFreeHost(h));
}

void fires_dropped_cudaMemset(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaMemset(d, 0, bytes);  //~ unchecked_cuda_result
    scale_kernel<<<blocks_for(n), 256>>>(d, n, 3.0f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void fires_dropped_cudaFree(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    fill_kernel<<<blocks_for(n), 256>>>(d, n, 1.5f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    cudaFree(d);  //~ unchecked_cuda_result
}

void fires_dropped_cudaStreamSynchronize(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    fill_kernel<<<blocks_for(n), 256, 0, s>>>(d, n, 4.0f);
    CUDA_CHECK(cudaGetLastError());
    cudaStreamSynchronize(s);  //~ unchecked_cuda_result
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
}

void fires_dropped_cudaDeviceSynchronize(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    fill_kernel<<<blocks_for(n), 256>>>(d, n, 2.0f);
    CUDA_CHECK(cudaGetLastError());
    cudaDeviceSynchronize();  //~ unchecked_cuda_result
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void fires_dropped_cudaEventRecord(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreate(&done));
    fill_kernel<<<blocks_for(n), 256, 0, s>>>(d, n, 7.0f);
    CUDA_CHECK(cudaGetLastError());
    cudaEventRecord(done, s);  //~ unchecked_cuda_result
    CUDA_CHECK(cudaEventSynchronize(done));
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaEventDestroy(done));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
}

void fires_dropped_cudaStreamCreate(int n) {
    const size_t bytes = n * sizeof(float);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaStream_t s;
    cudaStreamCreate(&s);  //~ unchecked_cuda_result
    CUDA_CHECK(cudaMemsetAsync(d, 0, bytes, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
}

void fires_dropped_cudaMallocHost(int n) {
    const size_t bytes = n * sizeof(float);
    float* h = nullptr;
    cudaMallocHost(&h, bytes);  //~ unchecked_cuda_result
    for (int i = 0; i < n; ++i) h[i] = 1.0f;
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaFreeHost(h));
}

void fires_dropped_cudaHostRegister(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n, 2.0f);
    cudaHostRegister(h.data(), bytes, cudaHostRegisterDefault);  //~ unchecked_cuda_result
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    CUDA_CHECK(cudaMemcpyAsync(d, h.data(), bytes, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(cudaMemcpyAsync(h.data(), d, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaHostUnregister(h.data()));
}

void fires_dropped_cudaSetDevice(int n) {
    const size_t bytes = n * sizeof(float);
    cudaSetDevice(0);  //~ unchecked_cuda_result
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemset(d, 0, bytes));
    CUDA_CHECK(cudaFree(d));
}

void fires_dropped_cuMemAlloc(int n) {
    const size_t bytes = n * sizeof(float);
    CUdevice dev = driver_begin();
    std::vector<float> h(n, 1.0f);
    CUdeviceptr d = 0;
    cuMemAlloc(&d, bytes);  //~ unchecked_cuda_result
    CU_CHECK(cuMemcpyHtoD(d, h.data(), bytes));
    CU_CHECK(cuMemcpyDtoH(h.data(), d, bytes));
    printf("%f\n", h[0]);
    CU_CHECK(cuMemFree(d));
    driver_end(dev);
}

void fires_dropped_cuMemcpyHtoD(int n) {
    const size_t bytes = n * sizeof(float);
    CUdevice dev = driver_begin();
    std::vector<float> h(n, 1.0f);
    CUdeviceptr d = 0;
    CU_CHECK(cuMemAlloc(&d, bytes));
    cuMemcpyHtoD(d, h.data(), bytes);  //~ unchecked_cuda_result
    CU_CHECK(cuMemcpyDtoH(h.data(), d, bytes));
    printf("%f\n", h[0]);
    CU_CHECK(cuMemFree(d));
    driver_end(dev);
}

void fires_dropped_cuCtxSynchronize(CUfunction fn, CUdeviceptr d_x, int n) {
    void* args[] = {&d_x, &n};
    CU_CHECK(cuLaunchKernel(fn, blocks_for(n), 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    cuCtxSynchronize();  //~ unchecked_cuda_result
}

void fires_dropped_cuLaunchKernel(CUfunction fn, CUdeviceptr d_x, int n) {
    void* args[] = {&d_x, &n};
    cuLaunchKernel(fn, blocks_for(n), 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);  //~ unchecked_cuda_result
    CU_CHECK(cuCtxSynchronize());
}

void fires_dropped_in_loop(int rows, int cols) {
    const size_t row_bytes = cols * sizeof(float);
    std::vector<float> h(rows * cols, 0.5f);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, rows * row_bytes));
    for (int r = 0; r < rows; ++r) {
        cudaMemcpy(d + r * cols, h.data() + r * cols, row_bytes, cudaMemcpyHostToDevice);  //~ unchecked_cuda_result
    }
    CUDA_CHECK(cudaMemcpy(h.data(), d, rows * row_bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

static void fires_dropped_in_helper(float* d_dst, const float* h_src, int n) {
    cudaMemcpy(d_dst, h_src, n * sizeof(float), cudaMemcpyHostToDevice);  //~ unchecked_cuda_result
}

void run_helper_upload(int n) {
    std::vector<float> h(n, 3.0f);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
    fires_dropped_in_helper(d, h.data(), n);
    CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

class DeviceRow {
public:
    explicit DeviceRow(int n) : n_(n) { CUDA_CHECK(cudaMalloc(&d_, n_ * sizeof(float))); }
    ~DeviceRow() { CUDA_CHECK(cudaFree(d_)); }
    DeviceRow(const DeviceRow&) = delete;
    DeviceRow& operator=(const DeviceRow&) = delete;

    void fires_dropped_in_method(const std::vector<float>& h) {
        cudaMemcpy(d_, h.data(), n_ * sizeof(float), cudaMemcpyHostToDevice);  //~ unchecked_cuda_result
    }

    void download(std::vector<float>& h) const {
        CUDA_CHECK(cudaMemcpy(h.data(), d_, n_ * sizeof(float), cudaMemcpyDeviceToHost));
    }

private:
    float* d_ = nullptr;
    int n_ = 0;
};

void run_device_row(int n) {
    std::vector<float> h(n, 1.0f);
    DeviceRow row(n);
    row.fires_dropped_in_method(h);
    row.download(h);
    printf("%f\n", h[0]);
}

// The destructor drops cudaFree's status.
class ScratchBuffer {
public:
    explicit ScratchBuffer(int n) : n_(n) {
        CUDA_CHECK(cudaMalloc(&d_, n_ * sizeof(float)));
        CUDA_CHECK(cudaMemset(d_, 0, n_ * sizeof(float)));
    }
    ~ScratchBuffer() {
        cudaFree(d_);  //~ unchecked_cuda_result
    }
    ScratchBuffer(const ScratchBuffer&) = delete;
    ScratchBuffer& operator=(const ScratchBuffer&) = delete;

    void download(std::vector<float>& h) const {
        CUDA_CHECK(cudaMemcpy(h.data(), d_, n_ * sizeof(float), cudaMemcpyDeviceToHost));
    }

private:
    float* d_ = nullptr;
    int n_ = 0;
};

void run_scratch_buffer(int n) {
    std::vector<float> h(n);
    ScratchBuffer scratch(n);
    scratch.download(h);
    printf("%f\n", h[0]);
}

void fires_dropped_in_lambda(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> ha(n, 1.0f), hb(n, 2.0f), hc(n);
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    CUDA_CHECK(cudaMalloc(&da, bytes));
    CUDA_CHECK(cudaMalloc(&db, bytes));
    CUDA_CHECK(cudaMalloc(&dc, bytes));
    auto upload = [&](float* dst, const std::vector<float>& src) {
        cudaMemcpy(dst, src.data(), bytes, cudaMemcpyHostToDevice);  //~ unchecked_cuda_result
    };
    upload(da, ha);
    upload(db, hb);
    add_kernel<<<blocks_for(n), 256>>>(da, db, dc, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(hc.data(), dc, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", hc[0]);
    CUDA_CHECK(cudaFree(dc));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(da));
}

// ---------------------------------------------------------------------------------------
// Fires: launches never checked before a synchronization
// ---------------------------------------------------------------------------------------

void fires_launch_before_device_sync(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemset(d, 0, bytes));
    scale_kernel<<<blocks_for(n), 256>>>(d, n, 2.0f);  //~ unchecked_cuda_result
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void fires_launch_on_stream_before_stream_sync(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    fill_kernel<<<blocks_for(n), 256, 0, s>>>(d, n, 9.0f);  //~ unchecked_cuda_result
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
}

void fires_launch_before_blocking_memcpy(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> ha(n, 1.0f), hb(n, 2.0f), hc(n);
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    CUDA_CHECK(cudaMalloc(&da, bytes));
    CUDA_CHECK(cudaMalloc(&db, bytes));
    CUDA_CHECK(cudaMalloc(&dc, bytes));
    CUDA_CHECK(cudaMemcpy(da, ha.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, hb.data(), bytes, cudaMemcpyHostToDevice));
    add_kernel<<<blocks_for(n), 256>>>(da, db, dc, n);  //~ unchecked_cuda_result
    CUDA_CHECK(cudaMemcpy(hc.data(), dc, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", hc[0]);
    CUDA_CHECK(cudaFree(dc));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(da));
}

void fires_launch_in_loop(int n, int steps) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n, 1.0f);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
    for (int step = 0; step < steps; ++step) {
        scale_kernel<<<blocks_for(n), 256>>>(d, n, 0.5f);  //~ unchecked_cuda_result
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void fires_launch_checked_only_after_sync(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    fill_kernel<<<blocks_for(n), 256>>>(d, n, 1.0f);  //~ unchecked_cuda_result
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void fires_launch_then_log_then_sync(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    fill_kernel<<<blocks_for(n), 256>>>(d, n, 6.0f);  //~ unchecked_cuda_result
    printf("launched %d blocks\n", blocks_for(n));
    log_progress("fill");
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void fires_launch_before_event_sync(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    cudaEvent_t done;
    CUDA_CHECK(cudaEventCreate(&done));
    fill_kernel<<<blocks_for(n), 256, 0, s>>>(d, n, 8.0f);  //~ unchecked_cuda_result
    CUDA_CHECK(cudaEventRecord(done, s));
    CUDA_CHECK(cudaEventSynchronize(done));
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaEventDestroy(done));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
}

// ---------------------------------------------------------------------------------------
// Near misses
// ---------------------------------------------------------------------------------------

void ok_cuda_check_everywhere(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n, 1.0f);
    float* d = nullptr;
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
    scale_kernel<<<blocks_for(n), 256>>>(d, n, 2.0f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void ok_status_assigned_and_ignored(int n) {
    const size_t bytes = n * sizeof(float);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemset(d, 0, bytes));
    cudaError_t err = cudaDeviceSynchronize();
    err = cudaFree(d);
}

void ok_status_compared(int n) {
    const size_t bytes = n * sizeof(float);
    float* d = nullptr;
    if (cudaMalloc(&d, bytes) != cudaSuccess) {
        fprintf(stderr, "allocation failed\n");
        return;
    }
    if (cudaMemset(d, 0, bytes) != cudaSuccess) {
        fprintf(stderr, "memset failed\n");
        CUDA_CHECK(cudaFree(d));
        return;
    }
    const bool freed = cudaFree(d) == cudaSuccess;
    printf("freed: %d\n", freed ? 1 : 0);
}

cudaError_t ok_status_returned(float* d_x, int n, cudaStream_t s) {
    scale_kernel<<<blocks_for(n), 256, 0, s>>>(d_x, n, 2.0f);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    return cudaStreamSynchronize(s);
}

void ok_status_passed_to_function(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n, 4.0f);
    float* d = nullptr;
    report(cudaMalloc(&d, bytes), "cudaMalloc");
    report(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice), "upload");
    report(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost), "download");
    printf("%f\n", h[0]);
    report(cudaFree(d), "cudaFree");
}

void ok_status_pushed_into_vector(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<cudaError_t> statuses;
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    statuses.push_back(cudaMemset(d, 0, bytes));
    statuses.push_back(cudaDeviceSynchronize());
    statuses.push_back(cudaFree(d));
    for (cudaError_t st : statuses) report(st, "batch");
}

void ok_void_cast(int n) {
    const size_t bytes = n * sizeof(float);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemset(d, 0, bytes));
    (void)cudaDeviceSynchronize();
    (void)cudaFree(d);
}

void ok_static_cast_void(int n) {
    const size_t bytes = n * sizeof(float);
    float* h = nullptr;
    CUDA_CHECK(cudaMallocHost(&h, bytes));
    h[0] = 1.0f;
    printf("%f\n", h[0]);
    static_cast<void>(cudaFreeHost(h));
}

void ok_get_last_error_alone(int n) {
    float* d = nullptr;
    const size_t huge = size_t(1) << 50;
    if (cudaMalloc(&d, huge) != cudaSuccess) {
        cudaGetLastError();
        CUDA_CHECK(cudaMalloc(&d, n * sizeof(float)));
    }
    cudaPeekAtLastError();
    CUDA_CHECK(cudaMemset(d, 0, n * sizeof(float)));
    CUDA_CHECK(cudaFree(d));
}

void ok_error_strings(void) {
    cudaError_t err = cudaGetLastError();
    cudaGetErrorString(err);
    cudaGetErrorName(err);
    fprintf(stderr, "last error: %s (%s)\n", cudaGetErrorString(err), cudaGetErrorName(err));
}

void ok_status_in_condition(int n) {
    const size_t bytes = n * sizeof(float);
    float* d = nullptr;
    if (cudaError_t e = cudaSetDevice(0); e != cudaSuccess) {
        fprintf(stderr, "%s\n", cudaGetErrorString(e));
        return;
    }
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    CUDA_CHECK(cudaMemsetAsync(d, 0, bytes, s));
    while (cudaStreamQuery(s) == cudaErrorNotReady) {
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
}

void ok_launch_then_check_macro(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    fill_kernel<<<blocks_for(n), 256>>>(d, n, 3.0f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void ok_launch_then_peek_assigned(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    fill_kernel<<<blocks_for(n), 256, 0, s>>>(d, n, 5.0f);
    cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess) {
        fprintf(stderr, "launch: %s\n", cudaGetErrorString(e));
        abort();
    }
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(d));
}

void ok_launch_then_getLastCudaError(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    fill_kernel<<<blocks_for(n), 256>>>(d, n, 2.5f);
    getLastCudaError("fill_kernel failed");
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void ok_launch_then_checkKernelErrors(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> ha(n, 1.0f), hb(n, 1.0f), hc(n);
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    CUDA_CHECK(cudaMalloc(&da, bytes));
    CUDA_CHECK(cudaMalloc(&db, bytes));
    CUDA_CHECK(cudaMalloc(&dc, bytes));
    CUDA_CHECK(cudaMemcpy(da, ha.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, hb.data(), bytes, cudaMemcpyHostToDevice));
    add_kernel<<<blocks_for(n), 256>>>(da, db, dc, n);
    checkKernelErrors();
    CUDA_CHECK(cudaMemcpy(hc.data(), dc, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", hc[0]);
    CUDA_CHECK(cudaFree(dc));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(da));
}

void ok_launch_then_own_guard_helper(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    fill_kernel<<<blocks_for(n), 256>>>(d, n, 1.25f);
    launch_guard("fill_kernel");
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void ok_launch_returns_before_sync(float* d_x, int n, cudaStream_t s) {
    scale_kernel<<<blocks_for(n), 256, 0, s>>>(d_x, n, 0.25f);
}

static void enqueue_scale(float* d_x, int n, float a) {
    scale_kernel<<<blocks_for(n), 256>>>(d_x, n, a);
}

void ok_helper_launch_checked_by_caller(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n, 2.0f);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
    enqueue_scale(d, n, 3.0f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void ok_launch_in_loop_checked(int n, int steps) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n, 1.0f);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
    for (int step = 0; step < steps; ++step) {
        scale_kernel<<<blocks_for(n), 256>>>(d, n, 1.01f);
        CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

void ok_driver_checked(CUfunction fn, CUdeviceptr d_x, int n) {
    void* args[] = {&d_x, &n};
    CU_CHECK(cuLaunchKernel(fn, blocks_for(n), 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    CU_CHECK(cuCtxSynchronize());
}

void ok_driver_memory_checked(int n) {
    const size_t bytes = n * sizeof(float);
    CUdevice dev = driver_begin();
    std::vector<float> h(n, 1.0f);
    CUdeviceptr d = 0;
    CU_CHECK(cuMemAlloc(&d, bytes));
    CU_CHECK(cuMemcpyHtoD(d, h.data(), bytes));
    CU_CHECK(cuMemcpyDtoH(h.data(), d, bytes));
    printf("%f\n", h[0]);
    if (cuMemFree(d) != CUDA_SUCCESS) fprintf(stderr, "cuMemFree failed\n");
    driver_end(dev);
}

void ok_checked_in_lambda(int n) {
    const size_t bytes = n * sizeof(float);
    std::vector<float> h(n, 2.0f);
    float* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    auto upload = [&](float* dst, const std::vector<float>& src) {
        CUDA_CHECK(cudaMemcpy(dst, src.data(), bytes, cudaMemcpyHostToDevice));
    };
    upload(d, h);
    CUDA_CHECK(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost));
    printf("%f\n", h[0]);
    CUDA_CHECK(cudaFree(d));
}

class CheckedBuffer {
public:
    explicit CheckedBuffer(int n) : n_(n) { CUDA_CHECK(cudaMalloc(&d_, n_ * sizeof(float))); }
    ~CheckedBuffer() {
        cudaError_t err = cudaFree(d_);
        if (err != cudaSuccess) fprintf(stderr, "~CheckedBuffer: %s\n", cudaGetErrorString(err));
    }
    CheckedBuffer(const CheckedBuffer&) = delete;
    CheckedBuffer& operator=(const CheckedBuffer&) = delete;

    cudaError_t upload(const std::vector<float>& h) {
        return cudaMemcpy(d_, h.data(), n_ * sizeof(float), cudaMemcpyHostToDevice);
    }
    cudaError_t download(std::vector<float>& h) const {
        return cudaMemcpy(h.data(), d_, n_ * sizeof(float), cudaMemcpyDeviceToHost);
    }

private:
    float* d_ = nullptr;
    int n_ = 0;
};

void ok_class_checked(int n) {
    std::vector<float> h(n, 1.0f);
    CheckedBuffer buf(n);
    CUDA_CHECK(buf.upload(h));
    CUDA_CHECK(buf.download(h));
    printf("%f\n", h[0]);
}
