use cuda_lint_runtime::{AccessFlags, Context, Error, LaunchConfig, Mapping, PhysicalAllocation, Stream, VirtualRange};

fn map_one(ctx: &Context, size: usize) -> Result<(PhysicalAllocation, Mapping), Error> {
    let phys = PhysicalAllocation::new(ctx, size)?;
    let range = VirtualRange::reserve(ctx, size)?;
    let m = range.map(&phys, 0)?;
    m.set_access(AccessFlags::ReadWrite)?;
    Ok((phys, m))
}

fn fires_deref_mapping_ptr(ctx: &Context) -> Result<u32, Error> {
    let size = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, size)?;
    let range = VirtualRange::reserve(ctx, size)?;
    let m = range.map(&phys, 0)?;
    m.set_access(AccessFlags::ReadWrite)?;
    let p = m.device_ptr().as_raw() as *const u32;
    let v = unsafe { *p };
    //~^ host_deref_device_ptr
    Ok(v)
}

fn fires_slice_of_mapping(ctx: &Context) -> Result<u8, Error> {
    let size = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, size)?;
    let m = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
    let bytes = unsafe { std::slice::from_raw_parts(m.device_ptr().as_raw() as *const u8, m.size()) };
    //~^ host_deref_device_ptr
    Ok(bytes[0])
}

fn fires_write_into_mapping(ctx: &Context) -> Result<(), Error> {
    let size = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, size)?;
    let m = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
    let p = m.device_ptr().offset_bytes(64).as_raw() as *mut u64;
    unsafe { *p = 0 };
    //~^ host_deref_device_ptr
    Ok(())
}

fn fires_reserved_range_read(ctx: &Context) -> Result<u8, Error> {
    let size = ctx.vmm_granularity()?;
    let range = VirtualRange::reserve(ctx, size)?;
    let p = range.device_ptr().as_raw() as *const u8;
    let b = unsafe { *p };
    //~^ host_deref_device_ptr
    Ok(b)
}

fn fires_mapping_from_helper(ctx: &Context) -> Result<f32, Error> {
    let size = ctx.vmm_granularity()?;
    let (_phys, m) = map_one(ctx, size)?;
    let p = m.device_ptr().as_raw() as *const f32;
    Ok(unsafe { *p })
    //~^ host_deref_device_ptr
}

fn ok_mapping_ptr_to_kernel(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let module = ctx.load_cuda("extern \"C\" __global__ void clear(unsigned* x) { x[threadIdx.x] = 0u; }")?;
    let clear = module.function("clear")?;
    let size = ctx.vmm_granularity()?;
    let (_phys, m) = map_one(ctx, size)?;
    let p = m.device_ptr();
    unsafe { s.launch(&clear, LaunchConfig { grid: (1, 1, 1), block: (64, 1, 1), shared_mem_bytes: 0 }, &[&p])? };
    s.synchronize()
}

fn ok_mapping_address_printed(ctx: &Context) -> Result<(), Error> {
    let size = ctx.vmm_granularity()?;
    let (_phys, m) = map_one(ctx, size)?;
    println!("mapped {} bytes at {:#x} (offset {})", m.size(), m.device_ptr().as_raw(), m.offset());
    Ok(())
}

fn ok_mappings_compared(ctx: &Context) -> Result<bool, Error> {
    let size = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(ctx, size)?;
    let a = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
    let b = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
    Ok(a.aliases(&b) && a.device_ptr() != b.device_ptr())
}

fn ok_mapping_copied_with_memset(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let size = ctx.vmm_granularity()?;
    let (_phys, mut m) = map_one(ctx, size)?;
    s.memset_d8(&mut m, 0)
}

fn main() {}
