// Host reads and writes of managed memory (`cudaMallocManaged`, `cuMemAllocManaged`) while a
// kernel that does not use that memory may still run (seed 004: devices without concurrent
// managed access give the GPU all managed memory while any kernel runs, and a host access in
// that window faults). When the kernel that may still run uses the memory, the access is
// missing_sync's finding instead: one finding per access. Memory attached to the host or to a
// stream with no work left (`cudaStreamAttachMemAsync`, `cudaMemAttachHost`) stays the host's.
// Lines that must be reported end with an annotation; ok_* functions stay silent.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

__global__ void sum_into(const float* in, float* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, in[i]);
}

__global__ void integrate(float* pos, const float* vel, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) pos[i] += vel[i] * dt;
}

static float* make_managed(size_t n) {
    float* p = nullptr;
    cudaMallocManaged(&p, n * sizeof(float));
    return p;
}

static void launch_scale(float* x, int n, cudaStream_t s) {
    scale<<<(n + 255) / 256, 256, 0, s>>>(x, 2.0f, n);
}

static void scale_and_wait(float* x, int n, cudaStream_t s) {
    scale<<<(n + 255) / 256, 256, 0, s>>>(x, 2.0f, n);
    cudaStreamSynchronize(s);
}

struct Simulation {
    float* pos;    // device memory
    float* vel;    // device memory
    float* stats;  // managed: read by the host for progress reports
    int n;
};

static Simulation make_simulation(int n) {
    Simulation sim;
    sim.n = n;
    cudaMalloc(&sim.pos, n * sizeof(float));
    cudaMalloc(&sim.vel, n * sizeof(float));
    cudaMallocManaged(&sim.stats, 16 * sizeof(float));
    return sim;
}

// ---- a kernel on other memory may still run ------------------------------------------------

float fires_counter_read_while_a_kernel_on_device_memory_runs(int n) {
    float *work, *counters;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&counters, 16 * sizeof(float));
    scale<<<(n + 255) / 256, 256>>>(work, 2.0f, n);
    cudaGetLastError();
    float c = counters[0]; //~ managed_concurrent_access
    cudaDeviceSynchronize();
    return c;
}

// The host prepares the next input while the previous kernel still runs.
void fires_next_input_prepared_while_a_kernel_runs(int n) {
    float *a, *b;
    cudaMallocManaged(&a, n * sizeof(float));
    cudaMallocManaged(&b, n * sizeof(float));
    for (int i = 0; i < n; ++i) a[i] = 1.0f;
    scale<<<(n + 255) / 256, 256>>>(a, 2.0f, n);
    for (int i = 0; i < n; ++i) b[i] = (float)i; //~ managed_concurrent_access
    scale<<<(n + 255) / 256, 256>>>(b, 3.0f, n);
    cudaDeviceSynchronize();
}

void fires_config_written_while_a_stream_kernel_runs(int n, cudaStream_t s) {
    float* work;
    int* config;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&config, sizeof(int));
    scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    *config = 2; //~ managed_concurrent_access
    cudaStreamSynchronize(s);
}

// Waiting for stream b does not finish the kernel on stream a.
float fires_wait_for_another_stream(int n) {
    cudaStream_t a, b;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    float *work, *stats;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&stats, 16 * sizeof(float));
    scale<<<(n + 255) / 256, 256, 0, a>>>(work, 2.0f, n);
    cudaStreamSynchronize(b);
    float v = stats[0]; //~ managed_concurrent_access
    cudaStreamSynchronize(a);
    return v;
}

float fires_event_recorded_before_the_kernel(int n, cudaStream_t s) {
    float *work, *stats;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&stats, 16 * sizeof(float));
    cudaEvent_t start;
    cudaEventCreate(&start);
    cudaEventRecord(start, s);
    scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    cudaEventSynchronize(start);
    float v = stats[1]; //~ managed_concurrent_access
    cudaStreamSynchronize(s);
    return v;
}

float fires_progress_read_in_a_loop_of_launches(int n, int steps, cudaStream_t s) {
    float *work, *progress;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&progress, sizeof(float));
    float last = 0.0f;
    for (int step = 0; step < steps; ++step) {
        scale<<<(n + 255) / 256, 256, 0, s>>>(work, 1.01f, n);
        last = *progress; //~ managed_concurrent_access
    }
    cudaStreamSynchronize(s);
    return last;
}

float fires_kernel_launched_on_some_paths(int n, bool busy, cudaStream_t s) {
    float *work, *stats;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&stats, 16 * sizeof(float));
    if (busy) {
        scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    }
    float total = 0.0f;
    for (int i = 0; i < 16; ++i) total += stats[i]; //~ managed_concurrent_access
    cudaStreamSynchronize(s);
    return total;
}

void fires_struct_stats_printed_during_a_step(int n, int steps, cudaStream_t s) {
    Simulation sim = make_simulation(n);
    for (int step = 0; step < steps; ++step) {
        integrate<<<(n + 255) / 256, 256, 0, s>>>(sim.pos, sim.vel, 0.01f, n);
        printf("step %d energy %f\n", step, sim.stats[0]); //~ managed_concurrent_access
    }
    cudaStreamSynchronize(s);
}

float fires_helper_launches_then_host_reads(int n, cudaStream_t s) {
    float* work;
    cudaMalloc(&work, n * sizeof(float));
    float* flags = make_managed(4);
    launch_scale(work, n, s);
    float f = flags[0]; //~ managed_concurrent_access
    cudaStreamSynchronize(s);
    return f;
}

unsigned fires_driver_managed_read(CUdeviceptr work, int n, CUstream s) {
    CUdeviceptr config;
    cuMemAllocManaged(&config, 64, CU_MEM_ATTACH_GLOBAL);
    scale<<<(n + 255) / 256, 256, 0, s>>>((float*)work, 2.0f, n);
    unsigned v = *(unsigned*)config; //~ managed_concurrent_access
    cuStreamSynchronize(s);
    return v;
}

float fires_kernel_started_with_cuda_launch_kernel(int n, cudaStream_t s) {
    float *work, *stats;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&stats, 16 * sizeof(float));
    float a = 2.0f;
    void* args[] = {&work, &a, &n};
    cudaLaunchKernel((const void*)scale, dim3((n + 255) / 256), dim3(256), args, 0, s);
    float v = stats[0]; //~ managed_concurrent_access
    cudaStreamSynchronize(s);
    return v;
}

// The kernel uses `x`, not `y`: reading `y` is this lint's, reading `x` is missing_sync's.
float fires_two_managed_arrays_the_kernel_uses_one(int n) {
    float *x, *y;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMallocManaged(&y, n * sizeof(float));
    scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
    float from_y = y[0]; //~ managed_concurrent_access
    float from_x = x[0]; //~ missing_sync
    cudaDeviceSynchronize();
    return from_x + from_y;
}

// ---- the running kernel uses the memory: missing_sync, not this lint --------------------------

float fires_result_read_while_its_kernel_writes_it(const float* in, int n) {
    float* total;
    cudaMallocManaged(&total, sizeof(float));
    *total = 0.0f;
    sum_into<<<(n + 255) / 256, 256>>>(in, total, n);
    return *total; //~ missing_sync
}

void fires_input_rewritten_while_its_kernel_reads_it(int n, cudaStream_t s) {
    float *pos, *vel;
    cudaMalloc(&pos, n * sizeof(float));
    cudaMallocManaged(&vel, n * sizeof(float));
    integrate<<<(n + 255) / 256, 256, 0, s>>>(pos, vel, 0.01f, n);
    for (int i = 0; i < n; ++i) vel[i] = 0.0f; //~ missing_sync
    cudaStreamSynchronize(s);
}

// ---- near misses -------------------------------------------------------------------------------

float ok_read_after_device_synchronize(int n) {
    float *work, *counters;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&counters, 16 * sizeof(float));
    scale<<<(n + 255) / 256, 256>>>(work, 2.0f, n);
    cudaDeviceSynchronize();
    return counters[0];
}

float ok_read_after_the_kernels_stream_synchronizes(int n, cudaStream_t s) {
    float *work, *stats;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&stats, 16 * sizeof(float));
    scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    cudaStreamSynchronize(s);
    return stats[0];
}

void ok_managed_written_before_the_launch(int n, cudaStream_t s) {
    float *work, *params;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&params, 4 * sizeof(float));
    params[0] = 1.0f;
    params[1] = 0.5f;
    scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    cudaStreamSynchronize(s);
}

float ok_event_recorded_after_the_kernel(int n, cudaStream_t s) {
    float *work, *stats;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&stats, 16 * sizeof(float));
    cudaEvent_t done;
    cudaEventCreate(&done);
    scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    cudaEventRecord(done, s);
    cudaEventSynchronize(done);
    return stats[0];
}

float ok_loop_waits_before_each_read(int n, int steps, cudaStream_t s) {
    float *work, *progress;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&progress, sizeof(float));
    float last = 0.0f;
    for (int step = 0; step < steps; ++step) {
        scale<<<(n + 255) / 256, 256, 0, s>>>(work, 1.01f, n);
        cudaStreamSynchronize(s);
        last = *progress;
    }
    return last;
}

float ok_helper_launches_and_waits(int n, cudaStream_t s) {
    float* work;
    cudaMalloc(&work, n * sizeof(float));
    float* flags = make_managed(4);
    scale_and_wait(work, n, s);
    return flags[0];
}

float ok_poll_the_stream_until_done(int n, cudaStream_t s) {
    float *work, *stats;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&stats, 16 * sizeof(float));
    scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    while (cudaStreamQuery(s) == cudaErrorNotReady) {
    }
    return stats[0];
}

// A copy is not a kernel: only kernels take managed memory away from the host.
float ok_async_copy_running_not_a_kernel(int n, cudaStream_t s) {
    float *work, *stats, *staging;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocHost(&staging, n * sizeof(float));
    cudaMallocManaged(&stats, 16 * sizeof(float));
    cudaMemcpyAsync(work, staging, n * sizeof(float), cudaMemcpyHostToDevice, s);
    float v = stats[0];
    cudaStreamSynchronize(s);
    return v;
}

// Pinned and pageable host memory are not managed: the host may touch them while a kernel on
// other memory runs.
float ok_pinned_host_memory_while_a_kernel_runs(int n, cudaStream_t s) {
    float *work, *pinned;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocHost(&pinned, 16 * sizeof(float));
    scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    pinned[0] = 1.0f;
    float v = pinned[1];
    cudaStreamSynchronize(s);
    return v;
}

float ok_early_return_before_any_launch(int n, bool work_needed, cudaStream_t s) {
    float *work, *stats;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&stats, 16 * sizeof(float));
    if (!work_needed) {
        return stats[0];
    }
    scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    cudaStreamSynchronize(s);
    return stats[0];
}

// Checks the device first: without concurrent managed access it waits for the kernels.
// Known problem, reported though harmless: the device attribute `cudaDevAttrConcurrentManagedAccess` tested by the program is not read (LINTS.md)
float known_fp_waits_where_the_device_lacks_concurrent_access(int n, int dev, cudaStream_t s) {
    int concurrent = 0;
    cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev);
    float *work, *stats;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&stats, 16 * sizeof(float));
    scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    if (!concurrent) {
        cudaDeviceSynchronize();
    }
    float v = stats[0]; //~ managed_concurrent_access
    cudaStreamSynchronize(s);
    return v;
}

// Allocated attached to the host: no kernel takes it while it stays there.
void ok_memory_allocated_attached_to_the_host(int n, cudaStream_t s) {
    float *work, *log;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&log, 256 * sizeof(float), cudaMemAttachHost);
    scale<<<(n + 255) / 256, 256, 0, s>>>(work, 2.0f, n);
    log[0] = 1.0f;
    cudaStreamSynchronize(s);
}

// The task pattern of a host thread per stream: the task's data is attached to its own stream,
// which is idle, so the host may use it while kernels run on other streams.
double ok_task_data_attached_to_its_idle_stream(int n, cudaStream_t other) {
    cudaStream_t mine;
    cudaStreamCreate(&mine);
    float *work, *task;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&task, n * sizeof(float));
    cudaStreamAttachMemAsync(mine, task, 0, cudaMemAttachSingle);
    cudaStreamSynchronize(mine);
    scale<<<(n + 255) / 256, 256, 0, other>>>(work, 2.0f, n);
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += task[i];
    cudaStreamSynchronize(other);
    return sum;
}

// The near-miss's twin: attached back to every stream, the memory is any kernel's again.
double fires_task_data_attached_back_to_all_streams(int n, cudaStream_t other) {
    cudaStream_t mine;
    cudaStreamCreate(&mine);
    float *work, *task;
    cudaMalloc(&work, n * sizeof(float));
    cudaMallocManaged(&task, n * sizeof(float));
    cudaStreamAttachMemAsync(mine, task, 0, cudaMemAttachSingle);
    cudaStreamAttachMemAsync(mine, task, 0, cudaMemAttachGlobal);
    cudaStreamSynchronize(mine);
    scale<<<(n + 255) / 256, 256, 0, other>>>(work, 2.0f, n);
    double sum = task[0]; //~ managed_concurrent_access
    cudaStreamSynchronize(other);
    return sum;
}

// Allocated attached to the host, then handed to the kernel's stream: a kernel that does not
// use it may still run elsewhere, but this one uses it, which is missing_sync's finding.
float fires_host_attached_memory_given_to_a_running_kernel(int n, cudaStream_t s) {
    float* data;
    cudaMallocManaged(&data, n * sizeof(float), cudaMemAttachHost);
    cudaStreamAttachMemAsync(s, data, 0, cudaMemAttachSingle);
    scale<<<(n + 255) / 256, 256, 0, s>>>(data, 2.0f, n);
    return data[0]; //~ missing_sync
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
