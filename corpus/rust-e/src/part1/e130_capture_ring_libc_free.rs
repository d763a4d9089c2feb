//! case: microphone-array capture bridge; period buffers come from cuMemAllocHost so uploads overlap, they are handed to a C-style callback API, and the bridge's Drop gives them back with libc::free like the C library's own buffers
//! expect: mismatched_free=1

use std::collections::VecDeque;
use std::ffi::c_void;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;

#[link(name = "cuda")]
unsafe extern "C" {
    #[link_name = "cuMemAllocHost_v2"]
    fn cu_mem_alloc_host(pp: *mut *mut c_void, bytesize: usize) -> CUresult;
    #[link_name = "cuMemcpyHtoDAsync_v2"]
    fn cu_memcpy_htod_async(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: CUstream) -> CUresult;
    #[link_name = "cuStreamSynchronize"]
    fn cu_stream_synchronize(stream: CUstream) -> CUresult;
    #[link_name = "cuEventRecord"]
    fn cu_event_record(event: *mut c_void, stream: CUstream) -> CUresult;
    #[link_name = "cuEventQuery"]
    fn cu_event_query(event: *mut c_void) -> CUresult;
}

const CUDA_SUCCESS: CUresult = 0;

struct Period {
    samples: *mut i16,
    uploaded: Option<*mut c_void>, // event recorded after the upload of this period
}

pub struct CaptureBridge {
    stream: CUstream,
    free: VecDeque<Period>,
    in_flight: VecDeque<Period>,
    period_samples: usize,
    device_ring: CUdeviceptr,
    ring_periods: usize,
    next_slot: usize,
}

impl CaptureBridge {
    pub fn new(stream: CUstream, device_ring: CUdeviceptr, ring_periods: usize, channels: usize, frames: usize, periods: usize) -> Result<Self, CUresult> {
        let period_samples = channels * frames;
        let mut free = VecDeque::with_capacity(periods);
        for _ in 0..periods {
            let mut p: *mut c_void = std::ptr::null_mut();
            let rc = unsafe { cu_mem_alloc_host(&mut p, period_samples * 2) };
            if rc != CUDA_SUCCESS {
                return Err(rc);
            }
            free.push_back(Period { samples: p as *mut i16, uploaded: None });
        }
        Ok(CaptureBridge { stream, free, in_flight: VecDeque::new(), period_samples, device_ring, ring_periods, next_slot: 0 })
    }

    /// Called by the capture driver: fill one period, then it is uploaded to the device ring.
    pub fn on_period(&mut self, events: &mut Vec<*mut c_void>, fill: impl FnOnce(&mut [i16])) -> Result<bool, CUresult> {
        while let Some(state) = self.in_flight.front().map(|p| p.uploaded) {
            match state {
                Some(ev) if unsafe { cu_event_query(ev) } != CUDA_SUCCESS => break,
                _ => {
                    let mut done = self.in_flight.pop_front().expect("front exists");
                    if let Some(ev) = done.uploaded.take() {
                        events.push(ev);
                    }
                    self.free.push_back(done);
                }
            }
        }
        let Some(mut period) = self.free.pop_front() else { return Ok(false) };
        let Some(ev) = events.pop() else {
            self.free.push_front(period);
            return Ok(false);
        };
        fill(unsafe { std::slice::from_raw_parts_mut(period.samples, self.period_samples) });
        let bytes = self.period_samples * 2;
        let dst = self.device_ring + (self.next_slot * bytes) as u64;
        unsafe {
            let rc = cu_memcpy_htod_async(dst, period.samples as *const c_void, bytes, self.stream);
            if rc != CUDA_SUCCESS {
                return Err(rc);
            }
            cu_event_record(ev, self.stream);
        }
        period.uploaded = Some(ev);
        self.in_flight.push_back(period);
        self.next_slot = (self.next_slot + 1) % self.ring_periods;
        Ok(true)
    }
}

impl Drop for CaptureBridge {
    fn drop(&mut self) {
        unsafe {
            cu_stream_synchronize(self.stream);
            for p in self.free.drain(..).chain(self.in_flight.drain(..)) {
                libc::free(p.samples as *mut c_void); // EXPECT: mismatched_free
            }
        }
    }
}
