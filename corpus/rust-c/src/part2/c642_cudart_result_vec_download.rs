//! case: a libcudart-based match engine uploads order batches from cudaMallocHost memory, but downloads its 4 MiB fill report with cudaMemcpyAsync into a `Vec<u8>` (pageable) before synchronizing and parsing it
//! expect: pageable_async_copy=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys;

pub const REPORT_BYTES: usize = 4 << 20;
pub const ORDER_BYTES: usize = 32;

pub struct MatchEngine {
    stream: sys::cudaStream_t,
    orders_host: *mut c_void,
    orders_dev: *mut c_void,
    report_dev: *mut c_void,
    max_orders: usize,
}

#[derive(Debug, Clone, Copy)]
pub struct Fill {
    pub order_id: u64,
    pub qty: u32,
    pub price_ticks: u32,
}

impl MatchEngine {
    pub fn new(max_orders: usize) -> Result<Self, RuntimeError> {
        let mut e = MatchEngine { stream: null_mut(), orders_host: null_mut(), orders_dev: null_mut(), report_dev: null_mut(), max_orders };
        unsafe {
            sys::cudaStreamCreateWithFlags(&mut e.stream, sys::cudaStreamNonBlocking).result()?;
            sys::cudaMallocHost(&mut e.orders_host, max_orders * ORDER_BYTES).result()?;
            sys::cudaMalloc(&mut e.orders_dev, max_orders * ORDER_BYTES).result()?;
            sys::cudaMalloc(&mut e.report_dev, REPORT_BYTES).result()?;
        }
        Ok(e)
    }

    pub fn stage_orders(&mut self, encoded: &[[u8; ORDER_BYTES]]) -> Result<(), RuntimeError> {
        let n = encoded.len().min(self.max_orders);
        // The previous batch's upload may still be reading the staging area.
        unsafe { sys::cudaStreamSynchronize(self.stream).result()? };
        let dst = unsafe { std::slice::from_raw_parts_mut(self.orders_host as *mut [u8; ORDER_BYTES], n) };
        dst.copy_from_slice(&encoded[..n]);
        unsafe {
            sys::cudaMemcpyAsync(self.orders_dev, self.orders_host, n * ORDER_BYTES, sys::cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream)
                .result()
        }
        // (the matching kernel is launched by the C++ side on the same stream)
    }

    pub fn fills(&mut self) -> Result<Vec<Fill>, RuntimeError> {
        let mut report = vec![0u8; REPORT_BYTES];
        unsafe {
            sys::cudaMemcpyAsync( // EXPECT: pageable_async_copy
                report.as_mut_ptr() as *mut c_void,
                self.report_dev,
                REPORT_BYTES,
                sys::cudaMemcpyKind::cudaMemcpyDeviceToHost,
                self.stream,
            )
            .result()?;
            sys::cudaStreamSynchronize(self.stream).result()?;
        }
        let count = u32::from_le_bytes(report[..4].try_into().unwrap()) as usize;
        Ok(report[16..]
            .chunks_exact(16)
            .take(count)
            .map(|r| Fill {
                order_id: u64::from_le_bytes(r[..8].try_into().unwrap()),
                qty: u32::from_le_bytes(r[8..12].try_into().unwrap()),
                price_ticks: u32::from_le_bytes(r[12..16].try_into().unwrap()),
            })
            .collect())
    }
}

impl Drop for MatchEngine {
    fn drop(&mut self) {
        unsafe {
            sys::cudaStreamSynchronize(self.stream);
            sys::cudaFree(self.report_dev);
            sys::cudaFree(self.orders_dev);
            sys::cudaFreeHost(self.orders_host);
            sys::cudaStreamDestroy(self.stream);
        }
    }
}
