use cuda_lint_runtime::{Context, Mapping, PhysicalAllocation, Result, VirtualRange};

/// One physical sea-surface-height field with a writer view and a reader view.
pub struct AliasedField {
    pub physical: PhysicalAllocation,
    pub writer: Mapping,
    pub reader: Mapping,
    pub cells: usize,
}

impl AliasedField {
    pub fn new(ctx: &Context, cells: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (cells * std::mem::size_of::<f32>()).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let writer = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let reader = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        Ok(Self { physical, writer, reader, cells })
    }
}
