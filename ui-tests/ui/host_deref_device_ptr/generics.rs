use cuda_lint_runtime::{Context, DeviceBuffer, DeviceMemory, DevicePtr, Error, Stream};

unsafe fn read_at<T: Copy>(p: *const T, i: usize) -> T {
    unsafe { *p.add(i) }
}

/// Reads the first byte of any device-addressed memory.
fn first_byte<M: DeviceMemory>(m: &M) -> u8 {
    unsafe { *(m.device_ptr().as_raw() as *const u8) }
}

fn bytes_of<M: DeviceMemory>(m: &M) -> usize {
    m.num_bytes()
}

/// A typed view of a `DevicePtr`: wrong whatever `T` is.
unsafe fn fires_typed_view<'a, T>(p: DevicePtr, n: usize) -> &'a [T] {
    unsafe { std::slice::from_raw_parts(p.as_raw() as *const T, n) }
    //~^ host_deref_device_ptr
}

trait Peek {
    fn peek(&self) -> f32;
}

struct HostVec(Vec<f32>);
struct Raw(*const f32);

impl Peek for HostVec {
    fn peek(&self) -> f32 {
        self.0[0]
    }
}

impl Peek for Raw {
    // Every function that builds a `Raw` stores device memory in it: reported here.
    fn peek(&self) -> f32 {
        unsafe { *self.0 }
        //~^ host_deref_device_ptr
    }
}

fn peek_any<P: Peek>(p: &P) -> f32 {
    p.peek()
}

fn fires_generic_read_of_f64_device_ptr(ctx: &Context) -> Result<f64, Error> {
    let dev = ctx.alloc_zeroed::<f64>(16)?;
    let v = unsafe { read_at(dev.device_ptr().as_raw() as *const f64, 2) };
    //~^ host_deref_device_ptr
    Ok(v)
}

fn fires_generic_over_device_buffer(ctx: &Context) -> Result<u8, Error> {
    let dev: DeviceBuffer<u8> = ctx.alloc_zeroed(64)?;
    let b = first_byte(&dev);
    //~^ host_deref_device_ptr
    Ok(b)
}

fn caller_of_a_trait_impl_given_device_ptr(ctx: &Context) -> Result<f32, Error> {
    let dev = ctx.alloc_zeroed::<f32>(4)?;
    let raw = Raw(dev.device_ptr().as_raw() as *const f32);
    // (reported in `peek`)
    let x = peek_any(&raw);
    Ok(x)
}

fn fires_generic_read_of_device_struct_array(ctx: &Context) -> Result<[u32; 4], Error> {
    let dev = ctx.alloc_zeroed::<[u32; 4]>(8)?;
    let v = unsafe { read_at(dev.device_ptr().as_raw() as *const [u32; 4], 7) };
    //~^ host_deref_device_ptr
    Ok(v)
}

fn ok_generic_read_of_host_ptr() -> u16 {
    let host = vec![7u16; 4];
    unsafe { read_at(host.as_ptr(), 3) }
}

fn ok_generic_size_of_device_memory(ctx: &Context) -> Result<usize, Error> {
    let dev = ctx.alloc::<f32>(64)?;
    Ok(bytes_of(&dev))
}

fn ok_generic_over_managed_memory(ctx: &Context, s: &Stream) -> Result<u8, Error> {
    let managed = ctx.alloc_managed::<u8>(64)?;
    s.synchronize()?;
    Ok(first_byte(&managed))
}

fn ok_trait_impl_given_host_vec() -> f32 {
    peek_any(&HostVec(vec![1.0; 4]))
}

fn ok_generic_read_alone<T: Copy>(p: *const T) -> T {
    unsafe { read_at(p, 0) }
}

fn main() {}
