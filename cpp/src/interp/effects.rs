//! Calls and their effects: a call of a C API function applies the shared table's effects
//! (`lint/c-api`) to its arguments' values, driving the machine (allocations, copies, waits,
//! events, VMM); a call of the unit's own function runs it inline; work is enqueued on the
//! streams an argument names.

use super::*;

impl<'s, 't> FileAnalysis<'s, 't> {
    pub(super) fn call(&mut self, n: Node<'t>, flow: &mut Flow) -> LocSet {
        let func = n.field("function");
        let args: Vec<Node> = match n.field("arguments") {
            Some(list) => {
                let mut c = list.walk();
                list.named_children(&mut c).filter(|a| a.kind() != "comment").collect()
            }
            None => Vec::new(),
        };
        let name = func.map(|f| callee_name(f, self.src)).unwrap_or_default();
        // C++'s named casts are casts: the value passes through.
        if matches!(
            name.as_str(),
            "static_cast" | "reinterpret_cast" | "const_cast" | "dynamic_cast" | "std::move" | "raw_pointer_cast"
        ) && let [value] = args.as_slice()
        {
            let v = self.expr(*value, flow, false);
            // `thrust::raw_pointer_cast(d.data())`: a raw pointer into a device container,
            // which reads device memory when the host dereferences it (no reference proxy).
            if name == "raw_pointer_cast" {
                return v.iter().map(|l| self.raw_view(l)).collect();
            }
            return v;
        }
        // A variable passed by name may be a C++ reference the callee changes.
        for a in &args {
            if a.kind() == "identifier" {
                flow.facts.remove(self.text(*a));
            }
        }
        // The process ends here: no path goes on (`exit(1)`, `std::terminate()`; not a method
        // that happens to be named so, `plugin.terminate()`).
        if matches!(
            name.as_str(),
            "exit" | "abort" | "_exit" | "_Exit" | "quick_exit" | "terminate"
        ) && func.is_some_and(|f| matches!(f.kind(), "identifier" | "qualified_identifier"))
            && !self.functions.contains_key(name.as_str())
            && self.method_call_target(func, flow).is_none()
        {
            for a in &args {
                self.expr(*a, flow, false);
            }
            flow.dead = true;
            return LocSet::new();
        }
        // A kernel launch: `kernel<<<grid, block, shared, stream>>>(args)`.
        let mut c = n.walk();
        if let Some(launch) = n.children(&mut c).find(|k| k.kind() == "kernel_call_syntax") {
            return self.launch(n, &name, launch, &args, flow);
        }
        // A function `cuda-lint.toml` describes: its effects, whatever the file says of it. In a
        // method call (`q.finish()`) the object is argument 0.
        if let Some(f) = func
            && let Some(effects) = self.configured_effects(f)
        {
            let mut all = Vec::new();
            if f.kind() == "field_expression"
                && let Some(object) = f.field("argument")
            {
                all.push(object);
            }
            all.extend(args.iter().copied());
            return self.apply(n, &effects, &all, flow);
        }
        if let Some(out) = self.launch_through_api(n, &name, &args, flow) {
            return out;
        }
        // `std::fill(v.begin(), v.end(), 0)`: the algorithm reads or writes the memory its
        // iterators are in (`std::move(x)` with one argument is a cast, handled above).
        if let Some(f) = func
            && self.text(f).trim_start().starts_with("std::")
            && args.len() >= 2
            && let Some(effects) = api::std_algorithm(&name)
        {
            return self.apply(n, effects, &args, flow);
        }
        // A method of the file's classes, run on its object.
        if let Some(f) = func
            && let Some(out) = self.method_call(n, f, &args, flow)
        {
            return out;
        }
        // `std::make_unique<Foo>(args)`, `Foo(args)`, `std::shared_ptr<T>(raw, deleter)`.
        if let Some(f) = func
            && let Some(out) = self.made_by_call(n, f, &name, &args, flow)
        {
            return out;
        }
        // `v.data()`, `v.size()`: what the object is.
        if let Some(f) = func
            && f.kind() == "field_expression"
        {
            let object = f
                .field("argument")
                .map(|o| self.expr(o, flow, false))
                .unwrap_or_default();
            let vals: Vec<LocSet> = args.iter().map(|a| self.expr(*a, flow, false)).collect();
            let pushes = matches!(
                name.as_str(),
                "push_back" | "emplace_back" | "push_front" | "emplace_front" | "push" | "emplace" | "insert"
            );
            let containers: LocSet = object
                .iter()
                .filter(|l| self.locs[l.0 as usize].kind.is_some())
                .collect();
            // `out.assign(first, last)`, `v.insert(pos, first, last)`, `s.append(first, last)`:
            // the container reads the range, two places of one allocation.
            let range_at = match (name.as_str(), args.len()) {
                ("assign" | "append", 2) => Some(0),
                ("insert", 3) => Some(1),
                _ => None,
            };
            if let Some(k) = range_at {
                let roots = |v: &LocSet| -> LocSet {
                    v.iter()
                        .filter(|l| self.locs[l.0 as usize].kind.is_some_and(|k| k != MemKind::Unknown))
                        .map(|l| self.root_of(l))
                        .collect()
                };
                let (first, last) = (roots(&vals[k]), roots(&vals[k + 1]));
                if !first.is_empty() && first == last {
                    let read = [Effect::HostAccess { mem: 0, write: false }];
                    self.apply_values(n, &read, &args[k..=k], &vals[k..=k], flow);
                }
            }
            // `v.push_back(Block{p, kind})`: what the entry is built of goes into the container,
            // whose elements the analysis follows only as one (and not through aggregates).
            if pushes {
                let mut given = LocSet::new();
                for a in &args {
                    given.union_with(&self.mentioned_memory(*a, flow));
                }
                if !given.is_empty() {
                    self.machine.handed_over(&mut flow.m, &given, &self.regions());
                }
            }
            // `v.push_back(p)`: a container's elements now include what `p` points to.
            if pushes
                && let Some(last) = vals.last()
                && !last.is_empty()
            {
                self.store_field(&containers, ELEMENTS, last, flow);
            }
            // `v.push_back(entry)` of an object: the container's element object (the container
            // itself, one for all its elements) holds what the entry's fields hold.
            if pushes
                && let Some(&last) = args.last()
                && let Some(src) = self.object_named(last, flow)
            {
                let copied: Vec<(String, LocSet)> = flow
                    .fields
                    .iter()
                    .filter(|((o, _), _)| src.contains(*o))
                    .map(|((_, f), v)| (f.clone(), v.clone()))
                    .collect();
                for c in containers.iter() {
                    for (f, v) in &copied {
                        flow.fields.entry((c, f.clone())).or_default().union_with(v);
                    }
                }
            }
            // `v[i]`, `v.at(i)`, `v.front()`, `v.back()`: of a container of pointers its
            // elements; of a container of structs, its element object.
            if matches!(name.as_str(), "at" | "front" | "back" | "top") {
                let elements = self.field_value(&object, ELEMENTS, flow);
                if elements.is_empty()
                    && containers
                        .iter()
                        .any(|c| flow.fields.keys().any(|(o, f)| *o == c && f != ELEMENTS))
                {
                    return containers;
                }
                return elements;
            }
            if matches!(name.as_str(), "data" | "begin" | "get" | "c_str") {
                return object;
            }
            // A method the analysis cannot see (`ep->alloc.alloc_fn(&block, n)`,
            // `engine.flush(stream)`), given arguments: as any opaque call.
            if !pushes && !args.is_empty() {
                self.unseen_call(&args, &vals, flow);
            }
            return LocSet::new();
        }
        let Some(effects) = api::effects(&name) else {
            let mark = self.mark();
            let vals: Vec<LocSet> = args
                .iter()
                .map(|a| {
                    // An object handed by reference (`init(st)` for `void init(State& s)`).
                    if let Some(o) = self.object_named(*a, flow) {
                        return o;
                    }
                    self.expr(*a, flow, false)
                })
                .collect();
            // A function of the file: run inline (not recursively, not too deep).
            if let Some((&fname, &def)) = self.functions.get_key_value(name.as_str())
                && self.inlined.len() < MAX_INLINE
                && !self.inlined.contains(&fname)
                && self.within_budget(n)
            {
                let texts: Vec<String> = args.iter().map(|a| self.argument_text(*a)).collect();
                return self.inline_method(n, fname, def, None, &vals, &texts, flow);
            }
            // A lambda held in a variable (`auto report = [&](..) {..}; report(..)`, a
            // `std::function` too): its body runs here, where it is called.
            if let Some((&lname, &lambda)) = self.lambdas.get_key_value(name.as_str())
                && self.inlined.len() < MAX_INLINE
                && !self.inlined.contains(&lname)
                && self.within_budget(n)
            {
                return self.inline_lambda(n, lname, lambda, &vals, flow);
            }
            // `CHECK_RET(cudaMemcpy(..))` of a macro that returns when the status is not a
            // success: a path returns here, where the call failed and did nothing.
            if self.returning_macros.contains(name.as_str()) && !args.is_empty() {
                let mut failed = flow.clone();
                let started = self.since(mark);
                self.undo_failed(&started, &mut failed);
                self.leave_function(n, None, &LocSet::new(), &mut failed);
                return LocSet::new();
            }
            self.unseen_call(&args, &vals, flow);
            return LocSet::new();
        };
        self.apply(n, effects, &args, flow)
    }

    /// The effects `cuda-lint.toml` gives the function called as `f`, if any.
    pub(super) fn configured_effects(&self, f: Node<'t>) -> Option<Vec<Effect>> {
        let written = match f.kind() {
            "field_expression" => f.field("field").map(|n| self.text(n).to_string()),
            "template_function" => f.field("name").map(|n| self.text(n).to_string()),
            "identifier" => Some(self.text(f).to_string()),
            "qualified_identifier" => {
                let text = self.text(f);
                // `ns::f<T>` is `ns::f`.
                Some(text.split('<').next().unwrap_or(text).split_whitespace().collect())
            }
            _ => None,
        }?;
        self.configured.lookup(&written).map(<[Effect]>::to_vec)
    }

    /// Applies a called function's effects to its arguments; returns what it returns.
    pub(super) fn apply(&mut self, n: Node<'t>, effects: &[Effect], args: &[Node<'t>], flow: &mut Flow) -> LocSet {
        let vals: Vec<LocSet> = args
            .iter()
            .map(|a| {
                let v = self.expr(*a, flow, false);
                match self.converted_to_stream(*a, flow) {
                    Some(s) => s,
                    None if v.is_empty() => self.converted_to_pointer(*a, flow).unwrap_or(v),
                    None => v,
                }
            })
            .collect();
        self.apply_values(n, effects, args, &vals, flow)
    }

    /// An object of a class with a conversion to a stream (`operator cudaStream_t() const {
    /// return s_; }`, a RAII stream wrapper) given where a stream is taken: the stream the
    /// conversion returns, the member it names. `None`: not such an object.
    pub(super) fn converted_to_stream(&self, a: Node<'t>, flow: &Flow) -> Option<LocSet> {
        let a = strip_casts(a, self.src)?;
        if a.kind() != "identifier" {
            return None;
        }
        let o = *flow.objects.get(self.text(a))?;
        self.stream_of_object(o, flow)
    }

    /// An object of a class with a conversion to a pointer, named where a pointer is taken
    /// (`buf[i]`, `*buf`, `cudaMemcpy(h, buf, ..)`): the pointer it converts to.
    pub(super) fn converted_to_pointer(&self, a: Node<'t>, flow: &Flow) -> Option<LocSet> {
        let a = strip_casts(a, self.src)?;
        if a.kind() != "identifier" {
            return None;
        }
        let o = *flow.objects.get(self.text(a))?;
        self.pointer_of_object(o, flow)
    }

    /// The stream an object of a class with a conversion to a stream converts to (the member
    /// its `operator cudaStream_t()` returns). `None`: no such object or conversion.
    pub(super) fn stream_of_object(&self, o: Loc, flow: &Flow) -> Option<LocSet> {
        self.converted_object(o, flow, |to| to.contains("Stream_t"))
    }

    /// What an object of a class with a conversion to a pointer (`operator T*() const { return
    /// ptr_; }`) converts to where the program indexes or dereferences it: the member it names.
    pub(super) fn pointer_of_object(&self, o: Loc, flow: &Flow) -> Option<LocSet> {
        self.converted_object(o, flow, |to| to.trim_end().ends_with('*'))
    }

    /// The member a conversion operator of `o`'s class returns, for the first conversion whose
    /// written target type (`cudaStream_t`, `T*`) `to` accepts.
    fn converted_object(&self, o: Loc, flow: &Flow, to: impl Fn(&str) -> bool) -> Option<LocSet> {
        let class = self.object_class.get(&o)?;
        let def = self.classes.lineage(class).into_iter().find_map(|(_, info)| {
            info.methods
                .iter()
                .find(|(name, _)| {
                    name.strip_prefix("operator")
                        .is_some_and(|rest| to(rest.split('(').next().unwrap_or(rest)))
                })
                .map(|(_, &d)| d)
        })?;
        let body = def.field("body")?;
        let ret = find_kind(body, "return_statement")?.named_child(0)?;
        let member = self.text(ret).trim().trim_start_matches("this->").to_string();
        let v = self.field_value(&LocSet::single(o), &member, flow);
        (!v.is_empty()).then_some(v)
    }

    /// [`Self::apply`] with the arguments' values known (`vals`).
    pub(super) fn apply_values(
        &mut self,
        n: Node<'t>,
        effects: &[Effect],
        args: &[Node<'t>],
        vals: &[LocSet],
        flow: &mut Flow,
    ) -> LocSet {
        let arg = |i: usize| vals.get(i).cloned().unwrap_or_default();
        // A deleter checked where a smart pointer takes the memory: which allocator its
        // release is for, nothing else.
        if self.checking_release {
            for e in effects {
                let (mem, by) = match *e {
                    Effect::Free { mem, by, .. } => (mem, by),
                    Effect::FreeOnStream { mem, .. } => (mem, cuda_lint_machine::Allocator::Device),
                    _ => continue,
                };
                let m = self.memory(&arg(mem));
                if !m.is_empty() && !arg(mem).contains(self.unknown) {
                    self.emit(n, Event::Dealloc { regions: &m, by }, flow);
                }
            }
            return LocSet::new();
        }
        let mut ret = LocSet::new();
        // The bytes a copy or memset covers, where its count is a constant.
        let covers: Option<u64> = effects.iter().find_map(|e| match *e {
            Effect::Covers { count, unit } => args
                .get(count)
                .and_then(|c| self.exact_byte_count(self.text(*c)))
                .map(|b| b.saturating_mul(u64::from(unit))),
            _ => None,
        });
        let starts: Vec<bool> = args.iter().map(|a| self.names_start(*a)).collect();
        // `&loss` of a local `float loss;`: one object, of its type's size.
        if covers.is_some() {
            for (a, v) in args.iter().zip(vals) {
                let exact = self.exact_object_bytes(*a);
                if let Some(b) = exact {
                    for l in self.memory(v).iter() {
                        let info = &mut self.locs[l.0 as usize];
                        if info.bytes.is_none() && info.parent.is_none() && !info.allocated {
                            info.bytes = Some(b);
                        }
                    }
                }
            }
        }
        let from_start = |i: usize| covers.filter(|_| starts.get(i).copied().unwrap_or(false));
        if !flow.capturing.is_empty() {
            self.check_capture(n, effects, args, &arg, flow);
        }
        // The memory the call made, for the effects that describe it.
        let mut made: Option<Loc> = None;
        for e in effects {
            match *e {
                Effect::AllocOut { out, kind, by } => {
                    let l = self.loc_at(n, "alloc", Some(kind), None, true);
                    self.locs[l.0 as usize].allocator = Some(by);
                    made = Some(l);
                    // Made again (a loop's next round) into the variable that was the only
                    // pointer to the memory made last time, which nothing released.
                    if let Some(var) = args.get(out).and_then(|a| out_var(*a, self.src))
                        && !self.outliving_vars.contains(&var)
                        && flow.m.unreleased().contains(l)
                        && flow.vars.get(&var).is_some_and(|v| v.contains(l))
                        && !flow.vars.iter().any(|(k, v)| *k != var && v.contains(l))
                        && !flow.fields.values().any(|v| v.contains(l))
                    {
                        self.emit(
                            n,
                            Event::Reallocated {
                                lost: &LocSet::single(l),
                            },
                            flow,
                        );
                    }
                    // An object made up for a method analysed on its own (`construct_any`) has a
                    // history no one knows: its memory may be written and released elsewhere.
                    let known = self.constructing == 0;
                    self.machine.allocated(
                        &mut flow.m,
                        l,
                        known && by.leaves_uninitialized(kind),
                        known && by.owned_by_program(),
                    );
                    self.started.allocated.push(l);
                    // Made anew (a loop's next round): the work started before used the memory
                    // made then, not this.
                    self.machine.renew(&mut flow.m, &LocSet::single(l));
                    self.store_out(args.get(out).copied(), l, flow, false);
                }
                Effect::AllocRet { kind, by } => {
                    let l = self.loc_at(n, "alloc", Some(kind), None, true);
                    self.locs[l.0 as usize].allocator = Some(by);
                    made = Some(l);
                    // An object made up for a method analysed on its own (`construct_any`) has a
                    // history no one knows: its memory may be written and released elsewhere.
                    let known = self.constructing == 0;
                    self.machine.allocated(
                        &mut flow.m,
                        l,
                        known && by.leaves_uninitialized(kind),
                        known && by.owned_by_program(),
                    );
                    self.started.allocated.push(l);
                    ret.insert(l);
                }
                Effect::Holds { bytes, times } => {
                    let size = |i: usize| args.get(i).and_then(|a| self.exact_byte_count(self.text(*a)));
                    let total = match times {
                        Some(t) => size(bytes).zip(size(t)).map(|(a, b)| a.saturating_mul(b)),
                        None => size(bytes),
                    };
                    if let Some(l) = made {
                        self.locs[l.0 as usize].bytes = total;
                    }
                }
                Effect::Covers { .. } => {}
                Effect::ReleasesAll => self.machine.released_all(&mut flow.m),
                Effect::WriteCombinedIf { flags } => {
                    if let (Some(l), Some(f)) = (made, args.get(flags))
                        && flag_set(
                            &self.argument_text(*f),
                            "writecombined",
                            cuda_lint_c_api::WRITE_COMBINED_BIT,
                        )
                    {
                        self.locs[l.0 as usize].write_combined = true;
                    }
                }
                Effect::AttachNew { flags } => {
                    // `cudaMemAttachHost`, `CU_MEM_ATTACH_HOST` (2): the host's until attached.
                    if let (Some(l), Some(f)) = (made, args.get(flags))
                        && flag_set(&self.argument_text(*f), "attachhost", 0x02)
                    {
                        self.locs[l.0 as usize].attached = true;
                    }
                }
                Effect::DevicePointerOf { out, host } => {
                    let m = self.memory(&arg(host));
                    self.store_values_out(args.get(out).copied(), &m, flow);
                }
                // Made in a stream's order: which stream is not followed, that it was is.
                Effect::AllocatedOn(_) => {
                    if let Some(l) = made {
                        self.locs[l.0 as usize].on_stream = true;
                    }
                }
                // Known, and nothing the C++ front end follows: contexts, modules (C++ launches
                // are read from `<<<>>>`; `cudaLaunchKernel` is read before, by
                // `launch_through_api`), batch copies.
                Effect::NoAccess
                | Effect::ContextOut { .. }
                | Effect::LoadModule { .. }
                | Effect::GetFunction { .. }
                | Effect::Launch { .. }
                | Effect::BatchCopy { .. } => {}
                Effect::AttachMem { mem, flags, stream } => {
                    let text = args.get(flags).map(|f| self.argument_text(*f)).unwrap_or_default();
                    let attached = !text.contains("Global") && !text.contains("GLOBAL");
                    // Attached to one stream, its kernels take the memory.
                    let streams = if text.contains("Single") || text.contains("SINGLE") {
                        self.streams_of(args.get(stream).copied(), &arg(stream))
                    } else {
                        LocSet::new()
                    };
                    for l in self.memory(&arg(mem)).iter() {
                        self.locs[l.0 as usize].attached = attached;
                        self.locs[l.0 as usize].attached_streams = streams.clone();
                    }
                }
                Effect::HostAccess { mem, write } => {
                    self.access(n, &arg(mem), write, flow);
                }
                Effect::UsedByLibrary { mem, write } => {
                    self.library_access(n, &arg(mem), write, flow);
                }
                Effect::StartsRequest { reads, writes, request } => {
                    let read = reads.map(&arg).unwrap_or_default();
                    let written = writes.map(&arg).unwrap_or_default();
                    self.library_access(n, &read, false, flow);
                    self.library_access(n, &written, true, flow);
                    let requests = self.new_request(n, args.get(request).copied(), flow);
                    self.start_request(n, &requests, &read, &written, args.get(request).copied(), flow);
                }
                // Over an array's requests, a wait over a collection: a path that skipped it
                // (`if (reqs.empty()) return;`) is one where the array held none.
                Effect::CompletesRequests { requests: i, array } => {
                    let requests = self.requests_held(args.get(i).copied(), flow);
                    let over_collection = array && args.get(i).is_some_and(|a| self.emptiness_tested(n, *a));
                    self.complete_requests(&requests, over_collection, flow);
                }
                // Polled in a loop until the flag says done, a completion (a loop that polls runs
                // at least once: `waits_inside`); once, or in a loop that does not test its
                // flag, nothing.
                Effect::TestsRequests { requests: i, flag } => {
                    let flag_name = args.get(flag).and_then(|f| request_variable(self.text(*f)));
                    if flag_name.is_some_and(|name| self.polls(n, &name)) {
                        let requests = self.requests_held(args.get(i).copied(), flow);
                        self.complete_requests(&requests, false, flow);
                    }
                }
                Effect::Returns { kind } => {
                    ret.insert(self.loc_at(n, "alloc", Some(kind), None, true));
                }
                Effect::Free {
                    mem,
                    by,
                    waits_implicitly,
                } => {
                    let m = self.memory(&arg(mem));
                    // Whatever it frees, a pointer the analysis cannot name too (a parameter),
                    // the driver synchronizes the device; a null pointer frees nothing.
                    let null_text = args
                        .get(mem)
                        .is_some_and(|a| matches!(self.text(*a).trim(), "0" | "NULL" | "nullptr"));
                    let may_free_something =
                        !null_text && (arg(mem).is_empty() || arg(mem).iter().any(|l| l != self.null));
                    if m.is_empty() {
                        if waits_implicitly && may_free_something {
                            self.machine.wait_implicitly(&mut flow.m);
                        }
                        continue;
                    }
                    if !arg(mem).contains(self.unknown) && !self.deleting_at_scope_end {
                        self.emit(n, Event::Dealloc { regions: &m, by }, flow);
                    }
                    // Of memory made in a stream's order, `cudaFree` "will not perform any
                    // implicit synchronization": a free at once.
                    let waits_implicitly =
                        waits_implicitly && !m.iter().all(|l| self.locs[self.root_of(l).0 as usize].on_stream);
                    if waits_implicitly {
                        // The driver synchronizes the device here; no documentation says it must.
                        self.emit(n, Event::ImplicitWait { regions: &m }, flow);
                        self.machine.wait_implicitly(&mut flow.m);
                    }
                    self.machine.released(&mut flow.m, &m, &self.regions());
                    if !waits_implicitly {
                        self.emit(
                            n,
                            Event::HostAccess {
                                regions: &m,
                                access: Access::Free,
                            },
                            flow,
                        );
                    }
                }
                Effect::Copy {
                    dst,
                    src,
                    kind,
                    dir,
                    stream,
                } => {
                    let dir = match kind.and_then(|k| args.get(k)) {
                        Some(k) => api::copy_kind(self.argument_text(*k).trim()).unwrap_or(Dir::Unknown),
                        None => dir,
                    };
                    let (d, s) = (self.memory(&arg(dst)), self.memory(&arg(src)));
                    // What the copy dereferences: its pointers as they are (a null one too).
                    // A symbol copy's symbol is a variable, not a pointer.
                    let symbol = n.field("function").is_some_and(|f| self.text(f).contains("Symbol"));
                    // Pointers the source holds (`unique[i].d_out`, copied to a `__constant__`
                    // array or a device struct) reach code the analysis does not follow.
                    let mut held = self.reachable(&arg(src), flow);
                    held.subtract(&arg(src));
                    // A struct copied to a `__constant__`/`__device__` symbol
                    // (`cudaMemcpyToSymbol(d_params, &params, ..)`): every kernel may use the
                    // pointers any object holds.
                    if symbol
                        && args
                            .get(src)
                            .is_some_and(|a| self.text(*a).trim_start().starts_with('&'))
                    {
                        for v in flow.fields.values() {
                            held.union_with(v);
                        }
                    }
                    let held = self.memory(&held);
                    if !held.is_empty() {
                        self.machine.handed_over(&mut flow.m, &held, &self.regions());
                    }
                    // A symbol copy dereferences its host pointer, and the symbol where it is an
                    // array the file declares (`__constant__ float c_scale[kOutC]`: its bytes); a
                    // pointer variable as the symbol (`__device__ float* d_p`) is not dereferenced.
                    let array_symbol = |i: usize| {
                        args.get(i).is_some_and(|a| {
                            a.kind() == "identifier"
                                && self
                                    .globals
                                    .get(self.text(*a))
                                    .is_some_and(|g| contains_kind(g.declarator, "array_declarator"))
                        })
                    };
                    let to_symbol = n.field("function").is_some_and(|f| self.text(f).contains("ToSymbol"));
                    let (check_dst, check_src) = if !symbol {
                        (true, true)
                    } else if to_symbol {
                        (array_symbol(dst), true)
                    } else {
                        (true, array_symbol(src))
                    };
                    if check_dst {
                        let role = DerefRole::CopyDestination;
                        self.deref(n, &arg(dst), role, from_start(dst), flow);
                    }
                    if check_src {
                        let role = DerefRole::CopySource;
                        self.deref(n, &arg(src), role, from_start(src), flow);
                    }
                    // The direction the code states, against where the memory lives (a symbol
                    // copy's symbol is a `__device__` variable, not the host array it looks like).
                    // Only a side the argument names directly (`h`, `&x`, `v.data()`, `b.dev`) is
                    // evidence: memory reached through elements or pointers stored in other
                    // memory (`params->dsts[i]`) may be any of what was ever stored there.
                    let symbol_copy = n.field("function").is_some_and(|f| self.text(f).contains("Symbol"));
                    if dir != Dir::Unknown && !symbol_copy {
                        let direct = |i: usize, set: &LocSet| match args.get(i) {
                            Some(a) if self.names_directly(*a) => set.clone(),
                            _ => LocSet::new(),
                        };
                        let (dd, ds) = (direct(dst, &d), direct(src, &s));
                        self.emit(
                            n,
                            Event::StatedCopy {
                                dst: &dd,
                                src: &ds,
                                dir,
                            },
                            flow,
                        );
                    }
                    let dir = if dir == Dir::Unknown {
                        self.infer_dir(&d, &s)
                    } else {
                        dir
                    };
                    let streams = match stream {
                        Some(i) => self.streams_of(args.get(i).copied(), &arg(i)),
                        None => LocSet::single(self.legacy),
                    };
                    // A copy captured into a graph does not run here (it runs, staged or not, when
                    // the graph is launched): nothing to say of the call.
                    let captured = !streams.is_empty() && streams.iter().all(|x| flow.capturing.contains(x));
                    if stream.is_some() {
                        let (host, host_arg) = match dir {
                            Dir::HostToDevice => (s.clone(), args.get(src)),
                            Dir::DeviceToHost => (d.clone(), args.get(dst)),
                            _ => (LocSet::new(), None),
                        };
                        if !host.is_empty() {
                            // A one-dimensional copy's byte count follows its two pointers; a copy
                            // to or from one local object (`&out` of `T out;`) is that object.
                            let bytes = (dst == 0 && src == 1)
                                .then(|| args.get(2))
                                .flatten()
                                .and_then(|c| self.byte_count(self.text(*c)))
                                .or_else(|| host_arg.and_then(|a| self.single_object_bytes(*a)));
                            let host_arg = host_arg.map(|a| self.site(*a));
                            self.emit(
                                n,
                                Event::AsyncCopy {
                                    host: &host,
                                    dir,
                                    host_arg,
                                    bytes,
                                    advice: &ADVICE,
                                },
                                flow,
                            );
                        }
                    }
                    // From pageable memory the call returns once the data is staged: the copy no
                    // longer reads the host buffer (CUDA's API sync behavior).
                    let staged = dir == Dir::HostToDevice
                        && !s.is_empty()
                        && s.iter().all(|l| {
                            self.locs[l.0 as usize].kind == Some(MemKind::Pageable)
                                && !flow.m.registered_may.contains(self.root_of(l))
                                && !flow.m.registered_may.contains(l)
                        });
                    // Captured into a graph, the copy reads the host buffer at each launch.
                    let reads = if staged && !captured { LocSet::new() } else { s.clone() };
                    self.enqueue(
                        n,
                        OpKind::Copy,
                        &streams,
                        &reads,
                        &d,
                        stream.and_then(|i| args.get(i).copied()),
                        flow,
                    );
                    // Into pageable memory an asynchronous copy "might be synchronous with respect
                    // to host": the driver waits for the stream and copies before returning,
                    // which what relies on it does by an implementation's accident.
                    let into_pageable = dir == Dir::DeviceToHost
                        && !d.is_empty()
                        && d.iter().all(|l| {
                            self.locs[l.0 as usize].kind == Some(MemKind::Pageable)
                                && !flow.m.registered_may.contains(self.root_of(l))
                                && !flow.m.registered_may.contains(l)
                        });
                    if stream.is_none() {
                        self.machine.sync_streams(&mut flow.m, &streams);
                    } else if into_pageable && !captured {
                        let work = self.machine.stream_work(&flow.m, &streams);
                        self.machine.wait_implicitly_for(&mut flow.m, &work);
                    }
                }
                Effect::Memset { dst, stream } => {
                    let d = self.memory(&arg(dst));
                    self.deref(n, &arg(dst), DerefRole::MemsetDestination, from_start(dst), flow);
                    let streams = match stream {
                        Some(i) => self.streams_of(args.get(i).copied(), &arg(i)),
                        None => LocSet::single(self.legacy),
                    };
                    self.enqueue(
                        n,
                        OpKind::Memset,
                        &streams,
                        &LocSet::new(),
                        &d,
                        stream.and_then(|i| args.get(i).copied()),
                        flow,
                    );
                    if stream.is_none() {
                        self.machine.sync_streams(&mut flow.m, &streams);
                    }
                }
                Effect::StreamCreate { out, flags } => {
                    let l = self.loc_at(n, "stream", None, None, true);
                    self.created_streams.insert(l);
                    if let Some(f) = flags.and_then(|f| args.get(f)) {
                        // Through a parameter, a named constant or a macro (`STREAM_FLAGS`).
                        let t = self.argument_text(*f);
                        if t.contains("NonBlocking") || t.contains("NON_BLOCKING") || t.trim() == "1" {
                            self.machine.set_non_blocking(l);
                        }
                    }
                    self.store_out(args.get(out).copied(), l, flow, true);
                }
                Effect::EventCreate { out } => {
                    let l = self.loc_at(n, "event", None, None, true);
                    self.store_out(args.get(out).copied(), l, flow, true);
                }
                Effect::SyncStream(i) => {
                    let streams = self.streams_of(args.get(i).copied(), &arg(i));
                    self.machine.sync_streams(&mut flow.m, &streams);
                }
                Effect::SyncEvent(i) => {
                    let events = arg(i);
                    if events.is_empty() {
                        self.machine.sync_all(&mut flow.m);
                    } else {
                        self.machine.sync_events(&mut flow.m, &events);
                    }
                }
                Effect::SyncDevice => self.machine.sync_all(&mut flow.m),
                Effect::RecordEvent { event, stream } => {
                    let streams = self.streams_of(args.get(stream).copied(), &arg(stream));
                    // An event recorded in a capture belongs to the graph.
                    if !streams.is_empty() && streams.iter().all(|s| flow.capturing.contains(s)) {
                        flow.capturing.union_with(&arg(event));
                        continue;
                    }
                    self.machine.record_events(&mut flow.m, &arg(event), &streams);
                }
                Effect::StreamWaitEvent { stream, event } => {
                    let streams = self.streams_of(args.get(stream).copied(), &arg(stream));
                    // A stream that waits for a captured event joins the capture (CUDA's
                    // cross-stream capture): its work is recorded into the graph too.
                    let events = arg(event);
                    if !events.is_empty() && events.iter().all(|e| flow.capturing.contains(e)) {
                        flow.capturing.union_with(&streams);
                        continue;
                    }
                    // An event the analysis cannot name (held where it does not follow) may
                    // have been recorded after any work: the stream waits for it all as far as
                    // the evidence goes.
                    if events.is_empty() || events.contains(self.unknown) {
                        let inflight = flow.m.inflight_may.clone();
                        self.machine.order_after(&mut flow.m, &streams, &inflight);
                        continue;
                    }
                    self.machine.wait_events(&mut flow.m, &streams, &events);
                }
                Effect::Register(i) => {
                    let m = self.memory(&arg(i));
                    self.machine.register_in_place(&mut flow.m, &m);
                }
                Effect::PhysicalOut { out } | Effect::ReserveOut { out } => {
                    let (what, kind) = match *e {
                        Effect::PhysicalOut { .. } => ("physical", None),
                        _ => ("reserve", Some(MemKind::VmmMapping)),
                    };
                    let l = self.loc_at(n, what, kind, None, true);
                    self.store_out(args.get(out).copied(), l, flow, false);
                }
                Effect::MapAt { va, physical } => {
                    let phys: LocSet = arg(physical)
                        .iter()
                        .filter(|l| self.locs[l.0 as usize].kind.is_none())
                        .collect();
                    let views = self.mappings(&arg(va));
                    for v in views.iter() {
                        self.locs[v.0 as usize].physical.union_with(&phys);
                        self.locs[v.0 as usize].origin = self.site(n);
                    }
                    if !views.is_empty() {
                        // A place at an offset that may be any (`base + handles_.size() * page_`)
                        // may be a new one each time: not mapped before, as far as is known.
                        let anywhere: LocSet = views.iter().filter(|v| self.locs[v.0 as usize].any_offset).collect();
                        flow.m.mapped_must.subtract(&anywhere);
                        flow.m.mapped_may.subtract(&anywhere);
                        self.emit(n, Event::Map { views: &views }, flow);
                        self.machine.map(&mut flow.m, &views);
                        self.started.mapped.push(views.clone());
                    }
                }
                Effect::SetAccess { va } => {
                    let at = self.mappings(&arg(va));
                    self.machine.set_access(&mut flow.m, &at, &self.regions());
                }
                Effect::Unmap { va } => {
                    let mut at = self.mappings(&arg(va));
                    // At an offset that may be any: it may unmap any mapping of the reservation.
                    let roots: Vec<Loc> = at
                        .iter()
                        .filter(|l| self.locs[l.0 as usize].any_offset)
                        .map(|l| self.root_of(l))
                        .collect();
                    for root in roots {
                        at.insert(root);
                        let views: Vec<Loc> = self
                            .views
                            .iter()
                            .filter(|((r, _), _)| *r == root)
                            .map(|(_, &v)| v)
                            .collect();
                        for v in views {
                            at.insert(v);
                        }
                    }
                    if !at.is_empty() {
                        self.emit(
                            n,
                            Event::HostAccess {
                                regions: &at,
                                access: Access::Free,
                            },
                            flow,
                        );
                    }
                    self.machine.unmap(&mut flow.m, &at, &self.regions());
                }
                Effect::AddressFree { va } => {
                    let at = self.mappings(&arg(va));
                    if !at.is_empty() {
                        self.emit(n, Event::AddressFree { regions: &at }, flow);
                    }
                }
                Effect::FreeOnStream { mem, stream } => {
                    let m = self.memory(&arg(mem));
                    if m.is_empty() {
                        continue;
                    }
                    if !arg(mem).contains(self.unknown) {
                        let by = cuda_lint_machine::Allocator::Device;
                        self.emit(n, Event::Dealloc { regions: &m, by }, flow);
                    }
                    let streams = self.streams_of(args.get(stream).copied(), &arg(stream));
                    // Freed in a capture: a node of the graph (memory the graph allocates and
                    // frees at each launch), nothing freed now.
                    if !streams.is_empty() && streams.iter().all(|s| flow.capturing.contains(s)) {
                        self.machine.handed_over(&mut flow.m, &m, &self.regions());
                        continue;
                    }
                    self.machine.released(&mut flow.m, &m, &self.regions());
                    let exempt = cuda_lint_machine::OpSet::new();
                    let event = Event::FreeOnStreams {
                        regions: &m,
                        streams: &streams,
                        exempt: &exempt,
                    };
                    self.emit(n, event, flow);
                }
                // A query waits only when polled: in a loop, until the work is done.
                Effect::QueryStream(_) | Effect::QueryEvent(_) if !in_loop(n) => {}
                Effect::QueryStream(i) => {
                    let streams = self.streams_of(args.get(i).copied(), &arg(i));
                    self.machine.sync_streams(&mut flow.m, &streams);
                }
                Effect::QueryEvent(i) => {
                    let events = arg(i);
                    if events.is_empty() {
                        self.machine.sync_all(&mut flow.m);
                    } else {
                        self.machine.sync_events(&mut flow.m, &events);
                    }
                }
                Effect::HandleOut { out } => {
                    let h = self.loc_at(n, "handle", None, None, true);
                    self.handles.insert(h);
                    self.store_out(args.get(out).copied(), h, flow, true);
                    self.store_field(&LocSet::single(h), HANDLE_STREAM, &LocSet::single(self.legacy), flow);
                }
                Effect::SetHandleStream { handle, stream } => {
                    let mut handles = arg(handle);
                    handles.intersect_with(&self.handles);
                    let streams = self.streams_of(args.get(stream).copied(), &arg(stream));
                    self.store_field(&handles, HANDLE_STREAM, &streams, flow);
                }
                Effect::SetPointerMode { handle, mode } => {
                    let mut handles = arg(handle);
                    handles.intersect_with(&self.handles);
                    let text = args.get(mode).map(|m| self.argument_text(*m)).unwrap_or_default();
                    let device = text.contains("DEVICE") || text.trim() == "1";
                    let flag = if device { handles.clone() } else { LocSet::new() };
                    self.store_field(&handles, DEVICE_POINTER_MODE, &flag, flow);
                }
                Effect::LibraryWork {
                    on,
                    reads,
                    writes,
                    result,
                } => {
                    self.library_work(n, on, reads, writes, result, args, &arg, flow);
                }
                Effect::BeginCapture(i) => {
                    let streams = self.streams_of(args.get(i).copied(), &arg(i));
                    let site = self.site(n);
                    if streams.iter().any(|s| s == self.legacy) {
                        self.capture_event(n, CaptureRule::CaptureOnLegacy, Some(site), flow);
                    }
                    flow.capturing.union_with(&streams);
                    flow.capturing_must.union_with(&streams);
                    // The graph it makes, empty at each capture (a loop's next round too).
                    let g = self.loc_at(n, "graph", None, None, true);
                    self.graphs.insert(g);
                    let graph = LocSet::single(g);
                    self.store_field(&graph, GRAPH_READS, &LocSet::new(), flow);
                    self.store_field(&graph, GRAPH_WRITES, &LocSet::new(), flow);
                    flow.building = graph;
                    flow.capture_site = Some(site);
                    // The mode, the last argument (`cudaStreamCaptureModeGlobal`): a mode the
                    // analysis cannot read (a parameter) is not known to be strict.
                    let mode = match args.len() {
                        0 | 1 => "global".to_string(),
                        k => self.argument_text(args[k - 1]).to_ascii_lowercase(),
                    };
                    flow.capture_strict =
                        (mode.contains("global") || mode.contains("threadlocal") || mode.contains("thread_local"))
                            && !mode.contains("relaxed");
                }
                Effect::EndCapture(i) => {
                    // The capture ends for its origin stream and every stream that joined it.
                    let _ = i;
                    flow.capturing = LocSet::new();
                    flow.capturing_must = LocSet::new();
                }
                Effect::GraphOut { out } => {
                    let graphs = std::mem::take(&mut flow.building);
                    flow.capture_site = None;
                    if !graphs.is_empty() {
                        self.store_values_out(args.get(out).copied(), &graphs, flow);
                    }
                }
                // An executable graph is its graph, to the analysis.
                Effect::Instantiate { out, graph } => {
                    let mut graphs = arg(graph);
                    // `*graph` of a helper's `cudaGraph_t* graph` that `cudaStreamEndCapture`
                    // stored through: what the caller passed the address of.
                    if let Some(name) = args
                        .get(graph)
                        .map(|a| self.text(*a).trim())
                        .and_then(|t| t.strip_prefix('*'))
                        && let Some(v) = flow.vars.get(&format!("*{}", name.trim()))
                    {
                        graphs.union_with(v);
                    }
                    graphs.intersect_with(&self.graphs);
                    if !graphs.is_empty() {
                        self.store_values_out(args.get(out).copied(), &graphs, flow);
                    }
                }
                Effect::GraphLaunch { exec, stream } => {
                    let mut graphs = arg(exec);
                    graphs.intersect_with(&self.graphs);
                    // A graph whose capture the analysis did not see names no memory it knows.
                    if graphs.is_empty() {
                        continue;
                    }
                    let reads = self.field_value(&graphs, GRAPH_READS, flow);
                    let writes = self.field_value(&graphs, GRAPH_WRITES, flow);
                    let mut uses = reads.clone();
                    uses.union_with(&writes);
                    // Each memory the graph names, as an argument of its own.
                    let slots: Vec<LocSet> = uses.iter().map(LocSet::single).collect();
                    let captured = graphs.iter().next().map(|g| self.locs[g.0 as usize].origin);
                    self.emit(
                        n,
                        Event::GraphLaunch {
                            slots: &slots,
                            captured,
                        },
                        flow,
                    );
                    let streams = self.streams_of(args.get(stream).copied(), &arg(stream));
                    self.enqueue(
                        n,
                        OpKind::Graph,
                        &streams,
                        &reads,
                        &writes,
                        args.get(stream).copied(),
                        flow,
                    );
                }
                Effect::CaptureModeExchange(_) => flow.capture_strict = false,
                Effect::Unregister(i) => {
                    let m = self.memory(&arg(i));
                    if !arg(i).contains(self.unknown) {
                        self.emit(n, Event::Unregister { regions: &m }, flow);
                    }
                    self.machine.unregister(&mut flow.m, &m, &self.regions());
                }
            }
        }
        ret
    }

    /// Tells the lints that `vals` (an argument's values, a null pointer included) are
    /// dereferenced as `role`, `bytes` from their start when known.
    pub(super) fn deref(&mut self, n: Node<'t>, vals: &LocSet, role: DerefRole, bytes: Option<u64>, flow: &Flow) {
        if vals.is_empty() {
            return;
        }
        // A kernel captured into a graph reads its memory at each launch, not now.
        if self.captured_launch && matches!(role, DerefRole::KernelReads | DerefRole::KernelUses) {
            return;
        }
        self.emit(
            n,
            Event::Deref {
                regions: vals,
                role,
                bytes,
            },
            flow,
        );
    }

    /// A call the analysis cannot see (`cublasSgemm(..)`, a function declared but not defined)
    /// is given `args`: it may read, write and release the memory they point to, and where
    /// it is given a pointer variable or its address (`init(&d)`, `alloc(d)` taking a
    /// reference), give that variable memory.
    pub(super) fn unseen_call(&mut self, args: &[Node<'t>], vals: &[LocSet], flow: &mut Flow) {
        // The memory it is given, and what the objects it is given hold (`&outputs` of a struct
        // whose fields point to buffers), a few levels deep.
        let given: LocSet = vals.iter().flat_map(|v| v.iter()).collect();
        let reach = self.reachable(&given, flow);
        let mem = self.memory(&reach);
        if !mem.is_empty() {
            self.machine.handed_over(&mut flow.m, &mem, &self.regions());
        }
        // Given a stream or an event (`engine::flush(stream)`), it may wait for it: what was
        // enqueued there may be done after the call, and nothing shows it is not.
        let handles: LocSet = reach
            .iter()
            .filter(|&l| {
                self.locs[l.0 as usize].kind.is_none() && l != self.unknown && l != self.null && l != self.globals_obj
            })
            .collect();
        if !handles.is_empty() {
            self.machine.sync_streams(&mut flow.m, &handles);
            self.machine.sync_events(&mut flow.m, &handles);
        }
        for a in args {
            let Some(x) = strip_casts(*a, self.src) else { continue };
            let var = match x.kind() {
                "identifier" => Some(x),
                "pointer_expression" if self.text(x).trim_start().starts_with('&') => {
                    x.field("argument").filter(|v| v.kind() == "identifier")
                }
                _ => None,
            };
            let Some(var) = var else { continue };
            let name = self.text(var);
            if let Some(v) = flow.vars.get_mut(name)
                && v.contains(self.null)
            {
                *v = LocSet::single(self.unknown);
            }
        }
    }

    /// The memory the variables named in `n` hold (`Block{p, kind}`: `p`'s), bounded.
    pub(super) fn mentioned_memory(&self, n: Node<'t>, flow: &Flow) -> LocSet {
        let mut out = LocSet::new();
        let mut stack = vec![n];
        let mut steps = 0;
        while let Some(x) = stack.pop() {
            steps += 1;
            if steps > 256 {
                break;
            }
            if x.kind() == "identifier"
                && let Some(v) = flow.vars.get(self.text(x))
            {
                out.union_with(&self.memory(v));
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
        out
    }

    /// `vals` and what their fields and elements hold, three levels deep (not the file's
    /// variables, which every function reaches).
    pub(super) fn reachable(&self, vals: &LocSet, flow: &Flow) -> LocSet {
        let mut reach = vals.clone();
        for _ in 0..3 {
            let more: LocSet = flow
                .fields
                .iter()
                .filter(|((o, _), _)| reach.contains(*o) && *o != self.globals_obj)
                .flat_map(|(_, v)| v.iter())
                .collect();
            if !reach.union_with(&more) {
                break;
            }
        }
        reach
    }

    /// The direction of a `cudaMemcpyDefault` copy from the kinds of its sides.
    pub(super) fn infer_dir(&self, dst: &LocSet, src: &LocSet) -> Dir {
        let device = |s: &LocSet| {
            s.iter()
                .any(|l| self.locs[l.0 as usize].kind.is_some_and(MemKind::is_device_only))
        };
        let host = |s: &LocSet| {
            s.iter().any(|l| {
                matches!(
                    self.locs[l.0 as usize].kind,
                    Some(MemKind::Pageable | MemKind::Pinned | MemKind::Unknown)
                )
            })
        };
        match (host(dst), device(dst), host(src), device(src)) {
            (true, _, _, true) => Dir::DeviceToHost,
            (_, true, true, _) => Dir::HostToDevice,
            (_, true, _, true) => Dir::DeviceToDevice,
            _ => Dir::Unknown,
        }
    }

    /// The streams an argument names: `0`/`NULL`/`cudaStreamLegacy` is the legacy stream; a
    /// stream the analysis did not see created is not known (empty: any stream).
    pub(super) fn streams_of(&self, arg: Option<Node<'t>>, vals: &LocSet) -> LocSet {
        match arg {
            None => LocSet::single(self.legacy),
            Some(a) if is_null(self.text(a)) || self.text(a).contains("cudaStreamLegacy") => {
                LocSet::single(self.legacy)
            }
            Some(_) => vals.iter().filter(|l| self.locs[l.0 as usize].kind.is_none()).collect(),
        }
    }

    /// The operation of the call at `n` in this context (one for every execution of it), made
    /// the first time with `advice` and the name of what it runs on (`name`, for diagnostics).
    fn op_at(
        &mut self,
        n: Node<'t>,
        kind: OpKind,
        advice: &'static cuda_lint_machine::Advice,
        name: Option<String>,
    ) -> OpId {
        let key = (self.call_sites.clone(), n.start_byte() as u32);
        if let Some(&op) = self.op_by_site.get(&key) {
            return op;
        }
        let op = self.machine.new_op(kind, advice);
        self.op_sites.push((self.site(n), name));
        self.op_by_site.insert(key, op);
        op
    }

    /// Reports a call of a kind stream capture restricts, made while a stream captures (the
    /// lint decides whether the capture's mode forbids it).
    fn capture_event(&mut self, n: Node<'t>, rule: CaptureRule, captured: Option<Site>, flow: &mut Flow) {
        // Evidence: a capture under way on every path here, not on one that left it early.
        if flow.capturing_must.is_empty() && rule != CaptureRule::CaptureOnLegacy {
            return;
        }
        let call = match self.library_name(n) {
            Some(name) => name.to_string(),
            None => match n.field("function") {
                Some(f) => format!("{}<<<..>>>", self.text(f).trim()),
                None => "this call".to_string(),
            },
        };
        // A capturing stream the file made without `cudaStreamNonBlocking`: one made where the
        // analysis cannot see (a parameter) is not known to be blocking.
        let blocking = flow
            .capturing
            .iter()
            .any(|s| self.created_streams.contains(s) && !self.machine.is_non_blocking(s));
        let captured = captured.or(flow.capture_site);
        let strict = flow.capture_strict;
        self.emit(
            n,
            Event::DuringCapture {
                call: &call,
                rule,
                strict,
                blocking,
                captured,
            },
            flow,
        );
    }

    /// The kinds of call stream capture restricts, made while a stream captures.
    fn check_capture(
        &mut self,
        n: Node<'t>,
        effects: &[Effect],
        args: &[Node<'t>],
        arg: &dyn Fn(usize) -> LocSet,
        flow: &mut Flow,
    ) {
        let family = self.library_name(n).and_then(cuda_lint_c_api::lookup).map(|f| f.family);
        let cuda = matches!(
            family,
            Some(cuda_lint_c_api::Family::Runtime | cuda_lint_c_api::Family::Driver)
        );
        let stream_ordered = effects.iter().any(|e| matches!(e, Effect::AllocatedOn(_)));
        let capturing = |this: &Self, i: usize| {
            let streams = this.streams_of(args.get(i).copied(), &arg(i));
            streams.iter().any(|s| flow.capturing.contains(s))
        };
        let rule = effects.iter().find_map(|e| match *e {
            Effect::SyncDevice => Some(CaptureRule::SyncsCapture),
            Effect::SyncStream(i) | Effect::QueryStream(i) if capturing(self, i) => Some(CaptureRule::SyncsCapture),
            Effect::SyncEvent(i) | Effect::QueryEvent(i) if arg(i).iter().any(|e| flow.capturing.contains(e)) => {
                Some(CaptureRule::SyncsCapture)
            }
            Effect::Copy { stream: None, .. } | Effect::Memset { stream: None, .. } if cuda => {
                Some(CaptureRule::SynchronousWork)
            }
            Effect::AllocOut { .. } | Effect::AllocRet { .. } | Effect::Free { .. } if cuda && !stream_ordered => {
                Some(CaptureRule::PotentiallyUnsafe)
            }
            Effect::BatchCopy { .. } => Some(CaptureRule::Unsupported),
            _ => None,
        });
        if let Some(rule) = rule {
            self.capture_event(n, rule, None, flow);
        }
    }

    /// A library routine (`cublasSgemm`, `ncclAllReduce`): work on its handle's stream or its
    /// stream argument, reading and writing what its pointer arguments point to.
    #[allow(clippy::too_many_arguments)]
    fn library_work(
        &mut self,
        n: Node<'t>,
        on: cuda_lint_c_api::On,
        reads: &[usize],
        writes: &[usize],
        result: Option<usize>,
        args: &[Node<'t>],
        arg: &dyn Fn(usize) -> LocSet,
        flow: &mut Flow,
    ) {
        // In device pointer mode (on some path), a scalar result is written on the stream.
        let device_mode = match on {
            cuda_lint_c_api::On::Handle(i) => {
                let mut handles = arg(i);
                handles.intersect_with(&self.handles);
                !self.field_value(&handles, DEVICE_POINTER_MODE, flow).is_empty()
            }
            cuda_lint_c_api::On::Stream(_) => false,
        };
        let (streams, name, unset) = match on {
            cuda_lint_c_api::On::Stream(i) => {
                let streams = self.streams_of(args.get(i).copied(), &arg(i));
                let name = args
                    .get(i)
                    .map(|a| self.text(*a).trim().to_string())
                    .filter(|t| !is_null(t));
                (streams, name, false)
            }
            cuda_lint_c_api::On::Handle(i) => {
                let mut handles = arg(i);
                handles.intersect_with(&self.handles);
                // A handle made where the analysis cannot see may not even be one of the device
                // (`curandCreateGeneratorHost` generates on the host, into host memory): no work
                // the analysis can speak of.
                if handles.is_empty() {
                    return;
                }
                let streams = self.field_value(&handles, HANDLE_STREAM, flow);
                let unset = !streams.is_empty() && streams.iter().all(|s| s == self.legacy);
                let name = match streams.iter().collect::<Vec<_>>().as_slice() {
                    [s] if *s != self.legacy => self.locs[s.0 as usize].name.clone(),
                    _ => None,
                };
                (streams, name, unset)
            }
        };
        let memory = |this: &Self, positions: &[usize]| {
            let mut m = LocSet::new();
            for &p in positions {
                m.union_with(&this.memory(&arg(p)));
            }
            m
        };
        let read = memory(self, reads);
        let mut written = memory(self, writes);
        // A scalar result: into device memory, written on the stream; into host memory, the
        // call returns once it is written, which waits for the stream.
        let result_memory = result.map(|r| memory(self, &[r])).unwrap_or_default();
        let on_host = !device_mode
            && !result_memory.is_empty()
            && result_memory
                .iter()
                .all(|l| !self.locs[l.0 as usize].kind.is_some_and(MemKind::is_device_only));
        if !on_host {
            written.union_with(&result_memory);
        }
        if let Some(op) = self.enqueue_named(n, OpKind::Library, &streams, &read, &written, name, flow)
            && unset
        {
            self.on_unset_handle.insert(op);
        }
        if on_host {
            self.machine.sync_streams(&mut flow.m, &streams);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn enqueue(
        &mut self,
        n: Node<'t>,
        kind: OpKind,
        streams: &LocSet,
        reads: &LocSet,
        writes: &LocSet,
        stream_arg: Option<Node<'_>>,
        flow: &mut Flow,
    ) -> Option<OpId> {
        let name = stream_arg
            .map(|a| self.text(a).trim().to_string())
            .filter(|t| !is_null(t));
        self.enqueue_named(n, kind, streams, reads, writes, name, flow)
    }

    /// [`Self::enqueue`], with the name of the stream for diagnostics given.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn enqueue_named(
        &mut self,
        n: Node<'t>,
        kind: OpKind,
        streams: &LocSet,
        reads: &LocSet,
        writes: &LocSet,
        name: Option<String>,
        flow: &mut Flow,
    ) -> Option<OpId> {
        let writes_per_arg = self.writes_per_arg.take();
        if !streams.is_empty() && streams.iter().all(|s| flow.capturing.contains(s)) {
            // Captured into a graph: it runs when the graph is launched, reading and writing
            // its memory then.
            let mut used = reads.clone();
            used.union_with(writes);
            let graphs = flow.building.clone();
            let mut r = self.field_value(&graphs, GRAPH_READS, flow);
            r.union_with(reads);
            let mut w = self.field_value(&graphs, GRAPH_WRITES, flow);
            w.union_with(writes);
            self.store_field(&graphs, GRAPH_READS, &r, flow);
            self.store_field(&graphs, GRAPH_WRITES, &w, flow);
            self.machine.handed_over(&mut flow.m, &used, &self.regions());
            return None;
        }
        // Work on the legacy default stream while a stream captures.
        if !flow.capturing.is_empty() && !streams.is_empty() && streams.iter().all(|s| s == self.legacy) {
            self.capture_event(n, CaptureRule::LegacyStreamWork, None, flow);
        }
        let op = self.op_at(n, kind, &ADVICE, name);
        self.machine.add_uses(op, streams, reads, writes);
        if std::mem::take(&mut self.launch_writes_unseen) {
            self.machine.set_writes_unseen(op);
        }
        self.emit(n, Event::Enqueue { op }, flow);
        self.machine.start(&mut flow.m, op);
        let writes_per_arg = writes_per_arg.unwrap_or_else(|| vec![(writes.clone(), false)]);
        self.machine
            .contents_used(&mut flow.m, op, reads, &writes_per_arg, &self.regions());
        self.started.ops.push(op);
        Some(op)
    }
}

/// CUDA-aware MPI: its calls use memory of any kind on the host's timeline, and its nonblocking
/// operations run "on" their requests until completed.
impl<'s, 't> FileAnalysis<'s, 't> {
    /// The library function called at `n` uses `target` before it returns (`MPI_Send`), or
    /// from the call on (`MPI_Isend`).
    fn library_access(&mut self, n: Node<'t>, target: &LocSet, write: bool, flow: &mut Flow) {
        let mem = self.accessed_memory(target);
        let Some(call) = self.library_name(n) else { return };
        if mem.is_empty() {
            return;
        }
        let access = if write { Access::Write } else { Access::Read };
        self.emit(
            n,
            Event::LibraryAccess {
                regions: &mem,
                access,
                call,
            },
            flow,
        );
        self.machine.host_touched(&mut flow.m, &mem, write, &self.regions());
    }

    /// The table's name of the function called at `n`.
    fn library_name(&self, n: Node<'t>) -> Option<&'static str> {
        let called = self.text(n.field("function")?).trim().trim_start_matches("::");
        let f = cuda_lint_c_api::lookup(called)?;
        f.names.iter().copied().find(|name| *name == called)
    }

    /// A new request, made by the nonblocking call at `n` and stored where its request argument
    /// `a` points (`&req`, `&reqs[1]`, `req` a helper's `MPI_Request*`): a handle, copied and
    /// passed by value as streams are (`reqs[0] = post_recv(..)`).
    fn new_request(&mut self, n: Node<'t>, a: Option<Node<'t>>, flow: &mut Flow) -> LocSet {
        let r = self.loc_at(n, "request", None, None, true);
        self.machine.set_request(r);
        self.store_out(a, r, flow, true);
        LocSet::single(r)
    }

    /// The requests held where an argument points (`&req`, `&reqs[0]`, and an array of them:
    /// `reqs`, `reqs.data()`, whose elements are all of them). Empty where none is known: a
    /// request the analysis did not see made.
    fn requests_held(&mut self, a: Option<Node<'t>>, flow: &mut Flow) -> LocSet {
        let Some(a) = a.and_then(|a| strip_casts(a, self.src)) else {
            return LocSet::new();
        };
        let mut held = if a.kind() == "pointer_expression" && self.text(a).trim_start().starts_with('&') {
            match a.field("argument") {
                Some(x) => self.expr(x, flow, false),
                None => LocSet::new(),
            }
        } else {
            let places = self.expr(a, flow, false);
            let mut v = self.field_value(&places, ELEMENTS, flow);
            if a.kind() == "identifier" {
                // A helper's `MPI_Request* req`: what the caller passed the address of.
                if let Some(x) = flow.vars.get(&format!("*{}", self.text(a))) {
                    v.union_with(x);
                }
            }
            v
        };
        held.intersect_with(self.machine.requests());
        held
    }

    /// A nonblocking operation that reads `read` and writes `written` until `requests` complete.
    fn start_request(
        &mut self,
        n: Node<'t>,
        requests: &LocSet,
        read: &LocSet,
        written: &LocSet,
        request_arg: Option<Node<'t>>,
        flow: &mut Flow,
    ) {
        let (reads, writes) = (self.accessed_memory(read), self.accessed_memory(written));
        if requests.is_empty() || (reads.is_empty() && writes.is_empty()) {
            return;
        }
        let name = request_arg.map(|a| self.text(a).trim().trim_start_matches('&').to_string());
        let op = self.op_at(n, OpKind::Request, &MPI_ADVICE, name);
        self.machine.add_uses(op, requests, &reads, &writes);
        // It holds pageable memory too, until completed.
        self.machine.set_host_in_stream_order(op);
        self.emit(n, Event::Enqueue { op }, flow);
        self.machine.start(&mut flow.m, op);
        self.started.ops.push(op);
    }

    /// `MPI_Wait`, `MPI_Waitall`, a polled `MPI_Test`: the operations on `requests` finish. No
    /// request known (held where the analysis did not follow it) may be any.
    /// `over_collection`: over an array's requests (see `Machine::complete_requests`).
    fn complete_requests(&mut self, requests: &LocSet, over_collection: bool, flow: &mut Flow) {
        self.machine.complete_requests(&mut flow.m, requests, over_collection);
    }
}

impl<'s, 't> FileAnalysis<'s, 't> {
    /// Whether the function around the wait at `n` asks the collection its argument `a` names
    /// (`reqs.data()`, `reqs`) whether it is empty (`reqs.empty()`, `reqs.size() == 0`): a wait
    /// over its requests may be skipped only where it held none.
    fn emptiness_tested(&self, n: Node<'t>, a: Node<'t>) -> bool {
        let text = self.text(a).trim();
        let name = text.strip_suffix(".data()").unwrap_or(text).trim_start_matches('&');
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '>' || c == '-')
        {
            return false;
        }
        let mut cur = n.parent();
        while let Some(p) = cur {
            if matches!(p.kind(), "function_definition" | "lambda_expression") {
                let body: String = self.text(p).chars().filter(|c| !c.is_whitespace()).collect();
                return [".empty()", ".size()==0", ".size()>0", ".size()!=0"]
                    .iter()
                    .any(|t| body.contains(&format!("{name}{t}")));
            }
            cur = p.parent();
        }
        false
    }

    /// Whether the call at `n` sits in a loop that ends on the flag `flag` it sets: the loop's
    /// condition names it (`while (!done)`), or a `break` or `return` under a test of it does
    /// (`if (flag) break;`).
    fn polls(&self, n: Node<'t>, flag: &str) -> bool {
        let names = |t: &str| {
            t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == flag)
        };
        let mut cur = n.parent();
        while let Some(p) = cur {
            match p.kind() {
                "for_statement" | "while_statement" | "do_statement" => {
                    if p.field("condition").is_some_and(|c| names(self.text(c))) {
                        return true;
                    }
                    let mut stack = p.field("body").into_iter().collect::<Vec<_>>();
                    let mut seen = 0;
                    while let Some(x) = stack.pop() {
                        seen += 1;
                        if seen > 10_000 {
                            break;
                        }
                        if x.kind() == "if_statement"
                            && x.field("condition").is_some_and(|c| names(self.text(c)))
                            && x.field("consequence").is_some_and(|b| {
                                let t = self.text(b);
                                t.contains("break") || t.contains("return")
                            })
                        {
                            return true;
                        }
                        let mut c = x.walk();
                        stack.extend(x.named_children(&mut c));
                    }
                    return false;
                }
                "function_definition" | "lambda_expression" => return false,
                _ => {}
            }
            cur = p.parent();
        }
        false
    }
}

/// The variable a request argument names: `&req` is `req`, `&reqs[i]` and `reqs + 1` are
/// `reqs`, `r->req` is `r->req`.
fn request_variable(text: &str) -> Option<String> {
    let t = text.trim().trim_start_matches('&').trim();
    let t = t
        .split(['[', '+'])
        .next()?
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let t = t.strip_suffix(".data()").unwrap_or(t);
    (!t.is_empty()).then(|| t.to_string())
}

/// How MPI's findings say to fix them.
static MPI_ADVICE: cuda_lint_machine::Advice = cuda_lint_c_api::MPI_ADVICE;

/// Whether a flags argument, as written (`cudaHostAllocMapped | cudaHostAllocWriteCombined`,
/// `0x4`, a macro's expansion), sets the flag called `name` (compared without case or
/// underscores) or whose value is `bit`.
fn flag_set(text: &str, name: &str, bit: u32) -> bool {
    let letters: String = text
        .chars()
        .filter(|c| *c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    if letters.contains(name) {
        return true;
    }
    text.split('|').any(|part| {
        let part = part.trim().trim_end_matches(['u', 'U']);
        let value = match part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => part.parse::<u32>().ok(),
        };
        value.is_some_and(|v| v & bit != 0)
    })
}

impl<'s, 't> FileAnalysis<'s, 't> {
    /// Whether an argument names memory directly: a variable (`h`), its address (`&x`), a
    /// container's buffer (`v.data()`), an object's field (`b.dev`, `this->d_`), an offset into
    /// one of them (`h + off`), through casts.
    pub(super) fn names_directly(&self, a: Node<'t>) -> bool {
        let Some(a) = strip_casts(a, self.src) else {
            return false;
        };
        let plain = |n: Node<'t>| match n.kind() {
            "identifier" | "this" => true,
            "field_expression" => n
                .field("argument")
                .is_some_and(|x| matches!(x.kind(), "identifier" | "this")),
            _ => false,
        };
        match a.kind() {
            // `h + off`: within the memory `h` names.
            "binary_expression" if a.field("operator").is_some_and(|o| matches!(self.text(o), "+" | "-")) => a
                .field("left")
                .and_then(|l| strip_casts(l, self.src))
                .is_some_and(plain),
            "pointer_expression" if self.text(a).starts_with('&') => a.field("argument").is_some_and(plain),
            "call_expression" => a.field("function").is_some_and(|f| {
                f.kind() == "field_expression"
                    && f.field("field").is_some_and(|m| matches!(self.text(m), "data" | "get"))
                    && f.field("argument").is_some_and(plain)
            }),
            _ => plain(a),
        }
    }
}
