//! case: a sparse-matrix loader takes the CSR arrays apart (a partial move out of the matrix), page-locks each Vec in place with the runtime layer's `register_host`, copies all three with `copy_htod_async` from the registered views, and synchronizes before the registrations (and then the Vecs) are dropped
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub struct CsrMatrix {
    pub name: String,
    pub n_rows: usize,
    pub row_ptr: Vec<u32>,
    pub col_idx: Vec<u32>,
    pub values: Vec<f32>,
}

pub struct DeviceCsr {
    pub name: String,
    pub n_rows: usize,
    pub row_ptr: DeviceBuffer<u32>,
    pub col_idx: DeviceBuffer<u32>,
    pub values: DeviceBuffer<f32>,
}

pub fn upload(ctx: &Context, stream: &Stream, m: CsrMatrix) -> Result<DeviceCsr> {
    let CsrMatrix { name, n_rows, mut row_ptr, mut col_idx, mut values } = m;

    let mut d_row = ctx.alloc::<u32>(row_ptr.len())?;
    let mut d_col = ctx.alloc::<u32>(col_idx.len())?;
    let mut d_val = ctx.alloc::<f32>(values.len())?;
    {
        let h_row = ctx.register_host(&mut row_ptr)?;
        let h_col = ctx.register_host(&mut col_idx)?;
        let h_val = ctx.register_host(&mut values)?;
        let enqueued = unsafe {
            stream
                .copy_htod_async(&mut d_row, &h_row)
                .and_then(|()| stream.copy_htod_async(&mut d_col, &h_col))
                .and_then(|()| stream.copy_htod_async(&mut d_val, &h_val))
        };
        // wait even if an enqueue failed: earlier copies may still read the registered Vecs
        stream.synchronize()?;
        enqueued?;
        // h_val, h_col, h_row unregister here, after the copies are done
    }
    drop((row_ptr, col_idx, values));
    Ok(DeviceCsr { name, n_rows, row_ptr: d_row, col_idx: d_col, values: d_val })
}

pub fn upload_all(ctx: &Context, stream: &Stream, ms: Vec<CsrMatrix>) -> Result<Vec<DeviceCsr>> {
    ms.into_iter().filter(|m| !m.values.is_empty()).map(|m| upload(ctx, stream, m)).collect()
}
