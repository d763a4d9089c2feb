//! case: weather-ensemble post-processor copies each member's precipitation field into its own cuMemAllocHost buffer on a shared stream, records one event per member after its copy and synchronizes that member's event before computing exceedance probabilities from it
//! expect: none

use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;
type CUevent = *mut c_void;

const CU_EVENT_DISABLE_TIMING: c_uint = 0x2;

#[allow(non_snake_case)]
unsafe extern "C" {
    fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytes: usize) -> CUresult;
    fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    fn cuEventCreate(event: *mut CUevent, flags: c_uint) -> CUresult;
    fn cuEventRecord(event: CUevent, stream: CUstream) -> CUresult;
    fn cuEventSynchronize(event: CUevent) -> CUresult;
    fn cuEventDestroy_v2(event: CUevent) -> CUresult;
}

struct MemberSlot {
    host: *mut f32,
    copied: CUevent,
}

pub struct Ensemble {
    slots: Vec<MemberSlot>,
    points: usize,
}

impl Ensemble {
    pub fn new(members: usize, points: usize) -> Result<Self, CUresult> {
        let mut slots = Vec::with_capacity(members);
        for _ in 0..members {
            let mut p: *mut c_void = null_mut();
            let mut e: CUevent = null_mut();
            unsafe {
                let r = cuMemAllocHost_v2(&mut p, points * 4);
                if r != 0 {
                    return Err(r);
                }
                let r = cuEventCreate(&mut e, CU_EVENT_DISABLE_TIMING);
                if r != 0 {
                    cuMemFreeHost(p);
                    return Err(r);
                }
            }
            slots.push(MemberSlot { host: p.cast(), copied: e });
        }
        Ok(Self { slots, points })
    }

    /// `fields[m]` is member m's precipitation on the device; returns P(precip > threshold) per point.
    pub fn exceedance(&mut self, stream: CUstream, fields: &[CUdeviceptr], threshold: f32) -> Result<Vec<f32>, CUresult> {
        let bytes = self.points * 4;
        for (slot, &d) in self.slots.iter().zip(fields) {
            unsafe {
                let r = cuMemcpyDtoHAsync_v2(slot.host.cast(), d, bytes, stream);
                if r != 0 {
                    return Err(r);
                }
                cuEventRecord(slot.copied, stream);
            }
        }
        let mut prob = vec![0.0f32; self.points];
        let used = self.slots.len().min(fields.len());
        for slot in &self.slots[..used] {
            unsafe {
                let r = cuEventSynchronize(slot.copied);
                if r != 0 {
                    return Err(r);
                }
                let member = std::slice::from_raw_parts(slot.host, self.points);
                for (p, &v) in prob.iter_mut().zip(member) {
                    if v > threshold {
                        *p += 1.0;
                    }
                }
            }
        }
        prob.iter_mut().for_each(|p| *p /= used.max(1) as f32);
        Ok(prob)
    }
}

impl Drop for Ensemble {
    fn drop(&mut self) {
        for slot in self.slots.drain(..) {
            unsafe {
                cuEventSynchronize(slot.copied);
                cuEventDestroy_v2(slot.copied);
                cuMemFreeHost(slot.host.cast());
            }
        }
    }
}
