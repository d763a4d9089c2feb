//! case: analytics engine column loader over cudarc's driver sys layer: a column is uploaded with the synchronous cuMemcpyHtoD_v2 (fine), then a debug assertion builds a host slice over the CUdeviceptr to check the zone map
//! expect: host_deref_device_ptr=1

use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy)]
pub struct ZoneMap {
    pub min: i64,
    pub max: i64,
}

pub struct DeviceColumn {
    pub ptr: CUdeviceptr,
    pub rows: usize,
    pub zone: ZoneMap,
}

impl Drop for DeviceColumn {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.ptr);
        }
    }
}

pub struct ColumnStore {
    columns: HashMap<String, DeviceColumn>,
    verify_uploads: bool,
}

fn ok(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

fn zone_of(values: &[i64]) -> ZoneMap {
    values.iter().fold(ZoneMap { min: i64::MAX, max: i64::MIN }, |z, &v| ZoneMap { min: z.min.min(v), max: z.max.max(v) })
}

impl ColumnStore {
    pub fn new(verify_uploads: bool) -> Self {
        ColumnStore { columns: HashMap::new(), verify_uploads }
    }

    /// Uploads one column; the caller's context must be current.
    pub fn load_column(&mut self, name: &str, values: &[i64]) -> Result<(), CUresult> {
        let bytes = values.len() * std::mem::size_of::<i64>();
        let mut dptr: CUdeviceptr = 0;
        unsafe {
            ok(sys::cuMemAlloc_v2(&mut dptr, bytes))?;
            ok(sys::cuMemcpyHtoD_v2(dptr, values.as_ptr().cast(), bytes))?;
        }
        let zone = zone_of(values);
        if self.verify_uploads {
            // The copy above is synchronous, so the device now holds the column.
            let on_device = unsafe { std::slice::from_raw_parts(dptr as *const i64, values.len()) }; // EXPECT: host_deref_device_ptr
            let check = zone_of(on_device);
            assert_eq!((check.min, check.max), (zone.min, zone.max), "column {name} corrupted in upload");
        }
        self.columns.insert(name.to_string(), DeviceColumn { ptr: dptr, rows: values.len(), zone });
        Ok(())
    }

    /// Columns whose zone map may contain rows in [lo, hi]: the scan skips the others.
    pub fn candidates(&self, lo: i64, hi: i64) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .columns
            .iter()
            .filter(|(_, c)| c.zone.max >= lo && c.zone.min <= hi)
            .map(|(n, _)| n.as_str())
            .collect();
        names.sort_unstable();
        names
    }

    pub fn rows(&self, name: &str) -> Option<usize> {
        self.columns.get(name).map(|c| c.rows)
    }
}
