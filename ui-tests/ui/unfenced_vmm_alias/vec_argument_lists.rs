// A launch's argument list built with `vec![..]` (cudarc's `result::launch_kernel` takes
// `&mut [*mut c_void]`) keeps each argument in its place, as an array literal does: the kernel
// source says which argument it writes and which it reads.
use std::ffi::c_void;

use std::sync::Arc;

use cudarc::driver::{result, CudaContext};
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

const SRC: &str = r#"
extern "C" __global__ void write_a_read_b(volatile int* a, volatile int* b, int* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = i + 1;
    out[i] = b[i];
}

extern "C" __global__ void read_a_read_b(const int* a, const int* b, int* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    out[i] = a[i] + b[i];
}
"#;

/// One allocation mapped at `base` and at `base + size` (a mirrored ring).
unsafe fn mirrored(size: usize) -> CUdeviceptr {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        let (mut base, mut handle) = (0, 0);
        sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0);
        sys::cuMemCreate(&mut handle, size, &prop, 0);
        sys::cuMemMap(base, size, 0, handle, 0);
        sys::cuMemMap(base + size as u64, size, 0, handle, 0);
        let desc = sys::CUmemAccessDesc {
            location: prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        sys::cuMemSetAccess(base, 2 * size, &desc, 1);
        base
    }
}

fn fires_write_one_view_read_the_other(ctx: &Arc<CudaContext>, size: usize, out: CUdeviceptr, stream: CUstream) {
    let module = ctx.load_module(cudarc::nvrtc::compile_ptx(SRC).unwrap()).unwrap();
    let f = module.load_function("write_a_read_b").unwrap().cu_function();
    unsafe {
        let base = mirrored(size);
        let (mut a, mut b, mut o) = (base, base + size as u64, out);
        let mut params: Vec<*mut c_void> = vec![
            (&mut a as *mut CUdeviceptr).cast(),
            (&mut b as *mut CUdeviceptr).cast(),
            (&mut o as *mut CUdeviceptr).cast(),
        ];
        let _ = result::launch_kernel(f, (1, 1, 1), (256, 1, 1), 0, stream, &mut params); //~ unfenced_vmm_alias
        sys::cuStreamSynchronize(stream);
    }
}

fn ok_both_views_only_read(ctx: &Arc<CudaContext>, size: usize, out: CUdeviceptr, stream: CUstream) {
    let module = ctx.load_module(cudarc::nvrtc::compile_ptx(SRC).unwrap()).unwrap();
    let f = module.load_function("read_a_read_b").unwrap().cu_function();
    unsafe {
        let base = mirrored(size);
        let (mut a, mut b, mut o) = (base, base + size as u64, out);
        let mut params: Vec<*mut c_void> = vec![
            (&mut a as *mut CUdeviceptr).cast(),
            (&mut b as *mut CUdeviceptr).cast(),
            (&mut o as *mut CUdeviceptr).cast(),
        ];
        let _ = result::launch_kernel(f, (1, 1, 1), (256, 1, 1), 0, stream, &mut params);
        sys::cuStreamSynchronize(stream);
    }
}

fn main() {}
