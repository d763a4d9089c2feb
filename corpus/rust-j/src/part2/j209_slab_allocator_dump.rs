//! case: GPU slab allocator (sys layer) carves size classes out of `cuMemAlloc_v2` slabs; its diagnostics dump builds a host slice over the freshly allocated slab's free-list header to print it
//! expect: host_deref_device_ptr=1

use std::collections::BTreeMap;
use std::fmt::Write as _;

use cudarc::driver::sys;

const SLAB_BYTES: usize = 4 << 20;
const HEADER_WORDS: usize = 64;

#[derive(Debug)]
pub struct AllocError(pub sys::CUresult);

fn ck(r: sys::CUresult) -> Result<(), AllocError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(AllocError(r)) }
}

pub struct Slab {
    base: sys::CUdeviceptr,
    class: usize,
    used: usize,
}

#[derive(Default)]
pub struct SlabAllocator {
    classes: BTreeMap<usize, Vec<Slab>>,
    pub verbose: bool,
}

impl SlabAllocator {
    fn class_for(bytes: usize) -> usize {
        bytes.next_power_of_two().max(256)
    }

    fn new_slab(&mut self, class: usize, stream: sys::CUstream) -> Result<&mut Slab, AllocError> {
        let mut base: sys::CUdeviceptr = 0;
        ck(unsafe { sys::cuMemAlloc_v2(&mut base, SLAB_BYTES) })?;
        // Free-list header: word i = offset of the i-th free block, written by the device.
        ck(unsafe { sys::cuMemsetD32Async(base, 0xFFFF_FFFF, HEADER_WORDS, stream) })?;
        ck(unsafe { sys::cuStreamSynchronize(stream) })?;
        if self.verbose {
            let mut line = format!("slab {base:#x} class {class}:");
            for w in unsafe { std::slice::from_raw_parts(base as *const u32, HEADER_WORDS) }.iter().take(8) { // EXPECT: host_deref_device_ptr
                let _ = write!(line, " {w:08x}");
            }
            eprintln!("{line}");
        }
        let list = self.classes.entry(class).or_default();
        list.push(Slab { base, class, used: HEADER_WORDS * 4 });
        Ok(list.last_mut().unwrap())
    }

    pub fn alloc(&mut self, bytes: usize, stream: sys::CUstream) -> Result<sys::CUdeviceptr, AllocError> {
        let class = Self::class_for(bytes);
        let has_room = self
            .classes
            .get(&class)
            .and_then(|v| v.last())
            .map_or(false, |s| s.used + class <= SLAB_BYTES);
        let slab = if has_room {
            self.classes.get_mut(&class).unwrap().last_mut().unwrap()
        } else {
            self.new_slab(class, stream)?
        };
        let ptr = slab.base + slab.used as u64;
        slab.used += slab.class;
        Ok(ptr)
    }

    pub fn release_all(&mut self, stream: sys::CUstream) {
        unsafe { sys::cuStreamSynchronize(stream) };
        for (_, slabs) in std::mem::take(&mut self.classes) {
            for s in slabs {
                unsafe { sys::cuMemFree_v2(s.base) };
            }
        }
    }
}
