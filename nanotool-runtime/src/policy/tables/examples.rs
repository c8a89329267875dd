//! The `match` / `not_match` examples each family file keeps beside its entries (its
//! `EXAMPLES`), and the tests that run every one of them through the real policy: a row of a
//! table that stops matching what its examples say fails here, next to the row.

pub(super) use crate::policy::Place::*;
pub(super) use crate::policy::Site::{At, ValueOf};
use crate::policy::{PolicyError, Site, SlotFreedom, check_exec_argv, check_template, name_forms};
use crate::template::Template;

/// One example of what a family's entries must or must not match.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Example {
    /// A template with every slot free that the policy refuses because this slot stands at
    /// this site.
    Match(&'static str, &'static str, Site),
    /// A template with every slot free that the policy accepts.
    NotMatch(&'static str),
    /// A free-text command ExecTool's layer 4 refuses for an option or operand that is code,
    /// loads code or has an effect.
    ExecMatch(&'static str),
    /// A free-text command layer 4 lets through.
    ExecNotMatch(&'static str),
}
pub(super) use Example::*;

impl Example {
    /// The command's text.
    fn text(self) -> &'static str {
        match self {
            Match(text, ..) | NotMatch(text) | ExecMatch(text) | ExecNotMatch(text) => text,
        }
    }

    /// `None` when the policy answers as the example says, else what it answered.
    fn failure(self) -> Option<String> {
        let free = |_: &str| SlotFreedom::Free;
        let template = |text: &str| check_template(&Template::parse(text).unwrap(), &free, &[]);
        let argv = |text: &str| -> Vec<String> { text.split(' ').map(str::to_owned).collect() };
        let ok = match self {
            Match(text, slot, site) => matches!(
                &template(text),
                Err(PolicyError::CodeEntry { slot: s, site: t, .. }) if s == slot && *t == site
            ),
            NotMatch(text) => template(text).is_ok(),
            ExecMatch(text) => matches!(
                check_exec_argv(&argv(text)),
                Err(PolicyError::ExecOption { .. })
            ),
            ExecNotMatch(text) => check_exec_argv(&argv(text)).is_ok(),
        };
        if ok {
            return None;
        }
        Some(match self {
            Match(text, ..) | NotMatch(text) => format!("{self:?}: {:?}", template(text)),
            ExecMatch(text) | ExecNotMatch(text) => {
                format!("{self:?}: {:?}", check_exec_argv(&argv(text)))
            }
        })
    }

    /// Whether the example refuses something (a `Match` or an `ExecMatch`).
    fn matches(self) -> bool {
        matches!(self, Match(..) | ExecMatch(_))
    }
}

/// Every family's examples, by file.
const FAMILIES: &[(&str, &[Example])] = &[
    ("interpreters", super::interpreters::EXAMPLES),
    ("runners", super::runners::EXAMPLES),
    ("editors", super::editors::EXAMPLES),
    ("git", super::git::EXAMPLES),
    ("walkers", super::walkers::EXAMPLES),
    ("wrappers", super::wrappers::EXAMPLES),
    ("toolchains", super::toolchains::EXAMPLES),
    ("plain", super::plain::EXAMPLES),
];

#[test]
fn every_family_example_holds() {
    let failures: Vec<String> = FAMILIES
        .iter()
        .flat_map(|(family, examples)| {
            examples
                .iter()
                .filter_map(move |e| e.failure().map(|f| format!("{family}.rs: {f}")))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} examples fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every entry of the code-entry table has examples in its family's file, and one that it
/// must match unless the policy reads nothing of it but `--`.
#[test]
fn every_entry_has_its_examples() {
    let examples: Vec<Example> = FAMILIES
        .iter()
        .flat_map(|(_, e)| e.iter().copied())
        .collect();
    let entry_of = |e: &Example| {
        let binary = e.text().split(' ').next().unwrap_or_default();
        super::entry_for(&name_forms(binary))
    };
    for entry in super::CODE_ENTRY {
        let own: Vec<&Example> = examples
            .iter()
            .filter(|e| entry_of(e).is_some_and(|x| x.names == entry.names))
            .collect();
        assert!(!own.is_empty(), "{:?} has no example", entry.names);
        assert!(
            entry.reads_only_dashdash() || own.iter().any(|e| e.matches()),
            "{:?} has no example it must match",
            entry.names
        );
    }
}
