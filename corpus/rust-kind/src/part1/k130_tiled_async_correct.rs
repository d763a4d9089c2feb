//! case: an out-of-core matrix transpose streams tiles through cudaMemcpyAsync (upload HostToDevice from a Box<[f64]>, DeviceToDevice into a scratch tile, download with a local `let kind = DeviceToHost`), every kind matching its pointers.
//! expect: none
use cudarc::runtime::sys;
use std::ffi::c_void;

pub struct TileEngine {
    pub d_tile: *mut c_void,
    pub d_scratch: *mut c_void,
    pub stream: sys::cudaStream_t,
    pub tile: usize,
}

pub fn engine(tile: usize) -> TileEngine {
    let bytes = tile * tile * 8;
    let mut e = TileEngine { d_tile: std::ptr::null_mut(), d_scratch: std::ptr::null_mut(), stream: std::ptr::null_mut(), tile };
    unsafe {
        sys::cudaMalloc(&mut e.d_tile, bytes);
        sys::cudaMalloc(&mut e.d_scratch, bytes);
        sys::cudaStreamCreate(&mut e.stream);
    }
    e
}

pub fn transpose_tiles(e: &TileEngine, input: &Box<[f64]>, tiles: usize) -> Box<[f64]> {
    let per = e.tile * e.tile;
    let bytes = per * 8;
    let mut output: Box<[f64]> = vec![0.0; tiles * per].into_boxed_slice();
    let kind = sys::cudaMemcpyKind::cudaMemcpyDeviceToHost;
    for t in 0..tiles {
        unsafe {
            sys::cudaMemcpyAsync(
                e.d_tile,
                input.as_ptr().add(t * per) as *const c_void,
                bytes,
                sys::cudaMemcpyKind::cudaMemcpyHostToDevice,
                e.stream,
            );
            sys::cudaMemcpyAsync(e.d_scratch, e.d_tile, bytes, sys::cudaMemcpyKind::cudaMemcpyDeviceToDevice, e.stream);
            // in-place transpose kernel on d_scratch
            sys::cudaMemcpyAsync(output.as_mut_ptr().add(t * per) as *mut c_void, e.d_scratch, bytes, kind, e.stream);
            sys::cudaStreamSynchronize(e.stream);
        }
    }
    output
}
