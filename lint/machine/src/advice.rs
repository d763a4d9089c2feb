//! How a diagnostic tells users of an API family to fix what it found, in that API's own terms.
//! Each family (a table of the front end) gives one; regions and operations carry the advice of
//! the API that made them.

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Advice {
    /// How to copy through pinned memory instead of pageable memory.
    pub pinned: &'static str,
    /// How to get pinned memory for the host to read (a readback's destination): pinned, and
    /// not write-combined.
    pub pinned_readback: &'static str,
    /// How to wait for a stream; `{stream}` stands for its name.
    pub sync_stream: &'static str,
    /// How to order new work on one stream after work on another.
    pub order_streams: &'static str,
    /// How to bring device memory to the host, and host data to the device.
    pub copy_to_host: &'static str,
    pub copy_to_device: &'static str,
    /// A statement that waits for a stream and propagates its error with `?` (`{stream}`
    /// stands for the stream's name), when the API has one: a front end with fixes inserts it
    /// before an access made too early.
    pub sync_statement: Option<&'static str>,
    /// The definition path of that statement's error type.
    pub error_type: &'static str,
}

impl Advice {
    /// Advice for code that uses no CUDA API the front end knows (it gives none).
    pub const NONE: Advice = Advice {
        pinned: "",
        pinned_readback: "",
        sync_stream: "",
        order_streams: "",
        copy_to_host: "",
        copy_to_device: "",
        sync_statement: None,
        error_type: "",
    };
}
