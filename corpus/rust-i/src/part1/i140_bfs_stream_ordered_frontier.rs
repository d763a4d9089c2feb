//! case: level-synchronous BFS on a CSR graph (cudarc driver::sys): each level's next-frontier buffer comes from cuMemAllocAsync on the traversal stream and is released with cuMemFreeAsync on that same stream after the expand kernel, so the free is ordered after the kernel (near-miss for missing_sync)
//! expect: none

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys;
use cudarc::nvrtc::compile_ptx;

const BFS_SRC: &str = r#"
extern "C" __global__ void expand(const int* row_ptr, const int* cols, const int* frontier, int frontier_len,
                                  int* next, int* next_len, int* depth, int level) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frontier_len) return;
    int v = frontier[t];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int u = cols[e];
        if (atomicCAS(&depth[u], -1, level + 1) == -1) next[atomicAdd(next_len, 1)] = u;
    }
}
extern "C" __global__ void compact_copy(const int* src, int* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
"#;

pub struct CsrGraph {
    pub row_ptr: sys::CUdeviceptr,
    pub cols: sys::CUdeviceptr,
    pub vertices: usize,
}

fn launch(f: sys::CUfunction, n: u32, stream: sys::CUstream, params: &mut [*mut c_void]) -> Result<(), sys::CUresult> {
    let r = unsafe { sys::cuLaunchKernel(f, n.div_ceil(256).max(1), 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()) };
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

/// Fills `depth` (device, `vertices` ints, preset to -1 except the source = 0) level by level.
pub fn bfs_levels(g: &CsrGraph, source: i32, depth: sys::CUdeviceptr, frontier: sys::CUdeviceptr, counter: sys::CUdeviceptr, stream: sys::CUstream) -> Result<i32, Box<dyn std::error::Error>> {
    let image = CString::new(compile_ptx(BFS_SRC)?.to_src())?;
    let mut module: sys::CUmodule = null_mut();
    let (mut expand, mut copy): (sys::CUfunction, sys::CUfunction) = (null_mut(), null_mut());
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut expand, module, c"expand".as_ptr()).result()?;
        sys::cuModuleGetFunction(&mut copy, module, c"compact_copy".as_ptr()).result()?;
    }
    let mut level = 0i32;
    let mut frontier_len = 1i32;
    let mut src = source;
    unsafe { sys::cuMemcpyHtoDAsync_v2(frontier, (&mut src) as *mut i32 as *const c_void, 4, stream).result()? };
    while frontier_len > 0 {
        let mut next: sys::CUdeviceptr = 0;
        unsafe {
            sys::cuMemAllocAsync(&mut next, g.vertices * 4, stream).result()?;
            sys::cuMemsetD32Async(counter, 0, 1, stream).result()?;
        }
        let (mut rp, mut cols, mut fr, mut fl, mut cnt, mut dep, mut lv) = (g.row_ptr, g.cols, frontier, frontier_len, counter, depth, level);
        let mut p = [
            (&mut rp) as *mut _ as *mut c_void,
            (&mut cols) as *mut _ as *mut c_void,
            (&mut fr) as *mut _ as *mut c_void,
            (&mut fl) as *mut i32 as *mut c_void,
            (&mut next) as *mut _ as *mut c_void,
            (&mut cnt) as *mut _ as *mut c_void,
            (&mut dep) as *mut _ as *mut c_void,
            (&mut lv) as *mut i32 as *mut c_void,
        ];
        launch(expand, frontier_len as u32, stream, &mut p).map_err(|e| format!("expand: {e:?}"))?;
        let mut next_len = 0i32;
        unsafe {
            sys::cuMemcpyDtoHAsync_v2((&mut next_len) as *mut i32 as *mut c_void, counter, 4, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
        let (mut nx, mut fr2, mut nl) = (next, frontier, next_len);
        let mut p2 = [(&mut nx) as *mut _ as *mut c_void, (&mut fr2) as *mut _ as *mut c_void, (&mut nl) as *mut i32 as *mut c_void];
        launch(copy, next_len.max(0) as u32, stream, &mut p2).map_err(|e| format!("copy: {e:?}"))?;
        // Stream-ordered free: runs after compact_copy has read `next`.
        unsafe { sys::cuMemFreeAsync(next, stream).result()? };
        frontier_len = next_len;
        level += 1;
    }
    unsafe {
        sys::cuStreamSynchronize(stream).result()?;
        sys::cuModuleUnload(module).result()?;
    }
    Ok(level)
}
