//! case: a simulation field double-buffered behind one address; flip() maps the other physical buffer onto the range without unmapping the current one
//! expect: vmm_lifecycle=1
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const STEP_SRC: &str = r#"
extern "C" __global__ void diffuse(float* field, const float* prev, unsigned n, float k) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0 || i + 1 >= n) return;
    field[i] = prev[i] + k * (prev[i - 1] - 2.0f * prev[i] + prev[i + 1]);
}
"#;

pub struct FlipField {
    va: sys::CUdeviceptr,
    prev: sys::CUdeviceptr,
    bytes: usize,
    buffers: [sys::CUmemGenericAllocationHandle; 2],
    front: usize,
    access: sys::CUmemAccessDesc,
}

impl FlipField {
    pub fn new(dev: i32, bytes: usize) -> Result<Self, DriverError> {
        let loc = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: loc,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let access = sys::CUmemAccessDesc { location: loc, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let mut f = Self { va: 0, prev: 0, bytes, buffers: [0; 2], front: 0, access };
        unsafe {
            sys::cuMemCreate(&mut f.buffers[0], bytes, &prop, 0).result()?;
            sys::cuMemCreate(&mut f.buffers[1], bytes, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut f.va, bytes, 0, 0, 0).result()?;
            sys::cuMemAlloc_v2(&mut f.prev, bytes).result()?;
            sys::cuMemMap(f.va, bytes, 0, f.buffers[0], 0).result()?;
            sys::cuMemSetAccess(f.va, bytes, &f.access, 1).result()?;
        }
        Ok(f)
    }

    /// Keeps the current field as `prev` and puts the other buffer behind the field's address.
    pub fn flip(&mut self, stream: &CudaStream) -> Result<(), DriverError> {
        stream.synchronize()?;
        let back = 1 - self.front;
        unsafe {
            sys::cuMemcpyDtoD_v2(self.prev, self.va, self.bytes).result()?;
            sys::cuMemMap(self.va, self.bytes, 0, self.buffers[back], 0).result()?; // EXPECT: vmm_lifecycle
            sys::cuMemSetAccess(self.va, self.bytes, &self.access, 1).result()?;
        }
        self.front = back;
        Ok(())
    }

    pub fn step(&self, stream: &CudaStream, f: &CudaFunction, k: f32) -> Result<(), DriverError> {
        let n = (self.bytes / 4) as u32;
        unsafe { stream.launch_builder(f).arg(&self.va).arg(&self.prev).arg(&n).arg(&k).launch(LaunchConfig::for_num_elems(n))? };
        Ok(())
    }
}

impl Drop for FlipField {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.va, self.bytes);
            let _ = sys::cuMemAddressFree(self.va, self.bytes);
            let _ = sys::cuMemFree_v2(self.prev);
            self.buffers.iter().for_each(|&h| {
                let _ = sys::cuMemRelease(h);
            });
        }
    }
}

pub fn simulate(ctx: &Arc<CudaContext>, steps: usize) -> Result<(), Box<dyn std::error::Error>> {
    let f = ctx.load_module(compile_ptx(STEP_SRC)?)?.load_function("diffuse")?;
    let stream = ctx.default_stream();
    let mut field = FlipField::new(ctx.cu_device(), 16 << 20)?;
    for _ in 0..steps {
        field.flip(&stream)?;
        field.step(&stream, &f, 0.1)?;
    }
    stream.synchronize()?;
    Ok(())
}
