//! case: video analytics pipeline (VMM via cudarc's driver sys layer, kernels through cudarc's launch builder on raw addresses): the decode stream writes a frame through one mapping, records an event, and the detect stream waits on it before reading the same memory through a second mapping (near-miss: the streams are ordered)
//! expect: none

use cudarc::driver::sys::{
    self, CUdeviceptr, CUmemAccessDesc, CUmemAccess_flags, CUmemAllocationGranularity_flags, CUmemAllocationProp,
    CUmemAllocationType, CUmemGenericAllocationHandle, CUmemLocation, CUmemLocationType, CUresult,
};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

const PIPE_SRC: &str = r#"
extern "C" __global__ void decode_frame(const unsigned char* packet, unsigned n, unsigned char* frame) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) frame[i] = packet[i] ^ 0x5a;
}
extern "C" __global__ void detect_motion(const unsigned char* frame, const unsigned char* prev, unsigned n,
                                         unsigned* changed) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && abs((int)frame[i] - (int)prev[i]) > 24) atomicAdd(changed, 1u);
}
"#;

fn ok(r: CUresult) -> Result<(), Box<dyn std::error::Error>> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(format!("{r:?}").into()) }
}

/// One frame buffer, visible to the decoder and to the detector at two addresses.
pub struct SharedFrame {
    decode_va: CUdeviceptr,
    detect_va: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
}

impl SharedFrame {
    pub fn new(device: i32, bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let location = CUmemLocation { type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
        let mut prop: CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location = location;
        let access = CUmemAccessDesc { location, flags: CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let (mut gran, mut handle, mut a, mut b) = (0usize, 0u64, 0u64, 0u64);
        unsafe {
            ok(sys::cuMemGetAllocationGranularity(&mut gran, &prop, CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM))?;
            let size = bytes.div_ceil(gran) * gran;
            ok(sys::cuMemCreate(&mut handle, size, &prop, 0))?;
            ok(sys::cuMemAddressReserve(&mut a, size, 0, 0, 0))?;
            ok(sys::cuMemAddressReserve(&mut b, size, 0, 0, 0))?;
            ok(sys::cuMemMap(a, size, 0, handle, 0))?;
            ok(sys::cuMemMap(b, size, 0, handle, 0))?;
            ok(sys::cuMemSetAccess(a, size, &access, 1))?;
            ok(sys::cuMemSetAccess(b, size, &access, 1))?;
            Ok(SharedFrame { decode_va: a, detect_va: b, size, handle })
        }
    }
}

impl Drop for SharedFrame {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemUnmap(self.decode_va, self.size);
            sys::cuMemUnmap(self.detect_va, self.size);
            sys::cuMemRelease(self.handle);
            sys::cuMemAddressFree(self.decode_va, self.size);
            sys::cuMemAddressFree(self.detect_va, self.size);
        }
    }
}

pub struct MotionPipeline {
    decode: Arc<CudaStream>,
    detect: Arc<CudaStream>,
    decode_fn: CudaFunction,
    detect_fn: CudaFunction,
}

impl MotionPipeline {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(PIPE_SRC)?)?;
        Ok(MotionPipeline {
            decode: ctx.new_stream()?,
            detect: ctx.new_stream()?,
            decode_fn: module.load_function("decode_frame")?,
            detect_fn: module.load_function("detect_motion")?,
        })
    }

    pub fn process(&self, frame: &SharedFrame, packet: &CudaSlice<u8>, prev: &CudaSlice<u8>, changed: &mut CudaSlice<u32>) -> Result<(), Box<dyn std::error::Error>> {
        let n = packet.len().min(frame.size) as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        let decode_va = frame.decode_va;
        let detect_va = frame.detect_va;
        unsafe {
            self.decode.launch_builder(&self.decode_fn).arg(packet).arg(&n).arg(&decode_va).launch(cfg)?;
        }
        let decoded = self.decode.record_event(None)?;
        self.detect.wait(&decoded)?;
        unsafe {
            self.detect.launch_builder(&self.detect_fn).arg(&detect_va).arg(prev).arg(&n).arg(changed).launch(cfg)?;
        }
        self.detect.synchronize()?;
        Ok(())
    }
}
