//! Kernel launches: `<<<grid, block, shared, stream>>>` and the launch helpers that take a
//! kernel; what the kernel reads and writes, from its source where the file has it
//! (`cuda-source`), from its arguments otherwise.

use super::*;

impl<'s, 't> FileAnalysis<'s, 't> {
    pub(super) fn launch(
        &mut self,
        n: Node<'t>,
        name: &str,
        config: Node<'t>,
        args: &[Node<'t>],
        flow: &mut Flow,
    ) -> LocSet {
        let mut c = config.walk();
        let conf: Vec<Node> = config.named_children(&mut c).collect();
        for x in &conf {
            self.expr(*x, flow, false);
        }
        let stream_arg = conf.get(3).copied();
        let streams = self.launch_streams(stream_arg, flow);
        // An object converting to a pointer (`operator T*()`) given for a pointer parameter.
        let values: Vec<LocSet> = args
            .iter()
            .map(|a| {
                let v = self.expr(*a, flow, false);
                if v.is_empty() {
                    self.converted_to_pointer(*a, flow).unwrap_or(v)
                } else {
                    v
                }
            })
            .collect();
        let slots: Vec<LocSet> = values.iter().map(|v| self.memory(v)).collect();
        self.launch_values = values;
        // The objects the arguments are (a struct passed by value), or point to: where a kernel
        // that uses a parameter only through its fields finds them.
        let objects: Vec<LocSet> = args
            .iter()
            .zip(&slots)
            .map(|(a, s)| self.object_named(*a, flow).unwrap_or_else(|| s.clone()))
            .collect();
        self.launch_objects = objects;
        // A lambda given to the kernel (`kernel<<<..>>>(functor)` with `[=](int i) { d[i] = ..; }`)
        // uses the memory it captured: read, and written where its body writes through it.
        let mut captured = (LocSet::new(), LocSet::new());
        for a in args {
            let lambda = match a.kind() {
                "lambda_expression" => Some(*a),
                "identifier" => self.lambdas.get(self.text(*a)).copied(),
                _ => None,
            };
            if let Some(l) = lambda {
                let (r, w) = self.lambda_uses(l, flow);
                captured.0.union_with(&r);
                captured.1.union_with(&w);
            }
        }
        self.launch_with(n, name, slots, captured, streams, stream_arg, flow)
    }

    /// `cudaLaunchKernel((void*)k, grid, block, args, shmem, stream)` (and
    /// `cudaLaunchCooperativeKernel`): a launch of `k` whose arguments are the variables the
    /// `void* args[] = {&a, &b}` array of the function lists. `None`: not such a call.
    pub(super) fn launch_through_api(
        &mut self,
        n: Node<'t>,
        name: &str,
        args: &[Node<'t>],
        flow: &mut Flow,
    ) -> Option<LocSet> {
        // `cudaLaunchKernelEx(&config, kernel, a, b, ...)`: the arguments as written, the stream
        // in the configuration's `stream` field.
        if name == "cudaLaunchKernelEx" && args.len() >= 2 {
            let kernel = self
                .text(strip_casts(args[1], self.src)?)
                .trim_start_matches('&')
                .trim()
                .to_string();
            let config = strip_casts(args[0], self.src)?;
            let objs = match config.kind() {
                "pointer_expression" => match config.field("argument") {
                    Some(x) => self.address_of_object(x, flow),
                    None => LocSet::new(),
                },
                _ => self.expr(config, flow, false),
            };
            let streams = self.field_value(&objs, "stream", flow);
            let streams: LocSet = streams
                .iter()
                .filter(|l| self.locs[l.0 as usize].kind.is_none())
                .collect();
            let slots: Vec<LocSet> = args[2..].iter().map(|a| self.memory_of(*a, flow)).collect();
            let streams = if streams.is_empty() {
                LocSet::single(self.legacy)
            } else {
                streams
            };
            return Some(self.launch_with(n, &kernel, slots, Default::default(), streams, None, flow));
        }
        // `cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra)`: a kernel
        // loaded from a module, whose source is not in the file.
        let (kernel, stream_at, array_at) = match name {
            "cudaLaunchKernel" | "cudaLaunchCooperativeKernel" if args.len() >= 4 => {
                let k = strip_casts(args[0], self.src)?;
                (self.text(k).trim_start_matches('&').trim().to_string(), 5, 3)
            }
            "cuLaunchKernel" | "cuLaunchCooperativeKernel" if args.len() >= 10 => {
                (self.text(args[0]).trim().to_string(), 8, 9)
            }
            _ => return None,
        };
        for (i, a) in args.iter().enumerate().skip(1) {
            if i != array_at {
                self.expr(*a, flow, false);
            }
        }
        let stream_arg = args.get(stream_at).copied();
        let streams = self.launch_streams(stream_arg, flow);
        // The argument array: its initializer in this function, each element `&x`.
        let array = self.text(strip_casts(args[array_at], self.src)?).to_string();
        let list = self.initializer_of(n, &array)?;
        let mut c = list.walk();
        let elements: Vec<Node> = list.named_children(&mut c).collect();
        let slots: Vec<LocSet> = elements
            .iter()
            .map(|e| {
                let target = strip_casts(*e, self.src)
                    .filter(|t| t.kind() == "pointer_expression")
                    .and_then(|t| t.field("argument"));
                match target {
                    Some(x) => self.memory_of(x, flow),
                    None => LocSet::new(),
                }
            })
            .collect();
        Some(self.launch_with(n, &kernel, slots, Default::default(), streams, stream_arg, flow))
    }

    /// The streams a launch's stream argument names (none given: the legacy default stream).
    pub(super) fn launch_streams(&mut self, stream_arg: Option<Node<'t>>, flow: &mut Flow) -> LocSet {
        match stream_arg {
            Some(s) => {
                let v = self.expr(s, flow, false);
                let v = self.converted_to_stream(s, flow).unwrap_or(v);
                self.streams_of(Some(s), &v)
            }
            None => LocSet::single(self.legacy),
        }
    }

    /// The memory a lambda captured from the variables in scope: what its body names, and of
    /// that what it writes through (`d[i] = ..`, `*p = ..`, `p->f = ..`).
    pub(super) fn lambda_uses(&self, lambda: Node<'t>, flow: &Flow) -> (LocSet, LocSet) {
        let (mut reads, mut writes) = (LocSet::new(), LocSet::new());
        let Some(body) = lambda.field("body") else {
            return (reads, writes);
        };
        let mut stack = vec![body];
        let mut seen = 0;
        while let Some(x) = stack.pop() {
            seen += 1;
            if seen > 10_000 {
                break;
            }
            if x.kind() == "identifier"
                && let Some(v) = flow.vars.get(self.text(x))
            {
                let mem = self.memory(v);
                reads.union_with(&mem);
                // Written: the root of an assignment's left side.
                let mut up = x;
                while let Some(p) = up.parent() {
                    match p.kind() {
                        "subscript_expression"
                        | "pointer_expression"
                        | "field_expression"
                        | "parenthesized_expression"
                            if p.named_child(0) == Some(up) || p.field("argument") == Some(up) =>
                        {
                            up = p;
                        }
                        "assignment_expression" | "update_expression"
                            if (p.field("left") == Some(up) || p.field("argument") == Some(up)) && up != x =>
                        {
                            writes.union_with(&mem);
                            break;
                        }
                        _ => break,
                    }
                }
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        (reads, writes)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch_with(
        &mut self,
        n: Node<'t>,
        name: &str,
        slots: Vec<LocSet>,
        captured: (LocSet, LocSet),
        streams: LocSet,
        stream_arg: Option<Node<'_>>,
        flow: &mut Flow,
    ) -> LocSet {
        let (mut written, fence, volatile, field_uses, param_uses) = self.kernel_info(name);
        self.captured_launch = !streams.is_empty() && streams.iter().all(|s| flow.capturing.contains(s));
        let objects = std::mem::take(&mut self.launch_objects);
        let values = std::mem::take(&mut self.launch_values);
        // A parameter used only through its fields (`s.a[i] = ..`, `p->in.buf[i]`): the memory
        // those fields hold is what the kernel reads and writes, not the struct itself.
        let mut through_fields: Vec<Option<(LocSet, LocSet)>> = vec![None; slots.len()];
        for (i, uses) in field_uses.iter().flatten().enumerate() {
            let (Some(uses), Some(objs)) = (uses, objects.get(i)) else {
                continue;
            };
            if objs.is_empty() || i >= slots.len() {
                continue;
            }
            let (mut r, mut w) = (LocSet::new(), LocSet::new());
            for path in &uses.used {
                r.union_with(&self.field_path_memory(objs, path, flow));
            }
            for path in &uses.written {
                w.union_with(&self.field_path_memory(objs, path, flow));
            }
            if r.is_empty() && w.is_empty() {
                continue;
            }
            if let Some(wr) = written.as_mut().and_then(|w| w.get_mut(i)) {
                *wr = false;
            }
            through_fields[i] = Some((r, w));
        }
        let kernel = match fence {
            Fence::Fenced => None,
            Fence::Unfenced => Some(Kernel::Unfenced { name: name.to_string() }),
            Fence::NotFound => {
                self.unseen_kernels.insert(n.start_byte() as u32, name.to_string());
                Some(Kernel::SourceNotVisible {
                    name: Some(name.to_string()),
                })
            }
        };
        self.emit(
            n,
            Event::Launch {
                slots: &slots,
                apart: true,
                written: written.as_deref(),
                kernel: kernel.as_ref(),
            },
            flow,
        );
        // What the kernel dereferences, by what its source does with each parameter: loads
        // only, or anything else; a parameter it tests against null may be null.
        if let Some(uses) = &param_uses
            && values.len() == slots.len()
        {
            for (i, vals) in values.iter().enumerate() {
                let Some(u) = uses.get(i).filter(|u| u.used) else {
                    continue;
                };
                if through_fields.get(i).is_some_and(Option::is_some) {
                    continue;
                }
                let mut vals = vals.clone();
                if u.null_tested {
                    vals.retain(|l| l != self.null);
                }
                let role = if u.loads_only {
                    DerefRole::KernelReads
                } else {
                    DerefRole::KernelUses
                };
                self.deref(n, &vals, role, None, flow);
            }
        }
        // A `volatile` pointer parameter is a channel the kernel polls while the host writes it
        // (`delay(volatile int* flag)` spinning until the host sets the flag), and memory it
        // touches only through system-scope atomics (`atomicAdd_system`) is shared with the host
        // by design: the host's accesses to them are the protocol, not a race.
        let (mut reads, mut writes) = (LocSet::new(), LocSet::new());
        let mut per_arg = Vec::new();
        for (i, s) in slots.iter().enumerate() {
            // Memory the kernel touches only through system-scope atomics is shared with the
            // host while it runs, as a `volatile` flag is.
            let system_shared = param_uses
                .as_ref()
                .and_then(|u| u.get(i))
                .is_some_and(|u| u.system_atomics_only);
            if volatile.get(i).copied().unwrap_or(false) || system_shared {
                continue;
            }
            reads.union_with(s);
            if let Some((r, w)) = &through_fields[i] {
                reads.union_with(r);
                writes.union_with(w);
                per_arg.push((w.clone(), false));
                continue;
            }
            if written.as_ref().is_none_or(|w| w.get(i).copied().unwrap_or(true)) {
                writes.union_with(s);
                let stores = param_uses.as_ref().and_then(|u| u.get(i)).is_some_and(|u| u.stores);
                per_arg.push((s.clone(), stores));
            }
        }
        per_arg.push((captured.1.clone(), false));
        reads.union_with(&captured.0);
        writes.union_with(&captured.1);
        // A kernel whose source is not in the file is taken to write every argument: assumed.
        self.launch_writes_unseen = written.is_none();
        self.writes_per_arg = Some(per_arg);
        self.enqueue(n, OpKind::Launch, &streams, &reads, &writes, stream_arg, flow);
        self.launch_writes_unseen = false;
        LocSet::new()
    }

    /// The memory a field path (`buff1`, `inner.data`) of the objects holds.
    fn field_path_memory(&self, objs: &LocSet, path: &str, flow: &Flow) -> LocSet {
        let mut cur = objs.clone();
        let segments: Vec<&str> = path.split('.').collect();
        for (k, seg) in segments.iter().enumerate() {
            // A nested object (`a.inner`) is kept as `inner.`; a pointer to one, as `inner`.
            let nested = if k + 1 < segments.len() {
                self.field_value(&cur, &format!("{seg}."), flow)
            } else {
                LocSet::new()
            };
            cur = if nested.is_empty() {
                self.field_value(&cur, seg, flow)
            } else {
                nested
            };
            if cur.is_empty() {
                break;
            }
        }
        self.memory(&cur)
    }
}
