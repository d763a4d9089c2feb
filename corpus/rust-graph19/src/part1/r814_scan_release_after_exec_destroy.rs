//! Batched inclusive prefix sums (three-kernel scan) captured through cudarc's
//! `result` layer in thread-local mode. The block-sums workspace is a raw
//! allocation made before the capture; at the end of the phase the executable
//! graph and the graph are destroyed first, and only then is the workspace
//! released, with no launch after it.

use std::mem::size_of;
use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const SCAN_KERNELS: &str = r#"
#define BLOCK 256
extern "C" __global__ void scan_blocks(const float *x, float *y, float *block_sums, int n) {
    __shared__ float buf[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    buf[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int off = 1; off < BLOCK; off <<= 1) {
        float add = threadIdx.x >= off ? buf[threadIdx.x - off] : 0.0f;
        __syncthreads();
        buf[threadIdx.x] += add;
        __syncthreads();
    }
    if (i < n) y[i] = buf[threadIdx.x];
    if (threadIdx.x == BLOCK - 1) block_sums[blockIdx.x] = buf[BLOCK - 1];
}

extern "C" __global__ void scan_sums(float *block_sums, int blocks) {
    __shared__ float buf[BLOCK];
    buf[threadIdx.x] = threadIdx.x < blocks ? block_sums[threadIdx.x] : 0.0f;
    __syncthreads();
    for (int off = 1; off < BLOCK; off <<= 1) {
        float add = threadIdx.x >= off ? buf[threadIdx.x - off] : 0.0f;
        __syncthreads();
        buf[threadIdx.x] += add;
        __syncthreads();
    }
    if (threadIdx.x < blocks) block_sums[threadIdx.x] = buf[threadIdx.x];
}

extern "C" __global__ void add_offsets(float *y, const float *block_sums, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n && blockIdx.x > 0) y[i] += block_sums[blockIdx.x - 1];
}
"#;

const BLOCK: usize = 256;

pub struct BatchedScan {
    stream: Arc<CudaStream>,
    scan_blocks: CudaFunction,
    scan_sums: CudaFunction,
    add_offsets: CudaFunction,
    d_x: CudaSlice<f32>,
    d_y: CudaSlice<f32>,
    h_x: PinnedHostSlice<f32>,
    h_y: PinnedHostSlice<f32>,
    block_sums: sys::CUdeviceptr,
    n: usize,
}

impl BatchedScan {
    pub fn new(n: usize) -> Result<Self> {
        let n = n.min(BLOCK * BLOCK);
        let ctx = CudaContext::new(0)?;
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(SCAN_KERNELS)?)?;
        let scan_blocks = module.load_function("scan_blocks")?;
        let scan_sums = module.load_function("scan_sums")?;
        let add_offsets = module.load_function("add_offsets")?;
        let d_x = stream.alloc_zeros::<f32>(n)?;
        let d_y = stream.alloc_zeros::<f32>(n)?;
        let h_x = unsafe { ctx.alloc_pinned::<f32>(n)? };
        let h_y = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
        stream.synchronize()?;
        let block_sums = unsafe { result::malloc_sync(n.div_ceil(BLOCK) * size_of::<f32>()) }?;
        Ok(Self { stream, scan_blocks, scan_sums, add_offsets, d_x, d_y, h_x, h_y, block_sums, n })
    }

    /// Scans every batch with one captured graph, then gives the workspace back.
    pub fn scan_phase(&mut self, batches: &[Vec<f32>]) -> Result<Vec<Vec<f32>>> {
        if self.block_sums == 0 {
            return Err("workspace already released".into());
        }
        let s = self.stream.cu_stream();
        let blocks = self.n.div_ceil(BLOCK);
        let (n, nb) = (self.n as i32, blocks as i32);
        let grid = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (BLOCK as u32, 1, 1),
            shared_mem_bytes: 0,
        };

        unsafe { result::stream::begin_capture(s, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) }?;
        self.stream.memcpy_htod(&self.h_x, &mut self.d_x)?;
        let mut local = self.stream.launch_builder(&self.scan_blocks);
        local.arg(&self.d_x).arg(&mut self.d_y).arg(&self.block_sums).arg(&n);
        unsafe { local.launch(grid) }?;
        let mut sums = self.stream.launch_builder(&self.scan_sums);
        sums.arg(&self.block_sums).arg(&nb);
        unsafe {
            sums.launch(LaunchConfig {
                grid_dim: (1, 1, 1),
                block_dim: (BLOCK as u32, 1, 1),
                shared_mem_bytes: 0,
            })
        }?;
        let mut offsets = self.stream.launch_builder(&self.add_offsets);
        offsets.arg(&mut self.d_y).arg(&self.block_sums).arg(&n);
        unsafe { offsets.launch(grid) }?;
        self.stream.memcpy_dtoh(&self.d_y, &mut self.h_y)?;
        let graph = unsafe { result::stream::end_capture(s) }?;
        let exec = unsafe { result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) }?;

        let mut scanned = Vec::with_capacity(batches.len());
        for batch in batches {
            let k = batch.len().min(self.n);
            let x = self.h_x.as_mut_slice()?;
            x.fill(0.0);
            x[..k].copy_from_slice(&batch[..k]);
            unsafe { result::graph::launch(exec, s) }?;
            self.stream.synchronize()?;
            scanned.push(self.h_y.as_slice()?[..k].to_vec());
        }

        unsafe { result::graph::exec_destroy(exec) }?;
        unsafe { result::graph::destroy(graph) }?;
        // The phase is over: hand the workspace back before the next phase sizes its own.
        unsafe { result::free_sync(self.block_sums) }?;
        self.block_sums = 0;
        Ok(scanned)
    }
}

impl Drop for BatchedScan {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        if self.block_sums != 0 {
            unsafe {
                let _ = result::free_sync(self.block_sums);
            }
        }
    }
}
