//! case: CT volume upload staged in `cudaHostAlloc(.., cudaHostAllocWriteCombined)` memory (cudarc's runtime `sys` layer), which is the right kind for host-to-device staging; after the upload the loader "verifies" each slice by summing the staging buffer on the host: a host read of write-combined memory
//! expect: write_combined_host_read=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys;

#[derive(Debug)]
pub struct LoadError(pub sys::cudaError_t);

fn ok(e: sys::cudaError_t) -> Result<(), LoadError> {
    if e == sys::cudaError_t::cudaSuccess { Ok(()) } else { Err(LoadError(e)) }
}

/// Something that yields reconstructed CT slices (DICOM reader, network, ...).
pub trait SliceSource {
    fn slice_len(&self) -> usize;
    fn read_slice(&mut self, z: usize, out: &mut [i16]) -> bool;
}

pub struct DeviceVolume {
    pub ptr: *mut i16,
    pub slices: usize,
    pub slice_len: usize,
    pub checksums: Vec<i64>,
}

pub fn load_volume<S: SliceSource>(source: &mut S, slices: usize) -> Result<DeviceVolume, LoadError> {
    let slice_len = source.slice_len();
    let slice_bytes = slice_len * std::mem::size_of::<i16>();
    let mut stream: sys::cudaStream_t = null_mut();
    let mut staging: *mut c_void = null_mut();
    let mut d_volume: *mut c_void = null_mut();
    unsafe {
        ok(sys::cudaStreamCreateWithFlags(&mut stream, sys::cudaStreamNonBlocking))?;
        ok(sys::cudaHostAlloc(&mut staging, slice_bytes, sys::cudaHostAllocWriteCombined))?;
        ok(sys::cudaMalloc(&mut d_volume, slice_bytes * slices))?;
    }
    let staged = unsafe { std::slice::from_raw_parts_mut(staging as *mut i16, slice_len) };
    let mut checksums = Vec::with_capacity(slices);

    for z in 0..slices {
        if !source.read_slice(z, staged) {
            break;
        }
        unsafe {
            let dst = (d_volume as *mut u8).add(z * slice_bytes) as *mut c_void;
            ok(sys::cudaMemcpyAsync(dst, staging, slice_bytes, sys::cudaMemcpyKind::cudaMemcpyHostToDevice, stream))?;
            ok(sys::cudaStreamSynchronize(stream))?;
        }
        let sum: i64 = staged.iter().map(|&v| v as i64).sum(); // EXPECT: write_combined_host_read
        checksums.push(sum);
    }

    unsafe {
        ok(sys::cudaFreeHost(staging))?;
        ok(sys::cudaStreamDestroy(stream))?;
    }
    Ok(DeviceVolume { ptr: d_volume as *mut i16, slices, slice_len, checksums })
}

impl Drop for DeviceVolume {
    fn drop(&mut self) {
        unsafe {
            sys::cudaFree(self.ptr as *mut c_void);
        }
    }
}
