//! A check of the API tables themselves: every path a table lists must still name an item of
//! the crate version it models (the idea of clippy's internal `invalid_paths` lint). A table path
//! that no longer resolves (cudarc moved a module, renamed a method) matches nothing, and its
//! entry silently stops doing anything; this check makes such a path an error.
//!
//! It runs only when the environment variable `CUDA_LINT_CHECK_TABLE_PATHS` is set (to anything
//! but `0` or nothing: `1`, say), once per crate the driver analyses (not for dependencies that
//! `cargo cuda-lint` only compiles). For every family of [`crate::api::FAMILIES`] whose crates
//! (`ApiFamily::crates`) this compilation loads, each path of `functions`, `types` and
//! `symbol_modules` whose first segment is such a crate is resolved, and each that does not
//! resolve is an error:
//!
//! ```text
//! error: cuda-lint table path does not resolve: `cudarc::driver::safe::core::Gone::new` (family `cudarc`)
//! ```
//!
//! Paths are resolved as [`crate::mir::def_key`] spells them, that is along the *definition*
//! path (modules may be private: `cudarc::driver::safe::core`), not through re-exports: from the
//! crate root through `module_children`, then a method through the type's inherent impls (or,
//! failing those, the trait impls of the type's crate: `def_key` spells a trait impl's method
//! the same way), or a trait's associated items. What is found must give back the same string
//! through `def_key`, and be of the kind its table expects (a function, a type, a module).
//! Methods of primitive types (`[]::`, `[;]::`, `*const::`, `*mut::`, `str::`) are not checked.
//! A crate a family names but this compilation does not load is not checked either: compile a
//! crate that loads them (`extern crate cudarc;`), as the UI test `ui/table_paths` does.
//!
//! `CUDA_LINT_CHECK_TABLE_PATHS=extra=PATH,PATH...` also checks the given paths (family
//! `extra`, of any kind; a path whose crate is not loaded does not resolve), and
//! `CUDA_LINT_CHECK_TABLE_PATHS=only=PATH,PATH...` checks only those, not the tables: the test
//! that the check fires (`ui/table_paths/fires.rs`) does not depend on the tables' state.

use rustc_data_structures::fx::FxHashMap;
use rustc_hir::def::DefKind;
use rustc_hir::def_id::{CrateNum, DefId, LOCAL_CRATE};
use rustc_lint::{LateContext, LateLintPass, LintPass, LintVec};
use rustc_middle::ty::{self, TyCtxt};

/// The environment variable that turns the check on (and may add paths: see the module doc).
pub const ENV_VAR: &str = "CUDA_LINT_CHECK_TABLE_PATHS";

/// Method paths of primitive types, which no crate root leads to.
const PRIMITIVE_PREFIXES: &[&str] = &["[]::", "[;]::", "*const::", "*mut::", "str::", "bool::"];

/// What a table expects a path to name.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Expect {
    Function,
    Type,
    Module,
    Anything,
}

impl Expect {
    fn accepts(self, kind: DefKind) -> bool {
        match self {
            Expect::Function => matches!(kind, DefKind::Fn | DefKind::AssocFn),
            Expect::Type => matches!(
                kind,
                DefKind::Struct | DefKind::Enum | DefKind::Union | DefKind::ForeignTy
            ),
            Expect::Module => matches!(kind, DefKind::Mod),
            Expect::Anything => true,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Expect::Function => "a function",
            Expect::Type => "a type",
            Expect::Module => "a module",
            Expect::Anything => "an item",
        }
    }
}

/// Whether the check is asked for.
pub fn enabled() -> bool {
    std::env::var_os(ENV_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The pass: its work is all in `check_crate`.
pub struct TablePaths {
    /// Paths given with `extra=` or `only=`.
    extra: Vec<String>,
    /// Whether the tables' paths are checked (not with `only=`).
    tables: bool,
}

impl TablePaths {
    /// The pass, with the extra paths the environment variable gives.
    pub fn from_env() -> Self {
        let value = std::env::var(ENV_VAR).unwrap_or_default();
        let (list, tables) = if let Some(list) = value.strip_prefix("extra=") {
            (list, true)
        } else if let Some(list) = value.strip_prefix("only=") {
            (list, false)
        } else {
            ("", true)
        };
        let extra = list
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect();
        TablePaths { extra, tables }
    }
}

impl LintPass for TablePaths {
    fn name(&self) -> &'static str {
        "CudaLintTablePaths"
    }

    fn get_lints(&self) -> LintVec {
        // No lint: the check reports errors, and a pass without lints always runs.
        Vec::new()
    }
}

impl<'tcx> LateLintPass<'tcx> for TablePaths {
    fn check_crate(&mut self, cx: &LateContext<'tcx>) {
        let tcx = cx.tcx;
        let mut walker = Walker::new(tcx);
        let families = if self.tables { crate::api::FAMILIES } else { &[] };
        for family in families {
            let tables = [
                (
                    family.functions.iter().map(|f| f.path).collect::<Vec<_>>(),
                    Expect::Function,
                ),
                (family.types.iter().map(|t| t.path).collect(), Expect::Type),
                (family.symbol_modules.to_vec(), Expect::Module),
            ];
            for (paths, expect) in tables {
                for path in paths {
                    let first = path.split("::").next().unwrap_or_default();
                    if is_primitive(path) || !family.crates.contains(&first) || !walker.is_loaded(first) {
                        continue;
                    }
                    walker.check(path, family.name, expect);
                }
            }
        }
        for path in &self.extra {
            if !is_primitive(path) {
                walker.check(path, "extra", Expect::Anything);
            }
        }
    }
}

fn is_primitive(path: &str) -> bool {
    PRIMITIVE_PREFIXES.iter().any(|p| path.starts_with(p)) || matches!(path, "[]" | "[;]" | "*const" | "*mut" | "str")
}

/// Resolves table paths in the crates this compilation loads.
struct Walker<'tcx> {
    tcx: TyCtxt<'tcx>,
    /// Loaded crates by name (a name may be loaded twice, in two versions).
    crates: FxHashMap<String, Vec<CrateNum>>,
    /// Per crate, its trait impls by the type they are for (built when first needed).
    trait_impls: FxHashMap<CrateNum, FxHashMap<DefId, Vec<DefId>>>,
}

/// Why a path does not resolve.
enum Failure {
    /// No item at that path.
    NotFound,
    /// Items at that path, none of the kind the table expects.
    WrongKind(String),
    /// The walk itself failed (a panic of cuda-lint's or in a query it made).
    Broken(String),
}

impl<'tcx> Walker<'tcx> {
    fn new(tcx: TyCtxt<'tcx>) -> Self {
        let mut crates: FxHashMap<String, Vec<CrateNum>> = FxHashMap::default();
        for &cnum in tcx.crates(()).iter().chain(std::iter::once(&LOCAL_CRATE)) {
            crates.entry(tcx.crate_name(cnum).to_string()).or_default().push(cnum);
        }
        Walker {
            tcx,
            crates,
            trait_impls: FxHashMap::default(),
        }
    }

    fn is_loaded(&self, name: &str) -> bool {
        self.crates.contains_key(name)
    }

    /// Checks one path, reporting an error if it does not resolve.
    fn check(&mut self, path: &str, family: &str, expect: Expect) {
        let outcome = match crate::contain::contained(|| self.resolve(path, expect)) {
            Ok(outcome) => outcome,
            Err(why) => Err(Failure::Broken(why)),
        };
        let why = match outcome {
            Ok(()) => return,
            Err(Failure::NotFound) => String::new(),
            Err(Failure::WrongKind(found)) => format!(": it names {found}, not {}", expect.noun()),
            Err(Failure::Broken(why)) => format!(": the walk failed ({why})"),
        };
        let _reported = self.tcx.dcx().err(format!(
            "cuda-lint table path does not resolve: `{path}` (family `{family}`){why}"
        ));
    }

    fn resolve(&mut self, path: &str, expect: Expect) -> Result<(), Failure> {
        let tcx = self.tcx;
        let mut segments = path.split("::");
        let root = segments.next().unwrap_or_default();
        let mut current: Vec<DefId> = self
            .crates
            .get(root)
            .map(|cnums| cnums.iter().map(|c| c.as_def_id()).collect())
            .unwrap_or_default();
        for segment in segments {
            let mut next = Vec::new();
            for &parent in &current {
                self.children_named(parent, segment, &mut next);
            }
            next.dedup();
            current = next;
            if current.is_empty() {
                break;
            }
        }
        // What the walk found must be what the analysis will look up under this path.
        current.retain(|&def_id| crate::mir::def_key(tcx, def_id) == path);
        if current.is_empty() {
            return Err(Failure::NotFound);
        }
        match current.iter().find(|&&def_id| expect.accepts(tcx.def_kind(def_id))) {
            Some(_) => Ok(()),
            None => Err(Failure::WrongKind(format!(
                "{} {}",
                tcx.def_descr_article(current[0]),
                tcx.def_descr(current[0])
            ))),
        }
    }

    /// The items named `name` that `parent`'s definition path leads to: items defined in a module
    /// (not re-exported there), an enum's variants, a trait's associated items, a type's methods.
    fn children_named(&mut self, parent: DefId, name: &str, out: &mut Vec<DefId>) {
        let tcx = self.tcx;
        let kind = tcx.def_kind(parent);
        // `module_children` of another crate exists only for modules, enums and traits.
        if matches!(kind, DefKind::Mod | DefKind::Enum) {
            for child in tcx.module_children(parent) {
                if child.reexport_chain.is_empty()
                    && child.ident.name.as_str() == name
                    && let Some(def_id) = child.res.opt_def_id()
                    && !out.contains(&def_id)
                {
                    out.push(def_id);
                }
            }
        }
        match kind {
            DefKind::Trait => assoc_named(tcx, parent, name, out),
            DefKind::Struct | DefKind::Enum | DefKind::Union | DefKind::ForeignTy => {
                let before = out.len();
                for &impl_id in tcx.inherent_impls(parent) {
                    assoc_named(tcx, impl_id, name, out);
                }
                if out.len() == before {
                    let impls = self.trait_impls_for(parent).to_vec();
                    for impl_id in impls {
                        assoc_named(tcx, impl_id, name, out);
                    }
                }
            }
            _ => {}
        }
    }

    /// The trait impls of `ty_def`'s crate for that type (or references to it).
    fn trait_impls_for(&mut self, ty_def: DefId) -> &[DefId] {
        let tcx = self.tcx;
        let by_type = self.trait_impls.entry(ty_def.krate).or_insert_with(|| {
            let mut by_type: FxHashMap<DefId, Vec<DefId>> = FxHashMap::default();
            for &impl_id in tcx.trait_impls_in_crate(ty_def.krate) {
                let self_ty = tcx.type_of(impl_id).instantiate_identity().skip_normalization();
                let did = match self_ty.peel_refs().kind() {
                    ty::Adt(def, _) => def.did(),
                    ty::Foreign(did) => *did,
                    _ => continue,
                };
                by_type.entry(did).or_default().push(impl_id);
            }
            by_type
        });
        by_type.get(&ty_def).map_or(&[], Vec::as_slice)
    }
}

/// The associated items named `name` of a trait or impl.
fn assoc_named(tcx: TyCtxt<'_>, container: DefId, name: &str, out: &mut Vec<DefId>) {
    for &item in tcx.associated_item_def_ids(container) {
        if tcx.opt_item_name(item).is_some_and(|n| n.as_str() == name) && !out.contains(&item) {
            out.push(item);
        }
    }
}
