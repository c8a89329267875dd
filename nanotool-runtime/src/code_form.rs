//! The code form: the runtime side of `#[command_tool]` structs, how a Rust field type
//! becomes a slot, and the support the generated code calls (hidden from the docs).
//!
//! [`SlotType`] maps a field type to a [`SlotKind`] and converts between the typed value and
//! the JSON the model sends. The `#[command_tool]` macro never looks at a type's *name*: it
//! asks this trait, so an unsupported field type fails with the trait's own message.
//!
//! | Rust type | slot kind | constrained (may stand where code goes) |
//! |---|---|---|
//! | `String` | `string` | only with `#[slot(pattern = "...")]` |
//! | `i8` … `i64`, `isize`, `u8` … `u64`, `usize` | `integer` (bounded by the type) | yes |
//! | `f32`, `f64` | `number` | yes |
//! | a `#[derive(SlotEnum)]` enum | `enum` | yes |
//! | [`WorkPath`] | `path` | no |
//! | `Option<T>` | `T`'s kind, not required | as `T` |
//!
//! [`CommandStruct`] is what the macro implements for a struct, and carries the typed API
//! (`tool()`, `run()`, `argv()`, `from_args()`, `command_spec()`); [`CodeTool`] is the
//! struct as a [`Tool`] that delegates to [`CommandTool`], the one call path every form
//! shares.
//!
//! What does *not* live here: validation of a value (see [`crate::spec::CommandSpec::render`])
//! and the policy (see [`crate::policy`]).

use crate::kernel::{Access, RunSettings};
use crate::kernel::{CommandExecKernel, ExecResult};
use crate::policy::SlotFreedom;
use crate::slot::{SlotClass, SlotError, SlotKind, SlotSpec};
use crate::spec::{Argv, CommandSpec, ExitCodes, SpecError};
use crate::tool::{CommandTool, Tool, ToolContext, ToolOutput};
use serde_json::Value;
use std::fmt;
use std::path::Path;

/// A Rust type that can be a slot of a `#[command_tool]` struct.
///
/// Implemented for `String`, the integer types, `f32`/`f64`, [`WorkPath`], `Option<T>`, and
/// every `#[derive(SlotEnum)]` enum. Implement it for a newtype of your own only if it truly
/// maps to one of the kinds; how free its values are ([`SlotType::FREEDOM`]) follows from its
/// class, and the runtime checks the resulting [`SlotSpec`] when the tool is first used.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the type of a command-tool slot",
    label = "not a slot type",
    note = "a slot field is a `String`, an integer type (`u32`, `i64`, ...), `f64`/`f32`, `nanotool::WorkPath` (a path inside the working directory), an enum with `#[derive(nanotool::SlotEnum)]`, or an `Option` of one of these"
)]
pub trait SlotType: Sized {
    /// The slot's kind as a constant.
    const CLASS: SlotClass;
    /// How free the type's values are where a binary takes code ([`SlotClass::freedom`]): an
    /// integer, number or enum may stand there, a `String` only with a `pattern` (see
    /// [`crate::policy`]).
    const FREEDOM: SlotFreedom = Self::CLASS.freedom();
    /// Whether the model must give the slot (`false` for `Option<T>`).
    const REQUIRED: bool = true;

    /// The slot's kind.
    fn kind() -> SlotKind;

    /// Adds the type's own constraints to a fresh spec (an integer type's range, say).
    fn constrain(spec: SlotSpec) -> SlotSpec {
        spec
    }

    /// Converts a value that already passed [`CommandSpec::render`]; the error says why not.
    fn from_json(value: &Value) -> Result<Self, String>;

    /// The value to use when the argument is absent and the slot has no default
    /// (`Some(None)` for `Option<T>`, `None` for everything else).
    fn absent() -> Option<Self> {
        None
    }

    /// The value as the model would send it (`None` for an absent `Option`).
    fn to_json(&self) -> Option<Value>;

    /// The slot's spec for a field of this type: [`SlotType::kind`], the type's own
    /// constraints, and not required for an `Option` (called by generated code).
    fn slot_spec(name: &str, description: &str) -> SlotSpec {
        let spec = Self::constrain(SlotSpec::new(name, Self::kind(), description));
        if Self::REQUIRED {
            spec
        } else {
            spec.optional()
        }
    }

    /// The value behind `dyn`, for [`args_object`] (called by generated code).
    #[doc(hidden)]
    fn slot_value(&self) -> &dyn SlotValue {
        self
    }

    /// One field of a call that already passed [`CommandSpec::render`]: the argument, else
    /// the slot's default, else [`SlotType::absent`] (called by generated code). `null` is
    /// absent, as `render` reads it.
    fn field(spec: &CommandSpec, args: &Value, name: &str) -> Result<Self, SlotError> {
        let given = args
            .get(name)
            .filter(|v| !v.is_null())
            .or_else(|| spec.slot(name).and_then(SlotSpec::default));
        match given {
            Some(value) => Self::from_json(value).map_err(|why| SlotError::new(name, why)),
            None => Self::absent()
                .ok_or_else(|| SlotError::new(name, "missing required argument; give a value")),
        }
    }
}

impl SlotType for String {
    const CLASS: SlotClass = SlotClass::String;

    fn kind() -> SlotKind {
        SlotKind::String
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("expected a string, got {value}"))
    }

    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.clone()))
    }
}

macro_rules! integer_slot {
    ($($t:ty),*) => {$(
        impl SlotType for $t {
            const CLASS: SlotClass = SlotClass::Integer;

            fn kind() -> SlotKind {
                SlotKind::Integer
            }

            fn constrain(spec: SlotSpec) -> SlotSpec {
                spec.with_minimum(<$t>::MIN as f64).with_maximum(<$t>::MAX as f64)
            }

            fn from_json(value: &Value) -> Result<Self, String> {
                let wide: Option<i128> = match value {
                    Value::Number(n) => n
                        .as_i64()
                        .map(i128::from)
                        .or_else(|| n.as_u64().map(i128::from))
                        .or_else(|| {
                            n.as_f64()
                                .filter(|f| f.fract() == 0.0 && f.abs() < 1.8e19)
                                .map(|f| f as i128)
                        }),
                    _ => None,
                };
                wide.and_then(|w| <$t>::try_from(w).ok()).ok_or_else(|| {
                    format!(
                        "expected an integer from {} to {}, got {value}",
                        <$t>::MIN,
                        <$t>::MAX
                    )
                })
            }

            fn to_json(&self) -> Option<Value> {
                Some(Value::from(*self))
            }
        }
    )*};
}

integer_slot!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! number_slot {
    ($($t:ty),*) => {$(
        impl SlotType for $t {
            const CLASS: SlotClass = SlotClass::Number;

            fn kind() -> SlotKind {
                SlotKind::Number
            }

            fn from_json(value: &Value) -> Result<Self, String> {
                value
                    .as_f64()
                    .map(|f| f as $t)
                    .ok_or_else(|| format!("expected a number, got {value}"))
            }

            fn to_json(&self) -> Option<Value> {
                Some(Value::from(*self as f64))
            }
        }
    )*};
}

number_slot!(f32, f64);

impl<T: SlotType> SlotType for Option<T> {
    const CLASS: SlotClass = T::CLASS;
    const REQUIRED: bool = false;

    fn kind() -> SlotKind {
        T::kind()
    }

    fn constrain(spec: SlotSpec) -> SlotSpec {
        T::constrain(spec)
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        if value.is_null() {
            Ok(None)
        } else {
            T::from_json(value).map(Some)
        }
    }

    fn absent() -> Option<Self> {
        Some(None)
    }

    fn to_json(&self) -> Option<Value> {
        self.as_ref().and_then(T::to_json)
    }
}

/// A path inside the working directory: the `path` slot kind.
///
/// Written relative (`src/lib.rs`, `.`); the runtime refuses an absolute path, a `..`
/// escape, a symlink out of the working directory and a value that begins with `-`, and
/// renders it prefixed `./` so no binary reads it as an option.
///
/// ```
/// use nanotool_runtime::code_form::WorkPath;
///
/// let p = WorkPath::from("src");
/// assert_eq!(p.as_str(), "src");
/// assert_eq!(p.to_string(), "src");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct WorkPath(String);

impl WorkPath {
    /// A path as written (checked when the call is rendered, not here).
    pub fn new(path: impl Into<String>) -> Self {
        WorkPath(path.into())
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path as written, as a [`Path`] (relative to the working directory).
    pub fn as_path(&self) -> &Path {
        Path::new(&self.0)
    }
}

impl From<&str> for WorkPath {
    fn from(path: &str) -> Self {
        WorkPath(path.to_owned())
    }
}

impl From<String> for WorkPath {
    fn from(path: String) -> Self {
        WorkPath(path)
    }
}

impl AsRef<Path> for WorkPath {
    fn as_ref(&self) -> &Path {
        self.as_path()
    }
}

impl fmt::Display for WorkPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl SlotType for WorkPath {
    const CLASS: SlotClass = SlotClass::Path;

    fn kind() -> SlotKind {
        SlotKind::Path
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        value
            .as_str()
            .map(WorkPath::from)
            .ok_or_else(|| format!("expected a path (a string), got {value}"))
    }

    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.clone()))
    }
}

/// A struct that is a command tool: what `#[command_tool]` implements.
///
/// The struct's fields are the slots; a value of it is one call. The macro implements the
/// required items; the provided methods are the typed API — bring the trait into scope to
/// call them, as with any derive (`use nanotool::CommandStruct;`):
///
/// - [`tool`](CommandStruct::tool): the tool, to register with a `Toolbox` or call through
///   the [`Tool`] trait;
/// - [`run`](CommandStruct::run): one typed call through a kernel;
/// - [`argv`](CommandStruct::argv): the argv a typed call renders to;
/// - [`from_args`](CommandStruct::from_args): JSON arguments → a typed call;
/// - [`command_spec`](CommandStruct::command_spec): the tool's [`CommandSpec`].
///
/// A typed call and a JSON call both go through [`CommandSpec::render`]: the typed values
/// are turned into the JSON the model would send, so there is one validation path.
///
/// The methods are generic, so a crate pays for them only where it calls them: a hundred
/// tools compile to a hundred small trait impls, not a hundred copies of this API.
pub trait CommandStruct: Sized + Send + Sync + 'static {
    /// The tool's name.
    const NAME: &'static str;
    /// The tool's description (the struct's doc comment).
    const DESCRIPTION: &'static str;
    /// The template as written.
    const TEMPLATE: &'static str;

    /// The tool, built once from the template and the slot specs the field types give (a
    /// [`BuildFn`]).
    fn built() -> Result<&'static CommandTool, &'static SpecError>;

    /// The call's arguments as the model would send them.
    fn to_args(&self) -> Value;

    /// Builds the typed value from arguments that already passed [`CommandSpec::render`].
    fn from_validated(spec: &CommandSpec, args: &Value) -> Result<Self, SlotError>;

    /// This tool, to register with a `Toolbox` or call through the [`Tool`] trait.
    fn tool() -> CodeTool {
        CodeTool::new(Self::NAME, Self::DESCRIPTION, Self::built)
    }

    /// Runs this call through `kernel`: the values go through the same validation and
    /// rendering as a JSON call ([`CommandSpec::render`]), then the kernel runs the argv.
    fn run(&self, kernel: &CommandExecKernel) -> Result<ExecResult, SlotError> {
        run_of(Self::NAME, Self::built, &self.to_args(), kernel)
    }

    /// The argv this call renders to, with paths confined to `root`.
    fn argv(&self, root: &Path) -> Result<Argv, SlotError> {
        render_of(Self::NAME, Self::built, &self.to_args(), root)
    }

    /// Validates JSON arguments (as the model sends them) with [`CommandSpec::render`], then
    /// builds the typed call.
    fn from_args(args: &Value, root: &Path) -> Result<Self, SlotError> {
        let spec = validate_of(Self::NAME, Self::built, args, root)?;
        Self::from_validated(spec, args)
    }

    /// The tool's command spec, built once from the template and the field types.
    fn command_spec() -> Result<&'static CommandSpec, &'static SpecError> {
        Self::built().map(CommandTool::spec)
    }
}

/// How a code-form tool reaches its [`CommandTool`]: the `built` function of its
/// [`CommandStruct`] impl.
pub type BuildFn = fn() -> Result<&'static CommandTool, &'static SpecError>;

/// A [`CommandStruct`] as a [`Tool`] ([`CommandStruct::tool`]): delegates to its
/// [`CommandTool`], so the code form and the descriptor form share one call path (render →
/// refused, or kernel run).
///
/// One concrete type for every struct, so registering a hundred tools instantiates nothing
/// per tool.
#[derive(Clone, Copy)]
pub struct CodeTool {
    name: &'static str,
    description: &'static str,
    build: BuildFn,
}

impl CodeTool {
    /// A tool named `name`, described by `description`, whose [`CommandTool`] `build` gives.
    pub const fn new(name: &'static str, description: &'static str, build: BuildFn) -> Self {
        CodeTool {
            name,
            description,
            build,
        }
    }

    /// The tool's [`CommandTool`], or the error that made its definition invalid.
    pub fn built(&self) -> Result<&'static CommandTool, &'static SpecError> {
        (self.build)()
    }
}

impl fmt::Debug for CodeTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CodeTool").field(&self.name).finish()
    }
}

impl Tool for CodeTool {
    fn name(&self) -> &str {
        self.name
    }

    fn description(&self) -> &str {
        self.description
    }

    fn input_schema(&self) -> Value {
        match self.built() {
            Ok(tool) => tool.input_schema(),
            Err(_) => serde_json::json!({
                "type": "object", "properties": {}, "required": [], "additionalProperties": false
            }),
        }
    }

    fn spec(&self) -> Option<&CommandSpec> {
        self.built().ok().map(CommandTool::spec)
    }

    fn definition_error(&self) -> Option<&SpecError> {
        self.built().err()
    }

    fn access(&self) -> Access {
        self.built()
            .map_or(Access::READ_ONLY, |tool| tool.spec().access())
    }

    fn call(&self, args: &Value, ctx: &ToolContext<'_>) -> ToolOutput {
        match self.built() {
            Ok(tool) => tool.call(args, ctx),
            Err(err) => ToolOutput::failed(format!("tool `{}` cannot run: {err}", self.name)),
        }
    }

    /// Its [`CommandTool`] with the host's settings: a command tool from then on.
    fn with_host_settings(
        &self,
        host: &RunSettings,
    ) -> Option<Result<std::sync::Arc<dyn Tool>, SpecError>> {
        match self.built() {
            Ok(tool) => tool.with_host_settings(host),
            Err(err) => Some(Err(err.clone())),
        }
    }
}

fn spec_of(name: &str, build: BuildFn) -> Result<&'static CommandSpec, SlotError> {
    build().map(CommandTool::spec).map_err(|err| {
        SlotError::new(
            name,
            format!("the tool `{name}` itself is invalid ({err}); fix its definition"),
        )
    })
}

fn render_of(name: &str, build: BuildFn, args: &Value, root: &Path) -> Result<Argv, SlotError> {
    spec_of(name, build)?.render(args, root)
}

fn run_of(
    name: &str,
    build: BuildFn,
    args: &Value,
    kernel: &CommandExecKernel,
) -> Result<ExecResult, SlotError> {
    let argv = render_of(name, build, args, kernel.cwd())?;
    let spec = spec_of(name, build)?;
    Ok(kernel.run_with(argv.as_slice(), spec.access(), spec.settings(), None))
}

fn validate_of(
    name: &str,
    build: BuildFn,
    args: &Value,
    root: &Path,
) -> Result<&'static CommandSpec, SlotError> {
    let spec = spec_of(name, build)?;
    spec.render(args, root)?;
    Ok(spec)
}

/// A field's value as JSON, behind `dyn` (used by generated code: one `to_args` body for
/// every struct, [`args_object`]).
#[doc(hidden)]
pub trait SlotValue {
    /// [`SlotType::to_json`].
    fn slot_json(&self) -> Option<Value>;
}

impl<T: SlotType> SlotValue for T {
    fn slot_json(&self) -> Option<Value> {
        self.to_json()
    }
}

/// The arguments object of a typed call: each field under its slot name, absent `Option`s
/// left out (used by generated code).
#[doc(hidden)]
pub fn args_object(fields: &[(&'static str, &dyn SlotValue)]) -> Value {
    let mut args = serde_json::Map::new();
    for (name, value) in fields {
        if let Some(value) = value.slot_json() {
            args.insert((*name).to_owned(), value);
        }
    }
    Value::Object(args)
}

/// A compile-time check of generated code: the build fails with `message`, at the caller's
/// span, when `ok` is false.
#[doc(hidden)]
#[track_caller]
pub const fn require(ok: bool, message: &str) {
    if !ok {
        panic!("{}", message)
    }
}

/// A default as the macro wrote it down (used by generated code).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum DefaultDef {
    /// No default.
    None,
    /// A string literal.
    Str(&'static str),
    /// An integer literal.
    Int(i64),
    /// An integer literal above `i64::MAX`.
    UInt(u64),
    /// A float literal.
    Float(f64),
    /// A typed expression (`Mode::Long`), converted through [`SlotType::to_json`].
    Typed(fn() -> Option<Value>),
}

/// One field as the macro wrote it down (used by generated code).
#[doc(hidden)]
pub struct SlotDef {
    /// The slot's name.
    pub name: &'static str,
    /// The field's doc comment.
    pub description: &'static str,
    /// `<FieldType as SlotType>::slot_spec`.
    pub spec: fn(&str, &str) -> SlotSpec,
    /// `#[slot(default = ...)]`.
    pub default: DefaultDef,
    /// `#[slot(pattern = ...)]`.
    pub pattern: Option<&'static str>,
    /// `#[slot(minimum = ...)]`.
    pub minimum: Option<f64>,
    /// `#[slot(maximum = ...)]`.
    pub maximum: Option<f64>,
}

/// The attribute's run settings as the macro wrote them down (used by generated code).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SettingsDef {
    /// `timeout = SECONDS`.
    pub timeout: Option<u64>,
    /// `max_output = BYTES`.
    pub max_output: Option<u64>,
    /// `env(NAME = "value", ...)`.
    pub env: &'static [(&'static str, &'static str)],
    /// `sandbox_read("~/.cargo", ...)`: `~/` is the running agent's home.
    pub sandbox_read: &'static [&'static str],
    /// `memory = SIZE` (bytes).
    pub memory: Option<u64>,
    /// `file_size = SIZE` (bytes).
    pub file_size: Option<u64>,
    /// `open_files = N`.
    pub open_files: Option<u64>,
    /// `cpu_time = SECONDS`.
    pub cpu_time: Option<u64>,
    /// `processes = N`.
    pub processes: Option<u64>,
    /// `exit_codes(1 = "no match", ...)`: exit statuses that are not failures.
    pub exit_codes: &'static [(i64, &'static str)],
}

impl SettingsDef {
    /// The settings as the runtime holds them (the values are checked by
    /// [`CommandSpec::with_settings`]; the macro checked them already).
    fn run_settings(&self) -> RunSettings {
        let mut settings = RunSettings::new();
        if let Some(secs) = self.timeout {
            settings = settings.with_timeout(std::time::Duration::from_secs(secs));
        }
        if let Some(bytes) = self.max_output {
            // A cap beyond `usize` is refused by the check, never wrapped.
            settings = settings.with_max_output(usize::try_from(bytes).unwrap_or(usize::MAX));
        }
        for (name, value) in self.env {
            settings = settings.with_env(*name, *value);
        }
        // Resolved on the machine that runs the tool (the macro checked the shape): a path
        // missing here makes the tool's definition invalid, as a descriptor's would (613).
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        for path in self.sandbox_read {
            let expanded = crate::kernel::expand_home(path, home.as_deref())
                .unwrap_or_else(|| std::path::PathBuf::from(path));
            let real = expanded.canonicalize().unwrap_or(expanded);
            settings = settings.with_sandbox_read(real);
        }
        settings.memory = self.memory;
        settings.file_size = self.file_size;
        settings.open_files = self.open_files;
        settings.cpu_time = self.cpu_time.map(std::time::Duration::from_secs);
        settings.processes = self.processes;
        settings
    }
}

/// Builds a macro tool through [`CommandSpec::new`], the same constructor descriptors use
/// (used by generated code; one body for every tool). `access` holds the attribute's
/// `writes` and `network` flags, `settings` its `timeout`, `max_output` and `env`, set on the
/// spec as a descriptor's fields are.
#[doc(hidden)]
pub fn build_tool(
    name: &str,
    description: &str,
    template: &str,
    slots: &[SlotDef],
    access: Access,
    settings: SettingsDef,
) -> Result<CommandTool, SpecError> {
    let specs = slots
        .iter()
        .map(|def| {
            let mut spec = (def.spec)(def.name, def.description);
            let default = match def.default {
                DefaultDef::None => None,
                DefaultDef::Str(s) => Some(Value::from(s)),
                DefaultDef::Int(i) => Some(Value::from(i)),
                DefaultDef::UInt(u) => Some(Value::from(u)),
                DefaultDef::Float(f) => Some(Value::from(f)),
                DefaultDef::Typed(f) => f(),
            };
            if let Some(default) = default {
                spec = spec.with_default(default);
            }
            // The macro compiled the pattern: it is compiled again on its first use only.
            if let Some(pattern) = def.pattern {
                spec = spec.with_compiled_pattern(pattern);
            }
            // The author narrows the field type's range, never widens it: a `u8` with
            // `minimum = -5` still takes 0 at least, so the schema, a JSON call and a typed
            // call all agree.
            if let Some(minimum) = def.minimum {
                let minimum = spec.minimum().map_or(minimum, |own| own.max(minimum));
                spec = spec.with_minimum(minimum);
            }
            if let Some(maximum) = def.maximum {
                let maximum = spec.maximum().map_or(maximum, |own| own.min(maximum));
                spec = spec.with_maximum(maximum);
            }
            spec
        })
        .collect();
    CommandSpec::new(name, description, template, specs)?
        .with_access(access)
        .with_settings(settings.run_settings())?
        .with_exit_codes(
            settings
                .exit_codes
                .iter()
                .fold(ExitCodes::new(), |codes, (code, meaning)| {
                    codes.with(*code, *meaning)
                }),
        )
        .map(CommandTool::new)
}
