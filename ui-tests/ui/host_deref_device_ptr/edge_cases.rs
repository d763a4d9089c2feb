use cuda_lint_runtime::{Context, DevicePtr, Error};

union Bits {
    dev: DevicePtr,
    raw: u64,
}

#[repr(C, packed)]
struct Packed {
    tag: u8,
    ptr: *const f32,
}

trait Probe {
    fn addr(&self) -> *const f32;
    fn probe(&self) -> f32 {
        unsafe { *self.addr() }
    }
}

struct OnDevice(DevicePtr);

impl Probe for OnDevice {
    fn addr(&self) -> *const f32 {
        self.0.as_raw() as *const f32
    }
}

unsafe fn sum_rec(p: *const f32, n: usize) -> f32 {
    if n == 0 { 0.0 } else { unsafe { *p + sum_rec(p.add(1), n - 1) } }
}

fn fires_through_function_pointer(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(4)?;
    let read: unsafe fn(*const f32) -> f32 = std::ptr::read;
    let x = unsafe { read(dev.device_ptr().as_raw() as *const f32) };
    //~^ host_deref_device_ptr
    Ok(x)
}

fn fires_through_dyn_fn(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(4)?;
    let p = dev.device_ptr().as_raw() as *const f32;
    let f: &dyn Fn(usize) -> f32 = &|i| unsafe { *p.add(i) };
    let x = f(1);
    //~^ host_deref_device_ptr
    Ok(x)
}

fn fires_packed_struct_pointer(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(4)?;
    let pk = Packed { tag: 1, ptr: dev.device_ptr().as_raw() as *const f32 };
    let p = pk.ptr;
    let x = unsafe { *p };
    //~^ host_deref_device_ptr
    Ok(x)
}

fn fires_trait_default_method(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(4)?;
    let probe = OnDevice(dev.device_ptr());
    let x = probe.probe();
    //~^ host_deref_device_ptr
    Ok(x)
}

fn fires_recursive_helper(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(4)?;
    let x = unsafe { sum_rec(dev.device_ptr().as_raw() as *const f32, 4) };
    //~^ host_deref_device_ptr
    Ok(x)
}

fn ok_union_host_pointer() -> f32 {
    let host = [1.0f32; 4];
    let b = Bits { raw: host.as_ptr() as u64 };
    unsafe { *(b.raw as *const f32) }
}

fn ok_recursive_helper_on_host() -> f32 {
    let host = [1.0f32; 4];
    unsafe { sum_rec(host.as_ptr(), 4) }
}

async fn ok_async_fn_prints_device_ptr(ctx: &Context) -> Result<(), Error> {
    let dev = ctx.alloc::<f32>(4)?;
    println!("{}", dev.device_ptr());
    Ok(())
}

fn main() {}
