//! case: query engine's allocation tracker keeps device, managed, pinned and registered host memory in one enum behind a trait; each variant is released by its own allocator's function (match in Drop), after the engine's stream is drained
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::collections::BTreeMap;
use std::ffi::c_void;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

pub enum Allocation {
    Device { ptr: sys::CUdeviceptr, bytes: usize },
    Managed { ptr: sys::CUdeviceptr, bytes: usize },
    Pinned { ptr: *mut c_void, bytes: usize },
    Registered { buf: Vec<u8> },
}

pub trait MemoryKind {
    fn bytes(&self) -> usize;
    fn label(&self) -> &'static str;
}

impl MemoryKind for Allocation {
    fn bytes(&self) -> usize {
        match self {
            Allocation::Device { bytes, .. } | Allocation::Managed { bytes, .. } | Allocation::Pinned { bytes, .. } => *bytes,
            Allocation::Registered { buf } => buf.len(),
        }
    }
    fn label(&self) -> &'static str {
        match self {
            Allocation::Device { .. } => "device",
            Allocation::Managed { .. } => "managed",
            Allocation::Pinned { .. } => "pinned",
            Allocation::Registered { .. } => "registered",
        }
    }
}

impl Allocation {
    pub fn device(bytes: usize) -> Res<Self> {
        let mut ptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) }.result()?;
        Ok(Allocation::Device { ptr, bytes })
    }
    pub fn managed(bytes: usize) -> Res<Self> {
        let mut ptr = 0;
        unsafe { sys::cuMemAllocManaged(&mut ptr, bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32) }.result()?;
        Ok(Allocation::Managed { ptr, bytes })
    }
    pub fn pinned(bytes: usize) -> Res<Self> {
        let mut ptr = std::ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut ptr, bytes) }.result()?;
        Ok(Allocation::Pinned { ptr, bytes })
    }
    pub fn registered(mut buf: Vec<u8>) -> Res<Self> {
        unsafe { sys::cuMemHostRegister_v2(buf.as_mut_ptr().cast(), buf.len(), 0) }.result()?;
        Ok(Allocation::Registered { buf })
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        unsafe {
            let _ = match self {
                Allocation::Device { ptr, .. } | Allocation::Managed { ptr, .. } => sys::cuMemFree_v2(*ptr),
                Allocation::Pinned { ptr, .. } => sys::cuMemFreeHost(*ptr),
                Allocation::Registered { buf } => sys::cuMemHostUnregister(buf.as_mut_ptr().cast()),
            };
        }
    }
}

pub struct Tracker {
    stream: sys::CUstream,
    live: BTreeMap<u64, Allocation>,
    next_id: u64,
}

impl Tracker {
    pub fn new() -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        Ok(Tracker { stream: drv::stream::create(drv::stream::StreamKind::NonBlocking)?, live: BTreeMap::new(), next_id: 0 })
    }

    pub fn track(&mut self, a: Allocation) -> u64 {
        self.next_id += 1;
        self.live.insert(self.next_id, a);
        self.next_id
    }

    pub fn stream(&self) -> sys::CUstream {
        self.stream
    }

    pub fn report(&self) -> Vec<(&'static str, usize)> {
        let mut by_kind: BTreeMap<&'static str, usize> = BTreeMap::new();
        for a in self.live.values() {
            *by_kind.entry(a.label()).or_default() += a.bytes();
        }
        by_kind.into_iter().collect()
    }

    /// Frees everything; queries of the engine may still be running on the stream.
    pub fn release_all(&mut self) -> Res<()> {
        unsafe { drv::stream::synchronize(self.stream) }?;
        self.live.clear();
        Ok(())
    }
}

impl Drop for Tracker {
    fn drop(&mut self) {
        let _ = self.release_all();
        unsafe {
            let _ = drv::stream::destroy(self.stream);
        }
    }
}
