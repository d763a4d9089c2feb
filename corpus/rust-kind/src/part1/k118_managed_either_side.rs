//! case: a reinforcement-learning replay buffer lives in cudaMallocManaged memory and is filled from host Vecs with HostToDevice and drained into a cudaMalloc batch with DeviceToHost/DeviceToDevice kinds; managed memory never contradicts a stated direction.
//! expect: none
use cudarc::runtime::sys;
use std::ffi::c_void;

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Transition {
    pub state: [f32; 8],
    pub action: u32,
    pub reward: f32,
    pub next_state: [f32; 8],
    pub done: u32,
}

pub struct ReplayBuffer {
    pub slots: *mut c_void,
    pub capacity: usize,
    pub head: usize,
}

pub fn new_replay(capacity: usize) -> ReplayBuffer {
    let mut slots: *mut c_void = std::ptr::null_mut();
    unsafe {
        sys::cudaMallocManaged(&mut slots, capacity * std::mem::size_of::<Transition>(), 1);
    }
    ReplayBuffer { slots, capacity, head: 0 }
}

pub fn push_episode(rb: &mut ReplayBuffer, episode: &Vec<Transition>) {
    let sz = std::mem::size_of::<Transition>();
    for t in episode {
        let dst = unsafe { (rb.slots as *mut u8).add(rb.head * sz) } as *mut c_void;
        unsafe {
            sys::cudaMemcpy(dst, t as *const Transition as *const c_void, sz, sys::cudaMemcpyKind::cudaMemcpyHostToDevice);
        }
        rb.head = (rb.head + 1) % rb.capacity;
    }
}

pub fn sample_batch(rb: &ReplayBuffer, batch: usize) -> (*mut c_void, Vec<Transition>) {
    let bytes = batch * std::mem::size_of::<Transition>();
    let mut d_batch: *mut c_void = std::ptr::null_mut();
    let mut debug_copy = vec![Transition::default(); batch];
    unsafe {
        sys::cudaMalloc(&mut d_batch, bytes);
        sys::cudaMemcpy(d_batch, rb.slots, bytes, sys::cudaMemcpyKind::cudaMemcpyDeviceToDevice);
        sys::cudaMemcpy(debug_copy.as_mut_ptr() as *mut c_void, rb.slots, bytes, sys::cudaMemcpyKind::cudaMemcpyDeviceToHost);
        // managed as the host side of a download from the device batch
        sys::cudaMemcpy(rb.slots, d_batch, bytes, sys::cudaMemcpyKind::cudaMemcpyDeviceToHost);
    }
    (d_batch, debug_copy)
}
