//! case: a segmented top-k takes its temporary storage from `malloc_async` (`cuMemAllocAsync`) and the guard's Drop returns it with `free_async` (`cuMemFreeAsync`) on the same stream the kernels run on: the free is stream-ordered after them, so dropping the guard before synchronizing is fine
//! expect: none

use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const TOPK_SRC: &str = r#"
extern "C" __global__ void segment_max(const float* v, const unsigned int* seg_off, unsigned int n_seg,
                                       float* tmp_val, unsigned int* tmp_idx) {
    unsigned int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n_seg) return;
    float best = -3.4e38f; unsigned int arg = seg_off[s];
    for (unsigned int i = seg_off[s]; i < seg_off[s + 1]; ++i) if (v[i] > best) { best = v[i]; arg = i; }
    tmp_val[s] = best; tmp_idx[s] = arg;
}
extern "C" __global__ void compact_winners(const float* tmp_val, const unsigned int* tmp_idx, unsigned int n_seg,
                                           float threshold, unsigned int* out_idx) {
    unsigned int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < n_seg) out_idx[s] = tmp_val[s] > threshold ? tmp_idx[s] : 0xFFFFFFFFu;
}
"#;

struct TempStorage {
    ptr: CUdeviceptr,
    stream: CUstream,
}

impl TempStorage {
    fn new(bytes: usize, stream: CUstream) -> Result<Self, DriverError> {
        Ok(Self { ptr: unsafe { result::malloc_async(stream, bytes)? }, stream })
    }
}

impl Drop for TempStorage {
    fn drop(&mut self) {
        // ordered after everything already enqueued on `stream`
        let _ = unsafe { result::free_async(self.ptr, self.stream) };
    }
}

pub struct SegmentedArgmax {
    stream: Arc<CudaStream>,
    seg_max: CudaFunction,
    compact: CudaFunction,
}

impl SegmentedArgmax {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let m = ctx.load_module(compile_ptx(TOPK_SRC)?)?;
        Ok(Self { stream: ctx.new_stream()?, seg_max: m.load_function("segment_max")?, compact: m.load_function("compact_winners")? })
    }

    pub fn run(
        &self,
        values: &CudaSlice<f32>,
        seg_off: &CudaSlice<u32>,
        threshold: f32,
        out_idx: &mut CudaSlice<u32>,
    ) -> Result<(), DriverError> {
        let n_seg = (seg_off.len() - 1) as u32;
        let tmp = TempStorage::new(n_seg as usize * 8, self.stream.cu_stream())?;
        let (tmp_val, tmp_idx) = (tmp.ptr, tmp.ptr + n_seg as u64 * 4);
        let cfg = LaunchConfig::for_num_elems(n_seg);

        let mut a = self.stream.launch_builder(&self.seg_max);
        a.arg(values).arg(seg_off).arg(&n_seg).arg(&tmp_val).arg(&tmp_idx);
        unsafe { a.launch(cfg) }?;
        let mut b = self.stream.launch_builder(&self.compact);
        b.arg(&tmp_val).arg(&tmp_idx).arg(&n_seg).arg(&threshold).arg(out_idx);
        unsafe { b.launch(cfg) }?;
        Ok(())
    }
}
