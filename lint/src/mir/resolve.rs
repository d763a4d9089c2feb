//! From rustc's definitions to the API tables: definition paths as the tables spell them, the
//! roles of types, and the cheap test of whether a body touches CUDA at all.

use std::cell::RefCell;
use std::rc::Rc;

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def::DefKind;
use rustc_hir::def_id::{CRATE_DEF_ID, CrateNum, DefId, LocalDefId};
use rustc_hir::definitions::DefPathData;
use rustc_hir::{AttrArgs, Attribute};
use rustc_middle::ty::{self, Ty, TyCtxt, TypeVisitableExt};

use crate::api::{Entry, Tables, Target, UserFunctions};

/// How deep `touches_cuda` follows calls of the crate's own functions.
const MAX_CALL_CHAIN: usize = 64;

/// Per-crate caches over the API tables.
pub struct Resolver<'tcx> {
    pub tcx: TyCtxt<'tcx>,
    pub tables: &'static Tables,
    /// `CUDA_LINT_UNKNOWN_APIS=1`: print calls into CUDA crates that no table lists (to find
    /// what a table misses on real code).
    pub report_unknown: bool,
    /// `CUDA_LINT_TIMINGS=1`: print each analysed body's size and analysis time (for the
    /// speed benchmark, `lint/benches/speed`).
    pub report_timings: bool,
    /// `CUDA_LINT_TEST_PANIC=name`: the analysis of bodies whose path ends with `name` panics
    /// (for the test of `crate::contain`).
    pub panic_for_test: Option<String>,
    /// The family whose advice diagnostics give about work a user's summarised wrapper does.
    user_family: &'static crate::api::ApiFamily,
    /// The user's `cuda-lint.toml` function table.
    user_functions: &'static UserFunctions,
    /// What the lints are told (`cuda-lint.toml`'s `[perf]`).
    pub options: &'static cuda_lint_machine::Options,
    keys: RefCell<FxHashMap<DefId, Option<Entry>>>,
    roles: RefCell<FxHashMap<DefId, Option<Target>>>,
    cuda_crates: RefCell<FxHashMap<CrateNum, bool>>,
    touches: RefCell<FxHashMap<LocalDefId, bool>>,
    mentions: RefCell<FxHashMap<Ty<'tcx>, bool>>,
    visiting: RefCell<FxHashSet<LocalDefId>>,
    /// How many times `touches_cuda` answered before knowing (recursion, a cut chain): an
    /// answer reached meanwhile is not final.
    cut: std::cell::Cell<u32>,
    /// For methods of the crate's traits: whether an implementation uses CUDA.
    impl_touches: RefCell<FxHashMap<DefId, bool>>,
    /// The crate's functions some body within a module calls (or names), by module, made when
    /// first asked (see [`Resolver::call_scope`]).
    called: RefCell<FxHashMap<LocalDefId, Rc<FxHashSet<DefId>>>>,
    /// The bodies within a module that build each of the crate's own types (`Readout { host,
    /// .. }`), by module, made when first asked.
    builders: RefCell<FxHashMap<LocalDefId, Rc<Builders>>>,
    /// What memory each raw-pointer field of the crate's types holds wherever the crate
    /// builds the type (see [`Resolver::field_memory`]).
    field_memory: RefCell<FxHashMap<DefId, FieldsMemory>>,
    /// The types whose builders are being run (a summary needing itself gets none).
    summarizing: RefCell<Vec<DefId>>,
    /// Whether each `static` is zero and never written (see [`Resolver::static_stays_zero`]).
    zero_statics: RefCell<FxHashMap<DefId, bool>>,
}

/// The memory a raw-pointer field holds wherever its type is built: one kind (and allocator,
/// when every store agrees).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FieldMemory {
    pub kind: cuda_lint_machine::MemKind,
    pub allocator: Option<cuda_lint_machine::Allocator>,
    pub write_combined: bool,
}

/// The bodies that build each of the crate's types.
type Builders = FxHashMap<DefId, Vec<LocalDefId>>;

/// What each raw-pointer field of one type holds, by (variant, field).
type FieldsMemory = FxHashMap<(u32, u32), FieldMemory>;

/// At most this many bodies that build a type are run for its fields' summary.
const MAX_BUILDERS: usize = 8;
/// Summaries needing summaries, at most this deep.
const MAX_SUMMARY_DEPTH: usize = 2;

impl<'tcx> Resolver<'tcx> {
    pub fn new(tcx: TyCtxt<'tcx>, user_config: &'static crate::api::user::UserConfig) -> Self {
        Resolver {
            tcx,
            user_functions: &user_config.functions,
            options: &user_config.options,
            tables: Tables::get(),
            user_family: &crate::api::runtime::FAMILY,
            report_unknown: std::env::var_os("CUDA_LINT_UNKNOWN_APIS").is_some_and(|v| v == "1"),
            report_timings: std::env::var_os("CUDA_LINT_TIMINGS").is_some_and(|v| v == "1"),
            panic_for_test: std::env::var("CUDA_LINT_TEST_PANIC").ok().filter(|v| !v.is_empty()),
            keys: RefCell::default(),
            roles: RefCell::default(),
            cuda_crates: RefCell::default(),
            touches: RefCell::default(),
            mentions: RefCell::default(),
            visiting: RefCell::default(),
            cut: std::cell::Cell::new(0),
            impl_touches: RefCell::default(),
            called: RefCell::default(),
            builders: RefCell::default(),
            field_memory: RefCell::default(),
            summarizing: RefCell::default(),
            zero_statics: RefCell::default(),
        }
    }

    /// The table entry of a function, by its own path or, for a trait method's implementation,
    /// by the trait method's path.
    pub fn effects(&self, def_id: DefId) -> Option<Entry> {
        if let Some(&cached) = self.keys.borrow().get(&def_id) {
            return cached;
        }
        let tcx = self.tcx;
        let key = def_key(tcx, def_id);
        // The user's cuda-lint.toml first: it describes their wrappers, and may correct a table.
        let mut found = self.user_functions.get(&key).map(|effects| Entry {
            effects: effects.as_slice(),
            family: self.user_family,
        });
        if found.is_none() {
            found = self.tables.function(&key);
        }
        if found.is_none()
            && tcx.impl_of_assoc(def_id).is_some()
            && let Some(trait_item) = tcx.associated_item(def_id).trait_item_def_id()
        {
            found = self.tables.function(&def_key(tcx, trait_item));
        }
        if found.is_none() {
            found = self.c_symbol(def_id, &key);
        }
        if found.is_none() {
            found = self.summary(def_id);
        }
        self.keys.borrow_mut().insert(def_id, found);
        found
    }

    /// The effects a user's `#[cuda_lint_summary::effect(..)]` attributes give a function (in
    /// this crate or a dependency: tool attributes are kept in crate metadata).
    fn summary(&self, def_id: DefId) -> Option<Entry> {
        let tcx = self.tcx;
        if !matches!(tcx.def_kind(def_id), DefKind::Fn | DefKind::AssocFn) {
            return None;
        }
        #[expect(deprecated, reason = "tool attributes are not parsed attributes")]
        let attrs = tcx.get_all_attrs(def_id);
        let mut effects = Vec::new();
        for attr in attrs {
            let Attribute::Unparsed(item) = attr else { continue };
            let path: Vec<&str> = item.path.segments.iter().map(|s| s.as_str()).collect();
            if path != ["cuda_lint_summary", "effect"] {
                continue;
            }
            let AttrArgs::Delimited(args) = &item.args else {
                continue;
            };
            let text = rustc_ast_pretty::pprust::tts_to_string(&args.tokens);
            match cuda_lint_protocol::summary::parse(&text) {
                Ok(summary) => effects.push(crate::api::user::effect_of(&summary)),
                // Written by the macros of another version: better no summary than a wrong one.
                Err(why) => {
                    tcx.dcx().span_warn(
                        item.span,
                        format!("cuda-lint cannot read this effect summary ({why}); it is ignored"),
                    );
                    return None;
                }
            }
        }
        if effects.is_empty() {
            return None;
        }
        Some(Entry {
            effects: Box::leak(effects.into_boxed_slice()),
            family: self.user_family,
        })
    }

    /// A C function of the API: declared in an `extern` block (under its link name), or a
    /// binding defined in a module of bindings named after their symbols.
    fn c_symbol(&self, def_id: DefId, key: &str) -> Option<Entry> {
        let tcx = self.tcx;
        if tcx.is_foreign_item(def_id) {
            let name = tcx
                .codegen_fn_attrs(def_id)
                .symbol_name
                .unwrap_or_else(|| tcx.item_name(def_id));
            return self.tables.symbol(name.as_str());
        }
        let (module, name) = key.rsplit_once("::")?;
        if self.tables.is_symbol_module(module) {
            self.tables.symbol(name)
        } else {
            None
        }
    }

    /// What values of `ty` refer to, if the tables list its type.
    pub fn role(&self, ty: Ty<'tcx>) -> Option<Target> {
        let ty::Adt(def, args) = ty.kind() else {
            return None;
        };
        let did = def.did();
        // A shared owner (`Arc<CudaStream>`) refers to what it shares: it is passed where the
        // object is (`self: &Arc<Self>`). Dropping one frees nothing by itself.
        if let Some(name) = self.tcx.get_diagnostic_name(did)
            && matches!(name.as_str(), "Arc" | "Rc")
            && let Some(inner) = args.types().next()
        {
            return self.role(inner);
        }
        if let Some(&cached) = self.roles.borrow().get(&did) {
            return cached;
        }
        let role = self.tables.type_role(&def_key(self.tcx, did)).map(|r| r.target);
        self.roles.borrow_mut().insert(did, role);
        role
    }

    /// What dropping a value of `ty` does to its memory.
    pub fn drop_kind(&self, ty: Ty<'tcx>) -> Option<crate::api::FreeKind> {
        let ty::Adt(def, _) = ty.kind() else {
            return None;
        };
        self.tables
            .type_role(&def_key(self.tcx, def.did()))
            .and_then(|r| r.on_drop)
    }

    /// Whether `ty` is a type of the crate whose own `impl Drop` uses the CUDA API (a wrapper
    /// that frees its buffer, on a stream or not): dropping one runs it.
    pub fn has_user_drop(&self, ty: Ty<'tcx>) -> bool {
        let ty::Adt(def, _) = ty.kind() else {
            return false;
        };
        def.did().is_local()
            && self
                .tcx
                .adt_destructor(def.did())
                .and_then(|dtor| dtor.did.as_local())
                .is_some_and(|dtor| self.touches_cuda(dtor))
    }

    /// Whether `def_id` is a method of one of the crate's structs whose one builder uses the
    /// CUDA API: its `self` holds CUDA memory or objects (see `Interp::builder_context`), even
    /// where the method's own code names none (`libc::free(self.ptr)` in a `Drop`).
    pub fn self_built_with_cuda(&self, def_id: LocalDefId) -> bool {
        let tcx = self.tcx;
        if !tcx.def_kind(def_id).is_fn_like()
            || !tcx
                .opt_associated_item(def_id.to_def_id())
                .is_some_and(|a| a.is_method())
            || !tcx.is_mir_available(def_id.to_def_id())
        {
            return false;
        }
        let Some(self_ty) = tcx
            .fn_sig(def_id)
            .instantiate_identity()
            .skip_binder()
            .inputs()
            .first()
            .copied()
        else {
            return false;
        };
        let self_ty = match self_ty.kind() {
            ty::Ref(_, t, _) => *t,
            _ => self_ty,
        };
        let ty::Adt(adt, _) = self_ty.kind() else {
            return false;
        };
        if !adt.did().is_local() || !adt.is_struct() {
            return false;
        }
        // A struct whose fields are all public may be built anywhere in the crate: its
        // builders are looked for only where the method does something unsafe (a raw pointer,
        // a C call), the only way code that names no CUDA type can misuse CUDA memory.
        if self.build_scope(adt.did()) == CRATE_DEF_ID && !has_unsafe_code(tcx, def_id) {
            return false;
        }
        self.builders_of(adt.did()).len() == 1
    }

    /// The module within which every body that can build the crate's type `adt` lies: Rust's
    /// privacy lets only the module a private field is private to (and the modules within it)
    /// build the type. The crate root for a type whose fields are all public.
    fn build_scope(&self, adt: DefId) -> LocalDefId {
        let tcx = self.tcx;
        let def = tcx.adt_def(adt);
        let visibilities = std::iter::once(tcx.visibility(adt)).chain(def.all_fields().map(|f| f.vis));
        deepest_module(tcx, visibilities)
    }

    /// The module within which every body that can call or name the crate's function `def_id`
    /// lies (its visibility), the crate root for a public one.
    fn call_scope(&self, def_id: DefId) -> LocalDefId {
        let tcx = self.tcx;
        if !matches!(tcx.def_kind(def_id), DefKind::Fn | DefKind::AssocFn) || tcx.trait_of_assoc(def_id).is_some() {
            return CRATE_DEF_ID;
        }
        let mut visibilities = vec![tcx.visibility(def_id)];
        // A method is reached through its type too; one implementing a trait's, through the
        // trait, anywhere.
        if let Some(imp) = tcx.impl_of_assoc(def_id) {
            match tcx.type_of(imp).instantiate_identity().skip_normalization().kind() {
                ty::Adt(adt, _) if tcx.associated_item(def_id).trait_item_def_id().is_none() => {
                    visibilities.push(tcx.visibility(adt.did()));
                }
                _ => return CRATE_DEF_ID,
            }
        }
        deepest_module(tcx, visibilities.into_iter())
    }

    /// Whether the crate's `static` `def_id` holds zeros (a null pointer, a `CUdeviceptr` of 0)
    /// its whole life: its initializer is all zero bytes, it is not public (so only the bodies
    /// within its module can name it), and every body there names it only to read it: never
    /// assigned, never borrowed (`&mut S`, `&raw mut S`, `&S`), never a method's receiver or
    /// projected (`S.field = ..`, `S[i]`).
    pub fn static_stays_zero(&self, def_id: DefId) -> bool {
        if let Some(&known) = self.zero_statics.borrow().get(&def_id) {
            return known;
        }
        let answer = self.compute_static_stays_zero(def_id);
        self.zero_statics.borrow_mut().insert(def_id, answer);
        answer
    }

    fn compute_static_stays_zero(&self, def_id: DefId) -> bool {
        use rustc_hir::intravisit::{self, Visitor};
        let tcx = self.tcx;
        if def_id.as_local().is_none() || !matches!(tcx.def_kind(def_id), DefKind::Static { .. }) {
            return false;
        }
        let Ok(alloc) = tcx.eval_static_initializer(def_id) else {
            return false;
        };
        let alloc = alloc.inner();
        let zero = alloc.provenance().ptrs().is_empty()
            && alloc
                .inspect_with_uninit_and_ptr_outside_interpreter(0..alloc.len())
                .iter()
                .all(|&b| b == 0);
        if !zero {
            return false;
        }
        let ty::Visibility::Restricted(module) = tcx.visibility(def_id) else {
            return false;
        };
        let Some(module) = module.as_local() else {
            return false;
        };
        struct Uses<'tcx> {
            tcx: TyCtxt<'tcx>,
            target: DefId,
            only_read: bool,
        }
        impl<'tcx> Visitor<'tcx> for Uses<'tcx> {
            fn visit_expr(&mut self, e: &'tcx rustc_hir::Expr<'tcx>) {
                if let rustc_hir::ExprKind::Path(rustc_hir::QPath::Resolved(_, path)) = e.kind
                    && path.res.opt_def_id() == Some(self.target)
                {
                    let read = match self.tcx.parent_hir_node(e.hir_id) {
                        rustc_hir::Node::Expr(p) => match p.kind {
                            rustc_hir::ExprKind::Assign(lhs, ..) | rustc_hir::ExprKind::AssignOp(_, lhs, _) => {
                                lhs.hir_id != e.hir_id
                            }
                            rustc_hir::ExprKind::AddrOf(..)
                            | rustc_hir::ExprKind::Field(..)
                            | rustc_hir::ExprKind::Index(..)
                            | rustc_hir::ExprKind::MethodCall(..) => false,
                            _ => true,
                        },
                        _ => true,
                    };
                    self.only_read &= read;
                }
                intravisit::walk_expr(self, e);
            }
        }
        let mut uses = Uses {
            tcx,
            target: def_id,
            only_read: true,
        };
        for owner in self.bodies_within(module) {
            let body = tcx.hir_body_owned_by(owner);
            uses.visit_body(body);
            if !uses.only_read {
                return false;
            }
        }
        true
    }

    /// The bodies of the crate within `module` (and the modules within it).
    fn bodies_within(&self, module: LocalDefId) -> Vec<LocalDefId> {
        let tcx = self.tcx;
        // The list of the crate's bodies and their paths do not change when a body is edited.
        tcx.hir_body_owners()
            .filter(|b| module == CRATE_DEF_ID || tcx.is_descendant_of(b.to_def_id(), module.to_def_id()))
            .collect()
    }

    pub fn is_cuda_crate(&self, krate: CrateNum) -> bool {
        if let Some(&cached) = self.cuda_crates.borrow().get(&krate) {
            return cached;
        }
        let is = self.tables.is_cuda_crate(self.tcx.crate_name(krate).as_str());
        self.cuda_crates.borrow_mut().insert(krate, is);
        is
    }

    fn mentions_cuda(&self, ty: Ty<'tcx>) -> bool {
        // Types are interned and repeat across bodies: each is walked once.
        if let Some(&known) = self.mentions.borrow().get(&ty) {
            return known;
        }
        let cut_before = self.cut.get();
        let mentions = self.walk_mentions_cuda(ty);
        // What a local function's type says depends on the bodies it reaches: where one of them
        // was being visited (recursion answers `false` for now) or the chain was cut, the
        // answer is not final and is not remembered.
        if self.cut.get() == cut_before {
            self.mentions.borrow_mut().insert(ty, mentions);
        }
        mentions
    }

    /// A function a CUDA family's table, a summary or the configuration describes (not the
    /// standard library's).
    fn is_cuda_api(&self, def_id: DefId) -> bool {
        self.effects(def_id).is_some_and(|e| e.family.is_cuda())
    }

    fn walk_mentions_cuda(&self, ty: Ty<'tcx>) -> bool {
        // What the API tables describe: a type with a role (a buffer, a stream...), a function
        // with effects, or a function of this crate that uses them. Types of a CUDA crate the
        // tables do not describe (`CUresult`, `CUstream_st`) do not count: a body that only moves
        // them (a binding crate's own wrappers) has nothing to analyse.
        ty.walk().any(|arg| {
            let Some(t) = arg.as_type() else { return false };
            match t.kind() {
                // (Pageable owners, `Vec` and friends, are the standard library's.)
                ty::Adt(..) => {
                    self.role(t)
                        .is_some_and(|r| r != Target::Mem(crate::api::MemKind::Pageable))
                        || self.has_user_drop(t)
                }
                ty::FnDef(def_id, _) => {
                    self.is_cuda_api(*def_id) || def_id.as_local().is_some_and(|local| self.touches_cuda(local))
                }
                ty::Closure(def_id, _) => def_id.as_local().is_some_and(|local| self.touches_cuda(local)),
                _ => false,
            }
        })
    }

    /// Whether a body uses a type or function of a CUDA crate, directly or through a function
    /// of this crate that does. Bodies that do not cost nothing more than this scan of the
    /// types rustc already inferred.
    pub fn touches_cuda(&self, def_id: LocalDefId) -> bool {
        if let Some(&cached) = self.touches.borrow().get(&def_id) {
            return cached;
        }
        // A chain of calls deeper than this is cut (not cached: the answer is partial), so no
        // crate's call graph can exhaust the stack.
        if self.visiting.borrow().len() >= MAX_CALL_CHAIN {
            self.cut.set(self.cut.get() + 1);
            return false;
        }
        if !self.visiting.borrow_mut().insert(def_id) {
            // Recursion: the answer comes from the outer call.
            self.cut.set(self.cut.get() + 1);
            return false;
        }
        let tcx = self.tcx;
        // Asked of this definition alone: a crate-wide list would make every module's lints
        // depend on every item of the crate (all run again after any edit).
        let has_body = tcx.hir_maybe_body_owned_by(def_id).is_some();
        let touches = has_body && {
            let results = tcx.typeck(def_id);
            // Order does not matter for `any`: no sorting (this runs on every body of the crate).
            results.node_types().items().any(|(_, ty)| self.mentions_cuda(*ty))
                || results.type_dependent_defs().items().any(|(_, res)| {
                    res.is_ok_and(|(_, did)| {
                        self.is_cuda_api(did)
                            || did.as_local().is_some_and(|local| self.touches_cuda(local))
                            || self.some_impl_touches_cuda(did)
                    })
                })
        };
        self.visiting.borrow_mut().remove(&def_id);
        self.touches.borrow_mut().insert(def_id, touches);
        touches
    }
}

impl<'tcx> Resolver<'tcx> {
    /// For a method of one of the crate's traits, whether an implementation of it in the crate
    /// uses CUDA (a call through `dyn Trait` runs them: `Interp::dyn_dispatch`).
    fn some_impl_touches_cuda(&self, method: DefId) -> bool {
        if let Some(&known) = self.impl_touches.borrow().get(&method) {
            return known;
        }
        let tcx = self.tcx;
        let cut_before = self.cut.get();
        let touches = tcx
            .trait_of_assoc(method)
            .filter(|t| t.is_local())
            .is_some_and(|trait_id| self.impls_touch_cuda(trait_id, method));
        if self.cut.get() == cut_before {
            self.impl_touches.borrow_mut().insert(method, touches);
        }
        touches
    }

    fn impls_touch_cuda(&self, trait_id: DefId, method: DefId) -> bool {
        let tcx = self.tcx;
        tcx.all_impls(trait_id).any(|imp| {
            imp.as_local().is_some()
                && tcx
                    .impl_item_implementor_ids(imp)
                    .get(&method)
                    .and_then(|m| m.as_local())
                    .is_some_and(|m| self.touches_cuda(m))
        })
    }

    /// What memory field `field` of variant `variant` of the crate's type `adt` holds, when it
    /// is a raw pointer every body that builds the type stores memory of one kind into: a
    /// method that reads `self.host` sees what the constructor allocated. Computed once per
    /// type, by running its builders (at most [`MAX_BUILDERS`]); `None` when a store is of
    /// unknown or differing memory.
    pub fn field_memory(&self, adt: DefId, variant: u32, field: u32) -> Option<FieldMemory> {
        if let Some(fields) = self.field_memory.borrow().get(&adt) {
            return fields.get(&(variant, field)).copied();
        }
        if self.summarizing.borrow().len() >= MAX_SUMMARY_DEPTH || self.summarizing.borrow().contains(&adt) {
            return None;
        }
        let builders: Vec<LocalDefId> = self.builders_of(adt).into_iter().take(MAX_BUILDERS).collect();
        self.summarizing.borrow_mut().push(adt);
        let mut joined: FxHashMap<(u32, u32), Option<FieldMemory>> = FxHashMap::default();
        for body in builders {
            for (key, store) in super::interp::Interp::field_stores(self, body, adt) {
                let slot = joined.entry(key).or_insert(store);
                if *slot != store {
                    *slot = None;
                }
            }
        }
        self.summarizing.borrow_mut().pop();
        let fields: FieldsMemory = joined.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))).collect();
        let found = fields.get(&(variant, field)).copied();
        self.field_memory.borrow_mut().insert(adt, fields);
        found
    }

    /// The bodies of the crate that build its type `adt` (an aggregate of the type), looked for
    /// only where the type can be built (see [`Resolver::build_scope`]).
    pub(crate) fn builders_of(&self, adt: DefId) -> Vec<LocalDefId> {
        if !adt.is_local() {
            return Vec::new();
        }
        let scope = self.build_scope(adt);
        let known = self.builders.borrow().get(&scope).cloned();
        let map = match known {
            Some(map) => map,
            None => {
                let map = Rc::new(self.builders_within(scope));
                self.builders.borrow_mut().insert(scope, map.clone());
                map
            }
        };
        map.get(&adt).cloned().unwrap_or_default()
    }

    /// The bodies within `module` that build each of the crate's types.
    fn builders_within(&self, module: LocalDefId) -> Builders {
        let tcx = self.tcx;
        let mut builders = Builders::default();
        for owner in self.bodies_within(module) {
            let def_id = owner.to_def_id();
            // Only bodies that use CUDA can store CUDA memory they made (a constructor given
            // a pointer stores what its caller had): the others' MIR is not built for this.
            if !matches!(tcx.def_kind(def_id), DefKind::Fn | DefKind::AssocFn | DefKind::Closure)
                || !self.touches_cuda(owner)
                || !tcx.is_mir_available(def_id)
                || has_unsatisfiable_preds(tcx, def_id)
            {
                continue;
            }
            for block in tcx.optimized_mir(def_id).basic_blocks.iter() {
                for stmt in &block.statements {
                    if let rustc_middle::mir::StatementKind::Assign(box (
                        _,
                        rustc_middle::mir::Rvalue::Aggregate(kind, _),
                    )) = &stmt.kind
                        && let rustc_middle::mir::AggregateKind::Adt(adt, ..) = **kind
                        && adt.is_local()
                    {
                        let list = builders.entry(adt).or_default();
                        if !list.contains(&owner) {
                            list.push(owner);
                        }
                    }
                }
            }
        }
        builders
    }

    /// Whether some body of the crate calls (or names) the local function `def_id`: then what
    /// it gets as parameters is seen where it is called. Only bodies that can name it (its
    /// visibility, see [`Resolver::call_scope`]) are looked at.
    pub fn has_local_caller(&self, def_id: DefId) -> bool {
        let scope = self.call_scope(def_id);
        let known = self.called.borrow().get(&scope).cloned();
        let called = match known {
            Some(called) => called,
            None => {
                let called = Rc::new(self.called_within(scope));
                self.called.borrow_mut().insert(scope, called.clone());
                called
            }
        };
        called.contains(&def_id)
    }

    /// The crate's functions that bodies within `module` call or name.
    fn called_within(&self, module: LocalDefId) -> FxHashSet<DefId> {
        let tcx = self.tcx;
        let mut called = FxHashSet::default();
        for owner in self.bodies_within(module) {
            // A caller of a function that uses CUDA uses CUDA itself (`touches_cuda` follows
            // calls): only those bodies need their calls listed.
            if !self.touches_cuda(owner) {
                continue;
            }
            let results = tcx.typeck(owner);
            // Into a set: the order does not matter (no sorting, on every body of the crate).
            let called = RefCell::new(&mut called);
            let _ = results.node_types().items().any(|(_, ty)| {
                if let ty::FnDef(callee, _) = ty.kind()
                    && callee.is_local()
                    && *callee != owner.to_def_id()
                {
                    called.borrow_mut().insert(*callee);
                }
                false
            });
            let _ = results.type_dependent_defs().items().any(|(_, res)| {
                if let Ok((_, callee)) = res
                    && callee.is_local()
                {
                    called.borrow_mut().insert(*callee);
                }
                false
            });
        }
        called
    }
}

/// Of visibilities of one item and its parts (all of them the crate's own modules or public),
/// the deepest module: where all of them are visible. The crate root when all are public.
fn deepest_module(tcx: TyCtxt<'_>, visibilities: impl Iterator<Item = ty::Visibility<DefId>>) -> LocalDefId {
    let mut deepest = CRATE_DEF_ID;
    for vis in visibilities {
        if let ty::Visibility::Restricted(m) = vis
            && let Some(m) = m.as_local()
            && tcx.is_descendant_of(m.to_def_id(), deepest.to_def_id())
        {
            deepest = m;
        }
    }
    deepest
}

/// Whether a function is `unsafe` or its body (closures in it included) has an `unsafe` block.
fn has_unsafe_code(tcx: TyCtxt<'_>, def_id: LocalDefId) -> bool {
    use rustc_hir::intravisit::{self, Visitor};
    struct Finder<'tcx> {
        tcx: TyCtxt<'tcx>,
        found: bool,
    }
    impl<'tcx> Visitor<'tcx> for Finder<'tcx> {
        type NestedFilter = rustc_middle::hir::nested_filter::OnlyBodies;
        fn maybe_tcx(&mut self) -> TyCtxt<'tcx> {
            self.tcx
        }
        fn visit_block(&mut self, block: &'tcx rustc_hir::Block<'tcx>) {
            if matches!(
                block.rules,
                rustc_hir::BlockCheckMode::UnsafeBlock(rustc_hir::UnsafeSource::UserProvided)
            ) {
                self.found = true;
            }
            intravisit::walk_block(self, block);
        }
    }
    if tcx.fn_sig(def_id).skip_binder().safety().is_unsafe() {
        return true;
    }
    let Some(body) = tcx.hir_maybe_body_owned_by(def_id) else {
        return false;
    };
    let mut finder = Finder { tcx, found: false };
    finder.visit_body(body);
    finder.found
}

/// The path of a definition as the API tables spell it (see `crate::api`).
pub fn def_key(tcx: TyCtxt<'_>, def_id: DefId) -> String {
    if let Some(impl_id) = tcx.impl_of_assoc(def_id) {
        let self_ty = tcx.type_of(impl_id).instantiate_identity().skip_normalization();
        return format!("{}::{}", type_key(tcx, self_ty), tcx.item_name(def_id));
    }
    if let Some(trait_id) = tcx.trait_of_assoc(def_id) {
        return format!("{}::{}", def_path(tcx, trait_id), tcx.item_name(def_id));
    }
    def_path(tcx, def_id)
}

fn def_path(tcx: TyCtxt<'_>, def_id: DefId) -> String {
    let mut out = tcx.crate_name(def_id.krate).to_string();
    for segment in tcx.def_path(def_id).data {
        // `extern "C" { .. }` blocks are not a path segment.
        if segment.data == DefPathData::ForeignMod {
            continue;
        }
        out.push_str("::");
        match segment.data {
            DefPathData::Impl => out.push_str("{impl}"),
            DefPathData::Closure => out.push_str("{closure}"),
            data => match data.get_opt_name() {
                Some(name) => out.push_str(name.as_str()),
                None => out.push_str("{?}"),
            },
        }
    }
    out
}

fn type_key<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> String {
    match ty.kind() {
        ty::Adt(def, _) => def_path(tcx, def.did()),
        ty::Slice(_) => "[]".into(),
        ty::Array(..) => "[;]".into(),
        ty::Str => "str".into(),
        ty::RawPtr(_, mutbl) => if mutbl.is_mut() { "*mut" } else { "*const" }.into(),
        ty::Ref(_, inner, _) => type_key(tcx, *inner),
        ty::Foreign(def_id) => def_path(tcx, *def_id),
        _ => ty.to_string(),
    }
}

/// Whether a function's where-clauses cannot hold (its MIR must not be built then).
pub fn has_unsatisfiable_preds(tcx: TyCtxt<'_>, did: DefId) -> bool {
    use rustc_trait_selection::traits;
    let predicates = tcx
        .predicates_of(did)
        .predicates
        .iter()
        .filter_map(|(p, _)| p.is_global().then_some(*p));
    traits::impossible_predicates(tcx, traits::elaborate(tcx, predicates).collect::<Vec<_>>())
}

/// Whether a body is test code: a `#[test]` function or inside a `#[cfg(test)]` module, or
/// any body of an integration test, bench or example target (a crate whose root is, as cargo
/// lays them out, `tests/x.rs`, `benches/x.rs`, `examples/x.rs` or `<that folder>/x/main.rs`).
pub fn is_test_code(tcx: TyCtxt<'_>, def_id: LocalDefId) -> bool {
    clippy_utils::is_in_test(tcx, tcx.local_def_id_to_hir_id(def_id)) || target_is_test_like(tcx)
}

fn target_is_test_like(tcx: TyCtxt<'_>) -> bool {
    const FOLDERS: [&str; 3] = ["tests", "benches", "examples"];
    let Some(root) = tcx.sess.local_crate_source_file().and_then(|f| f.into_local_path()) else {
        return false;
    };
    let folder = |p: Option<&std::path::Path>| {
        p.and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .is_some_and(|n| FOLDERS.contains(&n))
    };
    let parent = root.parent();
    folder(parent) || (root.file_name().is_some_and(|n| n == "main.rs") && folder(parent.and_then(|p| p.parent())))
}
