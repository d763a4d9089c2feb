// Graph capture (issue 19, item 2): `uncapturable_call`, `graph_uses_freed_memory`, and
// `missing_sync` / `pageable_async_copy` for captured work and graph launches.
//
// Every host function below is independent (its own streams, buffers, graphs; no globals),
// and is correct apart from the one misuse labelled with the lint's name (trailing UI-test
// annotation) on the line of the call where the definition (corpus/issue19-graph.md, LINTS.md)
// says the finding fires.
//
// Firing, uncapturable_call (13):
//   capture_upload_then_stream_sync        cudaStreamSynchronize of the capturing stream
//   capture_with_debug_device_sync         cudaDeviceSynchronize inside the capture
//   capture_then_wait_on_recorded_event    cudaEventSynchronize of an event recorded in the capture
//   capture_poll_stream_query              cudaStreamQuery of the capturing stream (poll loop)
//   capture_lazy_workspace_malloc          cudaMalloc in global mode
//   capture_thread_local_pinned_readback   cudaMallocHost in thread-local mode
//   capture_sync_param_upload              cudaMemcpy (synchronous) in global mode: relabelled a near miss (allowed beside a non-blocking stream, measured)
//   capture_zero_accumulator_memset        cudaMemset (synchronous) in global mode: relabelled a near miss (measured)
//   capture_release_staging_inside         cudaFreeHost in global mode
//   capture_bias_fill_on_default_stream    kernel <<<g, b>>> (legacy stream) while a blocking stream captures (relaxed mode)
//   capture_upload_on_stream_zero          cudaMemcpyAsync(..., 0) while a blocking stream captures
//   capture_on_legacy_stream               cudaStreamBeginCapture(0, ...)
//   capture_batched_readback               cudaMemcpyBatchAsync on the capturing stream
// Firing, graph_uses_freed_memory (8):
//   launch_after_freeing_input             cudaFree of the captured kernel's input, then launch
//   relaunch_after_recycling_staging       cudaFreeHost of the captured copy's pinned source between launches
//   launch_after_freeing_params            free() of the malloc'd source of a captured (small) copy
//   launch_after_deleting_taps             delete[] of the new[]'d source of a captured (small) copy
//   launch_after_release_helper            a helper cudaFree's the captured workspace
//   replay_after_reallocating_input        cudaFree + cudaMalloc of the input inside the loop of launches, no re-capture
//   launch_after_stream_ordered_free       cudaFreeAsync of a cudaMallocAsync buffer the graph uses
//   launch_after_scoped_buffer_destroyed   RAII DeviceBuffer destroyed at the end of its block
// Firing, missing_sync (3):
//   print_loss_without_waiting             host read of the captured D2H destination after cudaGraphLaunch
//   refill_pinned_input_while_running      host refill (memcpy) of the captured copy's pinned source while the last launch runs
//   free_pool_buffer_while_graph_runs      cudaFree of cudaMallocAsync memory the launch still uses
// Firing, pageable_async_copy (2):
//   capture_upload_from_vector             std::vector source of a captured H2D copy
//   capture_readback_into_malloc           malloc'd destination of a captured D2H copy
//
// Near misses (no finding, 21):
//   relaxed_capture_allocates_workspace    cudaMalloc in cudaStreamCaptureModeRelaxed
//   exchange_mode_around_allocation        cudaThreadExchangeStreamCaptureMode to relaxed around cudaMalloc
//   stream_ordered_alloc_in_capture        cudaMallocAsync / cudaFreeAsync on the capturing stream
//   default_stream_fill_nonblocking_capture legacy-stream kernel while a NON-blocking stream captures
//   sync_setup_before_capture              cudaMalloc / cudaMemcpy / cudaMemset / cudaDeviceSynchronize before begin
//   check_upload_after_end_capture         cudaMemcpy / cudaDeviceSynchronize / host read after end, before any launch
//   free_after_last_launch_and_sync        release helper after the loop of launches, a synchronize and exec destroy
//   build_graph_without_launching          buffers freed after cudaGraphExecDestroy, never launched
//   reallocate_then_recapture              buffer reallocated, graph re-captured, only the new graph launched
//   grow_capacity_and_recapture_in_loop    the same inside a loop of batches
//   fork_join_capture_with_events          a second stream joins the capture through events
//   refill_pinned_input_after_sync         pinned staging refilled between launches after cudaStreamSynchronize
//   print_loss_after_waiting               host read after cudaGraphLaunch + cudaStreamSynchronize
//   time_graph_launches_with_events        events recorded/synchronized around launches, outside capture
//   batched_readback_after_launch          cudaMemcpyBatchAsync outside capture
//   enqueue_and_wait                       stream parameter, no capture begun on any visible path
//   free_init_staging_before_launch        memory the graph does not use freed before the launch
//   stream_ordered_free_after_launch       cudaFreeAsync on the launch stream after the last launch
//   thread_local_capture_stream_ordered    cudaMemsetAsync / pinned cudaMemcpyAsync in thread-local mode
//   blocking_stream_capture_explicit_stream blocking stream captures; all work names the capturing stream
//   scoped_buffers_outlive_graph           RAII buffers destroyed after sync and exec destroy

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            std::abort();                                                                \
        }                                                                                \
    } while (0)

static inline int blocks_for(int n) { return (n + 255) / 256; }

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

__global__ void fill_kernel(float* y, float value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = value;
}

__global__ void scale_kernel(float* y, const float* x, float alpha, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i];
}

__global__ void relu_kernel(float* y, const float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void axpy_kernel(float* y, const float* x, float alpha, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += alpha * x[i];
}

__global__ void accumulate_kernel(float* acc, const float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += x[i];
}

struct AffineParams {
    float alpha;
    float beta;
};

__global__ void affine_kernel(float* y, const float* x, const AffineParams* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = p->alpha * x[i] + p->beta;
}

__global__ void fir_kernel(float* y, const float* x, const float* taps, int ntaps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < ntaps; ++k) {
            int j = i - k;
            if (j >= 0) acc += taps[k] * x[j];
        }
        y[i] = acc;
    }
}

__global__ void sum_squares_kernel(float* out, const float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i] * x[i]);
}

// ---------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------

struct Workspace {
    float* d_hidden = nullptr;
    float* d_act = nullptr;
};

static void alloc_workspace(Workspace& ws, size_t bytes)
{
    CUDA_CHECK(cudaMalloc(&ws.d_hidden, bytes));
    CUDA_CHECK(cudaMalloc(&ws.d_act, bytes));
}

static void release_workspace(Workspace& ws)
{
    CUDA_CHECK(cudaFree(ws.d_hidden));
    CUDA_CHECK(cudaFree(ws.d_act));
    ws.d_hidden = nullptr;
    ws.d_act = nullptr;
}

class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t count) : count_(count)
    {
        CUDA_CHECK(cudaMalloc(&ptr_, count_ * sizeof(float)));
    }
    ~DeviceBuffer() { (void)cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    float* data() const { return ptr_; }
    size_t bytes() const { return count_ * sizeof(float); }

private:
    float* ptr_ = nullptr;
    size_t count_;
};

// =======================================================================================
// uncapturable_call
// =======================================================================================

// The upload is "waited for" inside the captured region: synchronizing a capturing stream.
void capture_upload_then_stream_sync()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_in, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; ++i) h_in[i] = 0.001f * i;

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream)); //~ uncapturable_call
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, d_in, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("scaled[last] = %f\n", h_out[n - 1]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// A debugging device synchronize left between two captured kernels.
void capture_with_debug_device_sync()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_h = nullptr, *d_y = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_h, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, -0.5f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_h, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize()); //~ uncapturable_call
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_h, 4.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("relu-scaled[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_h));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Waits on an event that was recorded inside the capture (it is a graph node, not real work).
void capture_then_wait_on_recorded_event()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    cudaEvent_t forward_done;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&forward_done, cudaEventDisableTiming));

    float *d_x = nullptr, *d_y = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 1.5f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, 0.25f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(forward_done, stream));
    CUDA_CHECK(cudaEventSynchronize(forward_done)); //~ uncapturable_call
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("forward[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaEventDestroy(forward_done));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Spins on cudaStreamQuery of the capturing stream "until the upload landed".
void capture_poll_stream_query()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_in, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; ++i) h_in[i] = (i % 7) - 3.0f;

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
    while (cudaStreamQuery(stream) == cudaErrorNotReady) { } //~ uncapturable_call
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, d_in, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("relu[3] = %f\n", h_out[3]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The intermediate buffer is allocated lazily, inside a global-mode capture.
void capture_lazy_workspace_malloc()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *d_tmp = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMalloc(&d_tmp, bytes)); //~ uncapturable_call
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_tmp, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_tmp, 0.5f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_tmp));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The pinned readback buffer is allocated inside a thread-local-mode capture.
void capture_thread_local_pinned_readback()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMemsetAsync(d_x, 0, bytes, stream));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, 3.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMallocHost(&h_y, bytes)); //~ uncapturable_call
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[42] = %f\n", h_y[42]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The layer's parameters are uploaded with a synchronous cudaMemcpy while capturing.
void capture_sync_param_upload()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *h_y = nullptr;
    AffineParams* d_params = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMalloc(&d_params, sizeof(AffineParams)));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 1.0f, n);
    CUDA_CHECK(cudaGetLastError());

    AffineParams params;
    params.alpha = 0.9f;
    params.beta = 0.1f;

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpy(d_params, &params, sizeof(AffineParams), cudaMemcpyHostToDevice));
    // Relabelled after a GPU run (runtime/gpu-results/2026-11-27-capture-rules.md): a synchronous
    // copy or memset beside a non-blocking capturing stream is allowed, even in global mode.
    affine_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, d_params, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("affine[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_params));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Each step zeroes its accumulator with a synchronous cudaMemset inside the capture.
void capture_zero_accumulator_memset()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_acc = nullptr, *h_acc = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_acc, bytes));
    CUDA_CHECK(cudaMallocHost(&h_acc, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 0.25f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemset(d_acc, 0, bytes));
    // Relabelled after a GPU run (runtime/gpu-results/2026-11-27-capture-rules.md): a synchronous
    // copy or memset beside a non-blocking capturing stream is allowed, even in global mode.
    for (int micro = 0; micro < 4; ++micro) {
        accumulate_kernel<<<blocks_for(n), 256, 0, stream>>>(d_acc, d_x, n);
        CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaMemcpyAsync(h_acc, d_acc, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("acc[0] = %f (expect 1.0)\n", h_acc[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_acc));
    CUDA_CHECK(cudaFree(d_acc));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The staging buffer of the initial upload is released "early", inside the captured region.
void capture_release_staging_inside()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_staging = nullptr, *h_out = nullptr, *d_w = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_staging, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_w, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; ++i) h_staging[i] = 1.0f / (1 + i % 13);
    CUDA_CHECK(cudaMemcpyAsync(d_w, h_staging, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, d_w, 10.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFreeHost(h_staging)); //~ uncapturable_call
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("out[1] = %f\n", h_out[1]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// A bias-fill kernel is launched without a stream (legacy stream) while a blocking stream
// captures: relaxed mode does not help, the legacy stream would depend on the capture.
void capture_bias_fill_on_default_stream()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    float *d_y = nullptr, *d_bias = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMalloc(&d_bias, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, 1.0f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    fill_kernel<<<blocks_for(n), 256>>>(d_bias, 0.1f, n); //~ uncapturable_call
    CUDA_CHECK(cudaGetLastError());
    axpy_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_bias, 1.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("biased[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The input upload names stream 0 instead of the (blocking) capturing stream.
void capture_upload_on_stream_zero()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    float *h_x = nullptr, *h_y = nullptr, *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_x, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    for (int i = 0; i < n; ++i) h_x[i] = 0.5f;

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, 0)); //~ uncapturable_call
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Capture begun on the legacy default stream, which cannot be captured.
void capture_on_legacy_stream()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMemset(d_x, 0, bytes));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal)); //~ uncapturable_call
    scale_kernel<<<blocks_for(n), 256>>>(d_y, d_x, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamEndCapture(0, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> h_y(n);
    CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, bytes, cudaMemcpyDeviceToHost));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
}

// Both heads' outputs are gathered to the host with one batched copy inside the capture.
void capture_batched_readback()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_a = nullptr, *d_b = nullptr, *h_a = nullptr, *h_b = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMallocHost(&h_a, bytes));
    CUDA_CHECK(cudaMallocHost(&h_b, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, -2.0f, n);
    CUDA_CHECK(cudaGetLastError());

    void* dsts[2] = {h_a, h_b};
    void* srcs[2] = {d_a, d_b};
    size_t sizes[2] = {bytes, bytes};
    cudaMemcpyAttributes attr = {};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t attr_idx = 0;

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_a, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_b, d_x, 0.5f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &attr_idx, 1, stream)); //~ uncapturable_call
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("head a = %f, head b = %f\n", h_a[0], h_b[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_b));
    CUDA_CHECK(cudaFreeHost(h_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// =======================================================================================
// graph_uses_freed_memory
// =======================================================================================

// The input is freed after instantiation on the belief that the graph keeps its own copy.
void launch_after_freeing_input()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_in, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; ++i) h_in[i] = (i & 1) ? 1.0f : -1.0f;
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, d_in, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaGraphLaunch(exec, stream)); //~ graph_uses_freed_memory
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("relu[1] = %f\n", h_out[1]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// onnxruntime #32121: the pinned staging buffer a captured copy reads is returned to the
// allocator after the first run, and the graph is replayed.
void relaunch_after_recycling_staging()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_stage = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_stage, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; ++i) h_stage[i] = 0.01f * (i % 100);

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_stage, bytes, cudaMemcpyHostToDevice, stream));
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, d_in, 3.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("run 1: %f\n", h_out[99]);

    CUDA_CHECK(cudaFreeHost(h_stage));
    CUDA_CHECK(cudaGraphLaunch(exec, stream)); //~ graph_uses_freed_memory
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("run 2: %f\n", h_out[99]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The heap-allocated parameter block a captured copy reads is freed before the launch.
void launch_after_freeing_params()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *h_y = nullptr;
    AffineParams* d_params = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMalloc(&d_params, sizeof(AffineParams)));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());

    AffineParams* h_params = static_cast<AffineParams*>(std::malloc(sizeof(AffineParams)));
    if (h_params == nullptr) std::abort();
    h_params->alpha = 1.5f;
    h_params->beta = -1.0f;

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_params, h_params, sizeof(AffineParams), cudaMemcpyHostToDevice, stream));
    affine_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, d_params, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    std::free(h_params);
    CUDA_CHECK(cudaGraphLaunch(exec, stream)); //~ graph_uses_freed_memory
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("affine[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_params));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// FIR filter: the coefficient array a captured copy uploads is deleted before the launch.
void launch_after_deleting_taps()
{
    const int n = 1 << 20;
    const int taps = 16;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *d_taps = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMalloc(&d_taps, taps * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 1.0f, n);
    CUDA_CHECK(cudaGetLastError());

    float* h_taps = new float[taps];
    for (int k = 0; k < taps; ++k) h_taps[k] = 1.0f / taps;

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    // Known false finding: the size of a local constant (`taps`) is not read, so this 64-byte copy is not known to be small.
    CUDA_CHECK(cudaMemcpyAsync(d_taps, h_taps, taps * sizeof(float), cudaMemcpyHostToDevice, stream)); //~ pageable_async_copy
    fir_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, d_taps, taps, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    delete[] h_taps;
    CUDA_CHECK(cudaGraphLaunch(exec, stream)); //~ graph_uses_freed_memory
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("filtered[100] = %f\n", h_y[100]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_taps));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The planning code releases the workspace through a helper, then the graph runs on it.
void launch_after_release_helper()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_out = nullptr, *h_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 0.75f, n);
    CUDA_CHECK(cudaGetLastError());

    Workspace ws;
    alloc_workspace(ws, bytes);

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(ws.d_hidden, d_x, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(ws.d_act, ws.d_hidden, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, ws.d_act, 0.5f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    release_workspace(ws);
    CUDA_CHECK(cudaGraphLaunch(exec, stream)); //~ graph_uses_freed_memory
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("mlp[0] = %f\n", h_out[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Each step gets a fresh input buffer, but the graph captured with the first one is replayed.
void replay_after_reallocating_input()
{
    const int n = 1 << 20;
    const int steps = 8;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_batch = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_batch, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; ++i) h_batch[i] = 0.0f;
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_batch, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, d_in, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    for (int step = 0; step < steps; ++step) {
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaMalloc(&d_in, bytes));
        for (int i = 0; i < n; ++i) h_batch[i] = step + 0.001f * i;
        CUDA_CHECK(cudaMemcpyAsync(d_in, h_batch, bytes, cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaGraphLaunch(exec, stream)); //~ graph_uses_freed_memory
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::printf("step %d: %f\n", step, h_out[0]);
    }

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_batch));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// A stream-ordered scratch buffer is freed on the stream before the graph that uses it runs.
void launch_after_stream_ordered_free()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *d_scratch = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    CUDA_CHECK(cudaMallocAsync(&d_scratch, bytes, stream));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, -1.0f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_scratch, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_scratch, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaFreeAsync(d_scratch, stream));
    CUDA_CHECK(cudaGraphLaunch(exec, stream)); //~ graph_uses_freed_memory
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The temporary lives in an inner block: its destructor frees it before the launch.
void launch_after_scoped_buffer_destroyed()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 4.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));

    cudaGraphExec_t exec;
    {
        DeviceBuffer tmp(n);
        cudaGraph_t graph;
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        relu_kernel<<<blocks_for(n), 256, 0, stream>>>(tmp.data(), d_x, n);
        CUDA_CHECK(cudaGetLastError());
        scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, tmp.data(), 0.5f, n);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }

    CUDA_CHECK(cudaGraphLaunch(exec, stream)); //~ graph_uses_freed_memory
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// =======================================================================================
// missing_sync
// =======================================================================================

// The training step's loss is printed straight after the launch, before the copy ran.
void print_loss_without_waiting()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_pred = nullptr, *d_loss = nullptr, *h_loss = nullptr;
    CUDA_CHECK(cudaMalloc(&d_pred, bytes));
    CUDA_CHECK(cudaMalloc(&d_loss, sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_loss, sizeof(float)));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_pred, 0.01f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemsetAsync(d_loss, 0, sizeof(float), stream));
    sum_squares_kernel<<<blocks_for(n), 256, 0, stream>>>(d_loss, d_pred, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    std::printf("loss = %f\n", h_loss[0]); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_loss));
    CUDA_CHECK(cudaFree(d_loss));
    CUDA_CHECK(cudaFree(d_pred));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The next batch is written into the pinned source of the captured upload while the
// previous launch may still be copying it (onnxruntime #32121).
void refill_pinned_input_while_running()
{
    const int n = 1 << 20;
    const int num_batches = 8;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::vector<float> samples(static_cast<size_t>(n) * num_batches);
    for (size_t i = 0; i < samples.size(); ++i) samples[i] = 0.001f * (i % 1000);

    float *h_in = nullptr, *d_in = nullptr, *d_acc = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_acc, bytes));
    CUDA_CHECK(cudaMemsetAsync(d_acc, 0, bytes, stream));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
    accumulate_kernel<<<blocks_for(n), 256, 0, stream>>>(d_acc, d_in, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    for (int b = 0; b < num_batches; ++b) {
        std::memcpy(h_in, samples.data() + static_cast<size_t>(b) * n, bytes); //~ missing_sync
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::vector<float> h_acc(n);
    CUDA_CHECK(cudaMemcpy(h_acc.data(), d_acc, bytes, cudaMemcpyDeviceToHost));
    std::printf("sum[10] = %f\n", h_acc[10]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_acc));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// A pool (cudaMallocAsync) buffer is released with cudaFree right after the launch:
// cudaFree does not wait for anything on stream-ordered memory.
void free_pool_buffer_while_graph_runs()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *d_tmp = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    CUDA_CHECK(cudaMallocAsync(&d_tmp, bytes, stream));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 3.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_tmp, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_tmp, 0.1f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaFree(d_tmp)); //~ missing_sync
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// =======================================================================================
// pageable_async_copy inside a capture
// =======================================================================================

// PaddlePaddle #78568: a std::vector is the source of a captured upload.
void capture_upload_from_vector()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::vector<float> h_table(n);
    for (int i = 0; i < n; ++i) h_table[i] = 1.0f / (1 + i);

    float *d_table = nullptr, *d_out = nullptr, *h_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_table, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_table, h_table.data(), bytes, cudaMemcpyHostToDevice, stream)); //~ pageable_async_copy
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, d_table, 100.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    for (int it = 0; it < 4; ++it) {
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::printf("iter %d: %f\n", it, h_out[0]);
    }

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_table));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The captured readback lands in malloc'd (pageable) memory.
void capture_readback_into_malloc()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 0.5f, n);
    CUDA_CHECK(cudaGetLastError());

    float* h_y = static_cast<float*>(std::malloc(bytes));
    if (h_y == nullptr) std::abort();

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, 8.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream)); //~ pageable_async_copy
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    std::free(h_y);
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// =======================================================================================
// Near misses
// =======================================================================================

// cudaMalloc inside a capture begun in relaxed mode is allowed.
void relaxed_capture_allocates_workspace()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *d_tmp = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    CUDA_CHECK(cudaMalloc(&d_tmp, bytes));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_tmp, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_tmp, 0.5f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_tmp));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// PaddlePaddle's pattern: the thread switches to relaxed mode around the allocation.
void exchange_mode_around_allocation()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *d_tmp = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, -3.0f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    CUDA_CHECK(cudaMalloc(&d_tmp, bytes));
    CUDA_CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_tmp, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    axpy_kernel<<<blocks_for(n), 256, 0, stream>>>(d_tmp, d_x, 1.0f, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_tmp, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_tmp));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Stream-ordered allocation inside the capture becomes graph memory nodes.
void stream_ordered_alloc_in_capture()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 1.25f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    float* d_tmp = nullptr;
    CUDA_CHECK(cudaMallocAsync(&d_tmp, bytes, stream));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_tmp, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_tmp, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaFreeAsync(d_tmp, stream));
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    for (int it = 0; it < 3; ++it) {
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// A kernel on the legacy stream while a NON-blocking stream captures: no implicit
// dependency, and a launch is not an unsafe call.
void default_stream_fill_nonblocking_capture()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *d_stats = nullptr, *h_stats = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMalloc(&d_stats, bytes));
    CUDA_CHECK(cudaMallocHost(&h_stats, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 0.2f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, 5.0f, n);
    CUDA_CHECK(cudaGetLastError());
    fill_kernel<<<blocks_for(n), 256>>>(d_stats, 0.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    accumulate_kernel<<<blocks_for(n), 256, 0, stream>>>(d_stats, d_y, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_stats, d_stats, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("stats[0] = %f\n", h_stats[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_stats));
    CUDA_CHECK(cudaFree(d_stats));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Allocation, synchronous upload and memset all happen before the capture begins.
void sync_setup_before_capture()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    std::vector<float> h_x(n, 1.0f);
    float *d_x = nullptr, *d_acc = nullptr, *h_acc = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_acc, bytes));
    CUDA_CHECK(cudaMallocHost(&h_acc, bytes));
    CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_acc, 0, bytes));
    CUDA_CHECK(cudaDeviceSynchronize());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    accumulate_kernel<<<blocks_for(n), 256, 0, stream>>>(d_acc, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_acc, d_acc, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    for (int it = 0; it < 5; ++it) {
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("acc[0] = %f (expect 5)\n", h_acc[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_acc));
    CUDA_CHECK(cudaFree(d_acc));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// After the capture ended, the input is checked with a synchronous copy and the host reads
// the readback buffer: nothing captured has run yet, so nothing races.
void check_upload_after_end_capture()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_in, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; ++i) {
        h_in[i] = 2.0f;
        h_out[i] = -1.0f;
    }
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, d_in, 0.5f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));

    CUDA_CHECK(cudaDeviceSynchronize());
    float first_in = 0.0f;
    CUDA_CHECK(cudaMemcpy(&first_in, d_in, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("uploaded %f, readback still %f before the first launch\n", first_in, h_out[0]);

    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("out[0] = %f\n", h_out[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The workspace is released (same helper as above) after the last launch, a synchronize and
// the exec's destruction.
void free_after_last_launch_and_sync()
{
    const int n = 1 << 20;
    const int iters = 10;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_out = nullptr, *h_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 0.75f, n);
    CUDA_CHECK(cudaGetLastError());

    Workspace ws;
    alloc_workspace(ws, bytes);

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(ws.d_hidden, d_x, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(ws.d_act, ws.d_hidden, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, ws.d_act, 0.5f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    for (int it = 0; it < iters; ++it) {
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("mlp[0] = %f\n", h_out[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    release_workspace(ws);
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Start-up check that the step can be captured and instantiated: the exec is destroyed
// without ever being launched, then the buffers go.
void build_graph_without_launching()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMemsetAsync(d_x, 0, bytes, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, d_y, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    size_t num_nodes = 0;
    CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &num_nodes));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    std::printf("step graph: %zu nodes, instantiated\n", num_nodes);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The input grows: the old exec is destroyed, the buffer reallocated and the graph captured
// again; only the new graph is launched.
void reallocate_then_recapture()
{
    const int small_n = 1 << 18;
    const int large_n = 1 << 20;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_in, large_n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_out, large_n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, large_n * sizeof(float)));
    for (int i = 0; i < large_n; ++i) h_in[i] = 1.0f;

    // First graph, sized for the small batch.
    CUDA_CHECK(cudaMalloc(&d_in, small_n * sizeof(float)));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, small_n * sizeof(float), cudaMemcpyHostToDevice, stream));
    scale_kernel<<<blocks_for(small_n), 256, 0, stream>>>(d_out, d_in, 2.0f, small_n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, small_n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("small batch: %f\n", h_out[0]);

    // The batch grew: rebuild everything that names the input.
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaMalloc(&d_in, large_n * sizeof(float)));
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, large_n * sizeof(float), cudaMemcpyHostToDevice, stream));
    scale_kernel<<<blocks_for(large_n), 256, 0, stream>>>(d_out, d_in, 2.0f, large_n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, large_n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("large batch: %f\n", h_out[large_n - 1]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The same in a serving loop: when a batch outgrows the buffers they are reallocated and the
// graph captured again before the launch.
void grow_capacity_and_recapture_in_loop()
{
    const int max_n = 1 << 20;
    const int batch_sizes[4] = {1 << 16, 1 << 18, 1 << 18, 1 << 20};
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_in = nullptr, *h_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_in, max_n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_out, max_n * sizeof(float)));

    float *d_in = nullptr, *d_out = nullptr;
    cudaGraphExec_t exec = nullptr;
    int capacity = 0;
    for (int b = 0; b < 4; ++b) {
        const int n = batch_sizes[b];
        if (n > capacity) {
            if (exec != nullptr) CUDA_CHECK(cudaGraphExecDestroy(exec));
            CUDA_CHECK(cudaFree(d_in));  // no-op on the first round (null)
            CUDA_CHECK(cudaFree(d_out));
            capacity = n;
            CUDA_CHECK(cudaMalloc(&d_in, capacity * sizeof(float)));
            CUDA_CHECK(cudaMalloc(&d_out, capacity * sizeof(float)));
            cudaGraph_t graph;
            CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
            CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, capacity * sizeof(float), cudaMemcpyHostToDevice, stream));
            relu_kernel<<<blocks_for(capacity), 256, 0, stream>>>(d_out, d_in, capacity);
            CUDA_CHECK(cudaGetLastError());
            CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, capacity * sizeof(float), cudaMemcpyDeviceToHost, stream));
            CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
            CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
            CUDA_CHECK(cudaGraphDestroy(graph));
        }
        for (int i = 0; i < capacity; ++i) h_in[i] = i < n ? (i % 5) - 2.0f : 0.0f;
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::printf("batch %d (%d): %f\n", b, n, h_out[n - 1]);
    }

    if (exec != nullptr) CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Fork/join inside the capture: a second stream joins through an event, and the main
// stream waits for it before the merge.
void fork_join_capture_with_events()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t main_stream, side_stream;
    cudaEvent_t fork, join;
    CUDA_CHECK(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    float *d_a = nullptr, *d_b = nullptr, *d_a_out = nullptr, *d_b_out = nullptr, *h_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMalloc(&d_a_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_b_out, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, main_stream>>>(d_a, -1.0f, n);
    CUDA_CHECK(cudaGetLastError());
    fill_kernel<<<blocks_for(n), 256, 0, main_stream>>>(d_b, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaEventRecord(fork, main_stream));
    CUDA_CHECK(cudaStreamWaitEvent(side_stream, fork, 0));
    relu_kernel<<<blocks_for(n), 256, 0, main_stream>>>(d_a_out, d_a, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, side_stream>>>(d_b_out, d_b, 0.5f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(join, side_stream));
    CUDA_CHECK(cudaStreamWaitEvent(main_stream, join, 0));
    axpy_kernel<<<blocks_for(n), 256, 0, main_stream>>>(d_a_out, d_b_out, 1.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_a_out, bytes, cudaMemcpyDeviceToHost, main_stream));
    CUDA_CHECK(cudaStreamEndCapture(main_stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, main_stream));
    CUDA_CHECK(cudaStreamSynchronize(main_stream));
    std::printf("merged[0] = %f (expect 1)\n", h_out[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFree(d_b_out));
    CUDA_CHECK(cudaFree(d_a_out));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaEventDestroy(join));
    CUDA_CHECK(cudaEventDestroy(fork));
    CUDA_CHECK(cudaStreamDestroy(side_stream));
    CUDA_CHECK(cudaStreamDestroy(main_stream));
}

// The pinned staging buffer is refilled only after the previous launch was waited for.
void refill_pinned_input_after_sync()
{
    const int n = 1 << 20;
    const int num_batches = 8;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    std::vector<float> samples(static_cast<size_t>(n) * num_batches);
    for (size_t i = 0; i < samples.size(); ++i) samples[i] = 0.5f - 0.001f * (i % 1000);

    float *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_in, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, d_in, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    double total = 0.0;
    for (int b = 0; b < num_batches; ++b) {
        std::memcpy(h_in, samples.data() + static_cast<size_t>(b) * n, bytes);
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int i = 0; i < n; ++i) total += h_out[i];
    }
    std::printf("total = %f\n", total);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaFreeHost(h_in));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The loss is read after the launch and a synchronize of its stream.
void print_loss_after_waiting()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_pred = nullptr, *d_loss = nullptr, *h_loss = nullptr;
    CUDA_CHECK(cudaMalloc(&d_pred, bytes));
    CUDA_CHECK(cudaMalloc(&d_loss, sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_loss, sizeof(float)));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_pred, 0.01f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemsetAsync(d_loss, 0, sizeof(float), stream));
    sum_squares_kernel<<<blocks_for(n), 256, 0, stream>>>(d_loss, d_pred, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    for (int epoch = 0; epoch < 3; ++epoch) {
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::printf("epoch %d: loss = %f\n", epoch, h_loss[0]);
    }

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_loss));
    CUDA_CHECK(cudaFree(d_loss));
    CUDA_CHECK(cudaFree(d_pred));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Benchmark: timing events are recorded around the launches and waited for, outside capture.
void time_graph_launches_with_events()
{
    const int n = 1 << 20;
    const int reps = 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    float *d_x = nullptr, *d_y = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 1.0f, n);
    CUDA_CHECK(cudaGetLastError());
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, 0.0f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    axpy_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, 0.5f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaGraphUpload(exec, stream));

    CUDA_CHECK(cudaEventRecord(start, stream));
    for (int r = 0; r < reps; ++r) {
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
    }
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("%.3f ms per launch, y[0] = %f\n", ms / reps, h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The batched readback is issued after the launch, outside the capture.
void batched_readback_after_launch()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_a = nullptr, *d_b = nullptr, *h_a = nullptr, *h_b = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMallocHost(&h_a, bytes));
    CUDA_CHECK(cudaMallocHost(&h_b, bytes));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, -2.0f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_a, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_b, d_x, 0.5f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    void* dsts[2] = {h_a, h_b};
    void* srcs[2] = {d_a, d_b};
    size_t sizes[2] = {bytes, bytes};
    cudaMemcpyAttributes attr = {};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t attr_idx = 0;
    CUDA_CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &attr_idx, 1, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("head a = %f, head b = %f\n", h_a[0], h_b[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_b));
    CUDA_CHECK(cudaFreeHost(h_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// A stream handed in by code not visible here: no capture is begun on any visible path, so
// its synchronize is no uncapturable call.
void enqueue_and_wait(cudaStream_t stream, float* d_y, const float* d_x, int n)
{
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

// The pinned buffer of the one-off weight upload is freed before the launch: the graph
// does not use it.
void free_init_staging_before_launch()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_init = nullptr, *h_out = nullptr, *d_w = nullptr, *d_out = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_init, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out, bytes));
    CUDA_CHECK(cudaMalloc(&d_w, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; ++i) h_init[i] = 0.02f * (i % 50) - 0.5f;
    CUDA_CHECK(cudaMemcpyAsync(d_w, h_init, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_out, d_w, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaFreeHost(h_init));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("w+[49] = %f\n", h_out[49]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaFreeHost(h_out));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// The pool buffer is freed stream-ordered on the launch stream after the launch.
void stream_ordered_free_after_launch()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *d_x = nullptr, *d_y = nullptr, *d_tmp = nullptr, *h_y = nullptr;
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    CUDA_CHECK(cudaMallocAsync(&d_tmp, bytes, stream));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_x, 3.0f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(d_tmp, d_x, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_tmp, 0.1f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaFreeAsync(d_tmp, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// Thread-local mode, with only stream-ordered work on the capturing stream (the async
// memset and a pinned copy are fine where cudaMemset / cudaMemcpy are not).
void thread_local_capture_stream_ordered()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    float *h_x = nullptr, *h_acc = nullptr, *d_x = nullptr, *d_acc = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_x, bytes));
    CUDA_CHECK(cudaMallocHost(&h_acc, bytes));
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_acc, bytes));
    for (int i = 0; i < n; ++i) h_x[i] = 0.125f;

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    CUDA_CHECK(cudaMemsetAsync(d_acc, 0, bytes, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, stream));
    for (int micro = 0; micro < 8; ++micro) {
        accumulate_kernel<<<blocks_for(n), 256, 0, stream>>>(d_acc, d_x, n);
        CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaMemcpyAsync(h_acc, d_acc, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("acc[0] = %f (expect 1)\n", h_acc[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_acc));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_acc));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// A blocking stream captures, and every kernel and copy names the capturing stream.
void blocking_stream_capture_explicit_stream()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    float *h_x = nullptr, *h_y = nullptr, *d_x = nullptr, *d_y = nullptr, *d_bias = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_x, bytes));
    CUDA_CHECK(cudaMallocHost(&h_y, bytes));
    CUDA_CHECK(cudaMalloc(&d_x, bytes));
    CUDA_CHECK(cudaMalloc(&d_y, bytes));
    CUDA_CHECK(cudaMalloc(&d_bias, bytes));
    for (int i = 0; i < n; ++i) h_x[i] = 0.5f;

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, stream));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(d_bias, 0.1f, n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_x, 2.0f, n);
    CUDA_CHECK(cudaGetLastError());
    axpy_kernel<<<blocks_for(n), 256, 0, stream>>>(d_y, d_bias, 1.0f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f (expect 1.1)\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFree(d_bias));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaStreamDestroy(stream));
}

// RAII buffers declared before the graph outlive it: the exec is destroyed after a
// synchronize, and the destructors run at the end of the function.
void scoped_buffers_outlive_graph()
{
    const int n = 1 << 20;
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    DeviceBuffer x(n);
    DeviceBuffer tmp(n);
    DeviceBuffer y(n);
    float* h_y = nullptr;
    CUDA_CHECK(cudaMallocHost(&h_y, y.bytes()));
    fill_kernel<<<blocks_for(n), 256, 0, stream>>>(x.data(), 4.0f, n);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    relu_kernel<<<blocks_for(n), 256, 0, stream>>>(tmp.data(), x.data(), n);
    CUDA_CHECK(cudaGetLastError());
    scale_kernel<<<blocks_for(n), 256, 0, stream>>>(y.data(), tmp.data(), 0.5f, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_y, y.data(), y.bytes(), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));

    for (int it = 0; it < 4; ++it) {
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::printf("y[0] = %f (expect 2)\n", h_y[0]);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaFreeHost(h_y));
    CUDA_CHECK(cudaStreamDestroy(stream));
}
