//! case: runtime API: only the 64-byte header of a packet buffer is uploaded before the whole buffer is copied back; part of it was written, which counts as written
//! expect: none
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind};
use std::ffi::c_void;
use std::ptr;

const HEADER: usize = 64;
const PACKET: usize = 1500;

pub fn echo_header(header: &[u8; HEADER]) -> Result<Vec<u8>, String> {
    let mut back = vec![0u8; PACKET];
    let mut d_pkt: *mut c_void = ptr::null_mut();
    let mut e = [cudaError_t::cudaSuccess; 4];
    unsafe {
        e[0] = sys::cudaMalloc(&mut d_pkt, PACKET);
        e[1] = sys::cudaMemcpy(d_pkt, header.as_ptr() as *const c_void, HEADER, cudaMemcpyKind::cudaMemcpyHostToDevice);
        e[2] = sys::cudaMemcpy(back.as_mut_ptr() as *mut c_void, d_pkt, PACKET, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        e[3] = sys::cudaFree(d_pkt);
    }
    if e.iter().any(|x| *x != cudaError_t::cudaSuccess) {
        return Err(format!("{e:?}"));
    }
    back.truncate(HEADER);
    Ok(back)
}
