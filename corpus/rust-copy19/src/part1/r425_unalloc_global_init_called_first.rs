//! case: a `static mut` device table starts at 0 but `init_table()`, which the entry point calls first, allocates and fills it through its address; the lookup copy and the final free see an allocated pointer
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const ENTRIES: usize = 256;
const TABLE_BYTES: usize = ENTRIES * 8;

static mut D_TABLE: CUdeviceptr = 0;

fn init_table(values: &[u64; ENTRIES]) -> CUresult {
    unsafe {
        let rc = sys::cuMemAlloc_v2(&raw mut D_TABLE, TABLE_BYTES);
        if rc != CUresult::CUDA_SUCCESS {
            return rc;
        }
        sys::cuMemcpyHtoD_v2(D_TABLE, values.as_ptr() as *const c_void, TABLE_BYTES)
    }
}

fn lookup(index: usize) -> (u64, CUresult) {
    let mut v = 0u64;
    let rc = unsafe {
        sys::cuMemcpyDtoH_v2(&mut v as *mut u64 as *mut c_void, D_TABLE + (index * 8) as u64, 8)
    };
    (v, rc)
}

fn shutdown_table() -> CUresult {
    unsafe {
        let rc = sys::cuMemFree_v2(D_TABLE);
        D_TABLE = 0;
        rc
    }
}

pub fn run() -> Result<u64, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let mut values = [0u64; ENTRIES];
    for (i, v) in values.iter_mut().enumerate() {
        *v = (i as u64) * (i as u64);
    }
    let rc = init_table(&values);
    if rc != CUresult::CUDA_SUCCESS {
        return Err(format!("{rc:?}").into());
    }
    let (v, rc2) = lookup(17);
    let rc3 = shutdown_table();
    if rc2 != CUresult::CUDA_SUCCESS || rc3 != CUresult::CUDA_SUCCESS {
        return Err("table failed".into());
    }
    Ok(v)
}
