//! case: a tiling helper gathers image tiles from one host Vec into another with cudaMemcpy2D/cudaMemcpy under cudaMemcpyHostToHost before uploading the packed tiles with HostToDevice; every copy matches its memory.
//! expect: none
use cudarc::runtime::sys;
use std::ffi::c_void;

pub fn pack_tile(image: &[f32], width: usize, x0: usize, y0: usize, tile: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; tile * tile];
    unsafe {
        let src = image.as_ptr().add(y0 * width + x0);
        sys::cudaMemcpy2D(
            out.as_mut_ptr() as *mut c_void,
            tile * 4,
            src as *const c_void,
            width * 4,
            tile * 4,
            tile,
            sys::cudaMemcpyKind::cudaMemcpyHostToHost,
        );
    }
    out
}

pub fn upload_tiles(image: &[f32], width: usize, height: usize, tile: usize) -> (*mut c_void, usize) {
    let tx = width / tile;
    let ty = height / tile;
    let per = tile * tile;
    let mut packed = vec![0.0f32; tx * ty * per];
    for j in 0..ty {
        for i in 0..tx {
            let t = pack_tile(image, width, i * tile, j * tile, tile);
            let off = (j * tx + i) * per;
            unsafe {
                sys::cudaMemcpy(
                    packed.as_mut_ptr().add(off) as *mut c_void,
                    t.as_ptr() as *const c_void,
                    per * 4,
                    sys::cudaMemcpyKind::cudaMemcpyHostToHost,
                );
            }
        }
    }
    let mut d_tiles: *mut c_void = std::ptr::null_mut();
    unsafe {
        sys::cudaMalloc(&mut d_tiles, packed.len() * 4);
        sys::cudaMemcpy(d_tiles, packed.as_ptr() as *const c_void, packed.len() * 4, sys::cudaMemcpyKind::cudaMemcpyHostToDevice);
    }
    (d_tiles, tx * ty)
}
