//! case: object detector writes its surviving boxes straight into mapped pinned memory (cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP, no write-combining); the kernel gets the device alias from cuMemHostGetDevicePointer, the host reads through the host pointer after synchronizing the stream
//! expect: none

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SELECT_SRC: &str = r#"
struct Box { float x0, y0, x1, y1, score; int label; };
extern "C" __global__ void select_boxes(const float* logits, const float* anchors, int n, int n_classes,
                                        float threshold, Box* out, unsigned int* count, unsigned int max_out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int best = 0; float best_s = logits[i * n_classes];
    for (int c = 1; c < n_classes; ++c) if (logits[i * n_classes + c] > best_s) { best_s = logits[i * n_classes + c]; best = c; }
    float s = 1.0f / (1.0f + __expf(-best_s));
    if (s < threshold) return;
    unsigned int slot = atomicAdd(count, 1u);
    if (slot >= max_out) return;
    Box b = { anchors[4*i], anchors[4*i+1], anchors[4*i+2], anchors[4*i+3], s, best };
    out[slot] = b;
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Detection {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
    pub score: f32,
    pub label: i32,
}

const HEADER: usize = 16; // the counter, padded

pub struct Detector {
    stream: Arc<CudaStream>,
    select: CudaFunction,
    host: *mut u8,
    dev_alias: sys::CUdeviceptr,
    max_out: u32,
}

impl Detector {
    pub fn new(ctx: &Arc<CudaContext>, max_out: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let select = ctx.load_module(compile_ptx(SELECT_SRC)?)?.load_function("select_boxes")?;
        let bytes = HEADER + max_out as usize * std::mem::size_of::<Detection>();
        let mut host: *mut c_void = std::ptr::null_mut();
        let mut dev_alias: sys::CUdeviceptr = 0;
        unsafe {
            sys::cuMemHostAlloc(&mut host, bytes, sys::CU_MEMHOSTALLOC_DEVICEMAP).result()?;
            sys::cuMemHostGetDevicePointer_v2(&mut dev_alias, host, 0).result()?;
        }
        Ok(Detector { stream, select, host: host as *mut u8, dev_alias, max_out })
    }

    pub fn detect(&self, logits: &CudaSlice<f32>, anchors: &CudaSlice<f32>, n_classes: i32, threshold: f32) -> Result<Vec<Detection>, DriverError> {
        unsafe { (self.host as *mut u32).write(0) }; // host side of the mapped counter; nothing in flight
        let n = (anchors.len() / 4) as i32;
        let out = self.dev_alias + HEADER as u64;
        let count = self.dev_alias;
        let mut launch = self.stream.launch_builder(&self.select);
        launch.arg(logits).arg(anchors).arg(&n).arg(&n_classes).arg(&threshold).arg(&out).arg(&count).arg(&self.max_out);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;
        self.stream.synchronize()?;
        let found = unsafe { (self.host as *const u32).read() }.min(self.max_out) as usize;
        let boxes = unsafe { std::slice::from_raw_parts(self.host.add(HEADER) as *const Detection, found) };
        let mut dets = boxes.to_vec();
        dets.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(dets)
    }
}

impl Drop for Detector {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            sys::cuMemFreeHost(self.host as *mut c_void);
        }
    }
}
