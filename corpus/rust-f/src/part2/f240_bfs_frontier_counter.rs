//! case: cudarc graph BFS: row offsets go up through pinned staging but the edge list is cloned to the device straight from its Vec (clone_htod), and each level resets the frontier counter by writing through the raw device pointer from device_ptr_mut on the host; the counter is read back into a one-element array (small copy)
//! expect: pageable_async_copy=1, host_deref_device_ptr=1
use cudarc::driver::{CudaContext, CudaSlice, DevicePtrMut, LaunchConfig, PushKernelArg, result};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const BFS_SRC: &str = r#"
extern "C" __global__ void expand(const unsigned int* row_ptr, const unsigned int* cols, int* depth,
                                  const unsigned int* frontier, unsigned int frontier_len,
                                  unsigned int* next, unsigned int* next_len, int level) {
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= frontier_len) return;
    unsigned int v = frontier[t];
    for (unsigned int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        unsigned int u = cols[e];
        if (atomicCAS(&depth[u], -1, level + 1) == -1) next[atomicAdd(next_len, 1u)] = u;
    }
}
"#;

pub struct Csr {
    pub row_ptr: Vec<u32>,
    pub cols: Vec<u32>,
}

pub fn bfs_levels(graph: &Csr, source: u32) -> Res<Vec<i32>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let expand = ctx.load_module(compile_ptx(BFS_SRC)?)?.load_function("expand")?;
    let nv = graph.row_ptr.len() - 1;

    // Row offsets go through a pinned staging buffer; the edge list is uploaded as is.
    let mut row_stage = unsafe { ctx.alloc_pinned_with_flags::<u32>(nv + 1, 0) }?;
    row_stage.as_mut_slice()?.copy_from_slice(&graph.row_ptr);
    let d_row = stream.clone_htod(&row_stage)?;
    let d_cols = stream.clone_htod(&graph.cols)?; // EXPECT: pageable_async_copy

    let mut depth: CudaSlice<i32> = stream.alloc_zeros(nv)?;
    {
        // -1 everywhere: every byte 0xff.
        let (p, _guard) = depth.device_ptr_mut(&stream);
        unsafe { result::memset_d8_async(p, 0xff, nv * 4, stream.cu_stream()) }?;
    }
    stream.memcpy_htod(&[0i32], &mut depth.slice_mut(source as usize..source as usize + 1))?;
    let mut frontier: CudaSlice<u32> = stream.alloc_zeros(nv)?;
    let mut next: CudaSlice<u32> = stream.alloc_zeros(nv)?;
    let mut next_len: CudaSlice<u32> = stream.alloc_zeros(1)?;
    stream.memcpy_htod(&[source], &mut frontier)?;
    stream.synchronize()?;

    let mut frontier_len = 1u32;
    let mut level = 0i32;
    while frontier_len > 0 {
        {
            let (counter, _guard) = next_len.device_ptr_mut(&stream);
            unsafe { *(counter as *mut u32) = 0 }; // EXPECT: host_deref_device_ptr
        }
        unsafe {
            stream
                .launch_builder(&expand)
                .arg(&d_row)
                .arg(&d_cols)
                .arg(&mut depth)
                .arg(&frontier)
                .arg(&frontier_len)
                .arg(&mut next)
                .arg(&mut next_len)
                .arg(&level)
                .launch(LaunchConfig::for_num_elems(frontier_len))?;
        }
        let mut len = [0u32; 1];
        stream.memcpy_dtoh(&next_len, &mut len)?;
        frontier_len = len[0];
        std::mem::swap(&mut frontier, &mut next);
        level += 1;
    }
    let mut levels = unsafe { ctx.alloc_pinned_with_flags::<i32>(nv, 0) }?;
    stream.memcpy_dtoh(&depth, &mut levels)?;
    stream.synchronize()?;
    Ok(levels.as_slice()?.to_vec())
}
