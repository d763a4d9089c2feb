//! case: `upload_table` returns the CUdeviceptr it allocated to its caller, which uses it and frees it with cuMemFree_v2 on every path
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::CudaContext;
use std::ffi::c_void;

const ENTRIES: usize = 512;
const BYTES: usize = ENTRIES * 4;

fn upload_table(table: &[u32; ENTRIES]) -> Result<CUdeviceptr, CUresult> {
    let mut d: CUdeviceptr = 0;
    let rc = unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) };
    if rc != CUresult::CUDA_SUCCESS {
        return Err(rc);
    }
    let rc = unsafe { sys::cuMemcpyHtoD_v2(d, table.as_ptr() as *const c_void, BYTES) };
    if rc != CUresult::CUDA_SUCCESS {
        unsafe { sys::cuMemFree_v2(d) };
        return Err(rc);
    }
    Ok(d)
}

pub fn table_entry(table: &[u32; ENTRIES], index: usize) -> Result<u32, Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let d_table = upload_table(table).map_err(|e| format!("{e:?}"))?;
    let i = index % ENTRIES;
    let mut v = 0u32;
    let rc = unsafe { sys::cuMemcpyDtoH_v2(&mut v as *mut u32 as *mut c_void, d_table + (i * 4) as u64, 4) };
    unsafe { sys::cuMemFree_v2(d_table) };
    if rc != CUresult::CUDA_SUCCESS {
        return Err(format!("{rc:?}").into());
    }
    Ok(v)
}
