//! case: Jacobi-preconditioned sparse solver staging its CSR arrays in `cudaMallocHost` memory (cudarc's runtime `sys` layer); the staging struct's `Drop` releases two arrays with `cudaFreeHost` but the values array with `cudaFree`, the device allocator's free: the driver refuses it and the pinned memory leaks
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys;

#[derive(Debug)]
pub struct RtError(pub sys::cudaError_t);

fn ok(e: sys::cudaError_t) -> Result<(), RtError> {
    if e == sys::cudaError_t::cudaSuccess { Ok(()) } else { Err(RtError(e)) }
}

/// Page-locked copies of a CSR matrix, reused across solves.
pub struct PinnedCsr {
    row_ptr: *mut i32,
    col_idx: *mut i32,
    values: *mut f64,
    n_rows: usize,
    nnz: usize,
}

unsafe fn pinned<T>(count: usize) -> Result<*mut T, RtError> {
    let mut p: *mut c_void = null_mut();
    ok(unsafe { sys::cudaMallocHost(&mut p, count * std::mem::size_of::<T>()) })?;
    Ok(p as *mut T)
}

impl PinnedCsr {
    pub fn from_triplets(n_rows: usize, triplets: &mut [(usize, usize, f64)]) -> Result<Self, RtError> {
        triplets.sort_unstable_by_key(|&(r, c, _)| (r, c));
        let nnz = triplets.len();
        let (row_ptr, col_idx, values) = unsafe { (pinned::<i32>(n_rows + 1)?, pinned::<i32>(nnz)?, pinned::<f64>(nnz)?) };
        let (rp, ci, va) = unsafe {
            (
                std::slice::from_raw_parts_mut(row_ptr, n_rows + 1),
                std::slice::from_raw_parts_mut(col_idx, nnz),
                std::slice::from_raw_parts_mut(values, nnz),
            )
        };
        rp.fill(0);
        for (k, &(r, c, v)) in triplets.iter().enumerate() {
            rp[r + 1] += 1;
            ci[k] = c as i32;
            va[k] = v;
        }
        for r in 0..n_rows {
            rp[r + 1] += rp[r];
        }
        Ok(Self { row_ptr, col_idx, values, n_rows, nnz })
    }

    /// Inverse diagonal, computed on the host for the Jacobi preconditioner.
    pub fn inverse_diagonal(&self) -> Vec<f64> {
        let (rp, ci, va) = unsafe {
            (
                std::slice::from_raw_parts(self.row_ptr, self.n_rows + 1),
                std::slice::from_raw_parts(self.col_idx, self.nnz),
                std::slice::from_raw_parts(self.values, self.nnz),
            )
        };
        (0..self.n_rows)
            .map(|r| {
                (rp[r] as usize..rp[r + 1] as usize)
                    .find(|&k| ci[k] as usize == r)
                    .map_or(1.0, |k| 1.0 / va[k])
            })
            .collect()
    }

    /// Uploads into device arrays allocated here; the caller frees them with `cudaFree`.
    pub fn upload(&self, stream: sys::cudaStream_t) -> Result<[*mut c_void; 3], RtError> {
        let sizes = [(self.n_rows + 1) * 4, self.nnz * 4, self.nnz * 8];
        let srcs = [self.row_ptr as *const c_void, self.col_idx as *const c_void, self.values as *const c_void];
        let mut dev = [null_mut::<c_void>(); 3];
        for ((d, &bytes), &src) in dev.iter_mut().zip(sizes.iter()).zip(srcs.iter()) {
            unsafe {
                ok(sys::cudaMalloc(d, bytes))?;
                ok(sys::cudaMemcpyAsync(*d, src, bytes, sys::cudaMemcpyKind::cudaMemcpyHostToDevice, stream))?;
            }
        }
        ok(unsafe { sys::cudaStreamSynchronize(stream) })?;
        Ok(dev)
    }
}

impl Drop for PinnedCsr {
    fn drop(&mut self) {
        unsafe {
            sys::cudaFreeHost(self.row_ptr as *mut c_void);
            sys::cudaFreeHost(self.col_idx as *mut c_void);
            sys::cudaFree(self.values as *mut c_void); // EXPECT: mismatched_free
        }
    }
}

pub fn upload_system(n_rows: usize, triplets: &mut [(usize, usize, f64)]) -> Result<(Vec<f64>, [*mut c_void; 3]), RtError> {
    let mut stream: sys::cudaStream_t = null_mut();
    ok(unsafe { sys::cudaStreamCreateWithFlags(&mut stream, sys::cudaStreamNonBlocking) })?;
    let csr = PinnedCsr::from_triplets(n_rows, triplets)?;
    let dinv = csr.inverse_diagonal();
    let dev = csr.upload(stream)?;
    drop(csr);
    unsafe { sys::cudaStreamDestroy(stream) };
    Ok((dinv, dev))
}
