//! case: a double-mapped VMM buffer (two reservations mapping one handle) is written by a kernel on a fill stream through one mapping and read on a compute stream through the other; the compute stream waits on an event recorded after the fill
//! expect: none

use std::error::Error;
use std::mem::zeroed;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void fill_ramp(float* dst, float scale, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = scale * i;
}
extern "C" __global__ void dot_ones(const float* src, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, src[i]);
}
"#;

struct DoubleMapped {
    handle: sys::CUmemGenericAllocationHandle,
    a: sys::CUdeviceptr,
    b: sys::CUdeviceptr,
    size: usize,
}

impl DoubleMapped {
    fn new(device: i32, size: usize) -> Result<Self, Box<dyn Error>> {
        let mut prop: sys::CUmemAllocationProp = unsafe { zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let mut m = DoubleMapped { handle: 0, a: 0, b: 0, size };
        unsafe {
            sys::cuMemCreate(&mut m.handle, size, &prop, 0).result()?;
            for va in [&mut m.a, &mut m.b] {
                sys::cuMemAddressReserve(va, size, 0, 0, 0).result()?;
                sys::cuMemMap(*va, size, 0, m.handle, 0).result()?;
                sys::cuMemSetAccess(*va, size, &access, 1).result()?;
            }
        }
        Ok(m)
    }
}

impl Drop for DoubleMapped {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            for va in [self.a, self.b] {
                let _ = sys::cuMemUnmap(va, self.size);
                let _ = sys::cuMemAddressFree(va, self.size);
            }
            let _ = sys::cuMemRelease(self.handle);
        }
    }
}

pub struct RampCheck {
    fill_stream: Arc<CudaStream>,
    compute_stream: Arc<CudaStream>,
    fill: CudaFunction,
    dot: CudaFunction,
    buf: DoubleMapped,
    acc: CudaSlice<f32>,
    acc_host: PinnedHostSlice<f32>,
}

impl RampCheck {
    pub fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self, Box<dyn Error>> {
        let module = ctx.load_module(compile_ptx(SRC)?)?;
        let compute_stream = ctx.new_stream()?;
        Ok(Self {
            fill_stream: ctx.new_stream()?,
            fill: module.load_function("fill_ramp")?,
            dot: module.load_function("dot_ones")?,
            buf: DoubleMapped::new(ctx.ordinal() as i32, bytes)?,
            acc: compute_stream.alloc_zeros::<f32>(1)?,
            acc_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(1, 0)? },
            compute_stream,
        })
    }

    pub fn sum_of_ramp(&mut self, scale: f32) -> Result<f32, Box<dyn Error>> {
        let n = (self.buf.size / 4) as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        let (writer, reader) = (self.buf.a, self.buf.b);
        unsafe { self.fill_stream.launch_builder(&self.fill).arg(&writer).arg(&scale).arg(&n).launch(cfg)? };
        let filled = self.fill_stream.record_event(None)?;
        self.compute_stream.wait(&filled)?;

        self.compute_stream.memset_zeros(&mut self.acc)?;
        unsafe { self.compute_stream.launch_builder(&self.dot).arg(&reader).arg(&mut self.acc).arg(&n).launch(cfg)? };
        self.compute_stream.memcpy_dtoh(&self.acc, &mut self.acc_host)?;
        self.compute_stream.synchronize()?;
        Ok(self.acc_host.as_slice()?[0])
    }
}
