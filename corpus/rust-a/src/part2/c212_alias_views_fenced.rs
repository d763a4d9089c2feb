//! case: two VMM views of one allocation (separate reservations) used by one kernel that writes the first, runs fence.proxy.alias, then reads the second; launched with cuLaunchKernel
//! expect: none
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void stage_and_reload(float* tile_w, const float* tile_r, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tile_w[i] = out[i] * 0.5f;
    asm volatile("fence.proxy.alias;" ::: "memory");
    if (i < n) out[i] = tile_r[i] + 1.0f;
}
"#;

struct View {
    va: CUdeviceptr,
    size: usize,
}

fn map_view(handle: sys::CUmemGenericAllocationHandle, size: usize, dev: i32) -> Result<View, DriverError> {
    let mut va = 0;
    unsafe {
        sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
        sys::cuMemMap(va, size, 0, handle, 0).result()?;
        let desc = sys::CUmemAccessDesc {
            location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev },
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        sys::cuMemSetAccess(va, size, &desc, 1).result()?;
    }
    Ok(View { va, size })
}

impl Drop for View {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemUnmap(self.va, self.size);
            let _ = sys::cuMemAddressFree(self.va, self.size);
        }
    }
}

pub fn run(n: u32) -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let f = module.load_function("stage_and_reload")?;

    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ctx.cu_device();
    let mut gran = 0;
    unsafe { sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM) }.result()?;
    let bytes = (n as usize * 4).div_ceil(gran) * gran;
    let mut handle = 0;
    unsafe { sys::cuMemCreate(&mut handle, bytes, &prop, 0) }.result()?;
    let write_view = map_view(handle, bytes, ctx.cu_device())?;
    let read_view = map_view(handle, bytes, ctx.cu_device())?;
    unsafe { sys::cuMemRelease(handle) }.result()?; // freed with the last mapping

    let out = stream.alloc_zeros::<f32>(n as usize)?;
    let mut out_ptr = {
        use cudarc::driver::DevicePtr;
        let (p, _sync) = out.device_ptr(&stream);
        p
    };
    let (mut w, mut r, mut d) = (write_view.va, read_view.va, n);
    let mut params: [*mut c_void; 4] = [
        &mut w as *mut _ as *mut c_void,
        &mut r as *mut _ as *mut c_void,
        &mut out_ptr as *mut _ as *mut c_void,
        &mut d as *mut _ as *mut c_void,
    ];
    let blocks = n.div_ceil(256);
    unsafe {
        sys::cuLaunchKernel(f.cu_function(), blocks, 1, 1, 256, 1, 1, 0, stream.cu_stream(), params.as_mut_ptr(), null_mut())
            .result()?;
    }
    stream.synchronize()?;
    drop(read_view);
    drop(write_view);
    Ok(())
}
