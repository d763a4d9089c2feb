//! case: a helper the crate defines frees every buffer of a struct; the prefix-sum kernel wrote `scan`, and release() frees it with nothing having read it
//! expect: unread_kernel_output=1

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const SRC: &str = r#"
extern "C" __global__ void naive_scan(const int* flags, int* scan, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int s = 0;
        for (int j = 0; j <= i; ++j) s += flags[j];
        scan[i] = s;
    }
}
"#;

const N: usize = 1024;

struct DeviceBuffers {
    flags: sys::CUdeviceptr,
    scan: sys::CUdeviceptr,
}

fn allocate() -> DeviceBuffers {
    let mut b = DeviceBuffers { flags: 0, scan: 0 };
    unsafe {
        sys::cuMemAlloc_v2(&mut b.flags, N * size_of::<i32>()).result().unwrap();
        sys::cuMemAlloc_v2(&mut b.scan, N * size_of::<i32>()).result().unwrap();
    }
    b
}

fn release(b: DeviceBuffers) {
    unsafe {
        sys::cuCtxSynchronize();
        sys::cuMemFree_v2(b.flags);
        sys::cuMemFree_v2(b.scan); // EXPECT: unread_kernel_output
    }
}

pub fn count_selected(flags: &[i32; N]) -> usize {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(SRC).unwrap()).unwrap().load_function("naive_scan").unwrap();
    let bufs = allocate();
    unsafe {
        sys::cuMemcpyHtoD_v2(bufs.flags, flags.as_ptr() as *const c_void, N * size_of::<i32>()).result().unwrap();
    }
    let n = N as i32;
    let mut b = stream.launch_builder(&f);
    b.arg(&bufs.flags).arg(&bufs.scan).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(N as u32)).unwrap() };
    // the total should have been scan[N-1], read back from the device
    let total = flags.iter().filter(|&&x| x != 0).count();
    release(bufs);
    total
}
