// A struct pushed into a `Vec` keeps its fields apart: `slots[i].host` is the pinned buffer,
// `slots[i].dev` the device one.
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;

struct Slot {
    host: *mut u8,
    dev: sys::CUdeviceptr,
}

fn slots(n: usize, bytes: usize) -> Vec<Slot> {
    let mut slots = Vec::with_capacity(n);
    for _ in 0..n {
        let mut host: *mut c_void = null_mut();
        let mut dev = 0;
        unsafe {
            sys::cuMemHostAlloc(&mut host, bytes, 0);
            sys::cuMemAlloc_v2(&mut dev, bytes);
        }
        slots.push(Slot { host: host.cast(), dev });
    }
    slots
}

fn ok_packet_written_into_the_host_side(packet: &[u8], stream: sys::CUstream) {
    let ring = slots(4, 1 << 16);
    let slot = &ring[1];
    unsafe {
        std::ptr::copy_nonoverlapping(packet.as_ptr(), slot.host, packet.len());
        sys::cuMemcpyHtoDAsync_v2(slot.dev, slot.host.cast(), packet.len(), stream);
        sys::cuStreamSynchronize(stream);
    }
}

fn fires_packet_written_into_the_device_side(packet: &[u8]) {
    let ring = slots(4, 1 << 16);
    let slot = &ring[1];
    unsafe {
        std::ptr::copy_nonoverlapping(packet.as_ptr(), slot.dev as *mut u8, packet.len()); //~ host_deref_device_ptr
    }
}

fn main() {}
