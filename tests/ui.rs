//! The compile-time security proofs: every case under `tests/ui/<attack-class>/` must fail to
//! compile with the error in its `.stderr`, and every case under `tests/ui/pass/` (the legal
//! neighbours) must compile and run: a module of this test each, its `main` one test. Regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test --test ui` and read every diff before committing.
//!
//! The second test ties the cases to `tests/fixtures/forms.rs`, the table the descriptor-side
//! test (`tests/two_forms.rs`) runs: same names, same templates, in both directions.

#[path = "fixtures/forms.rs"]
mod forms;

use forms::{FORMS, SETTING_FORMS, Verdict};
use std::collections::BTreeSet;
use std::path::Path;

/// The attack classes, one folder each.
const CLASSES: &[&str] = &[
    "metachar",
    "denied_binary",
    "code_entry",
    "slot_mismatch",
    "bad_attribute",
    "bad_template",
    "bad_type",
    "docs",
    "name",
    "bad_setting",
];

// The compile-fail cases are one trybuild run: a run that holds only compile-fail cases is
// checked with one `cargo check --bins --keep-going` over all of them, each case's errors read
// from its own diagnostics. The passing cases are modules of this test, built with the suite's
// own dependencies: as trybuild's passing cases each would be a crate of its own, built one
// after another over a second build of every dependency (docs/guide/testing.md).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    for class in CLASSES {
        t.compile_fail(format!("tests/ui/{class}/*.rs"));
    }
}

/// Declares each passing case as a module of this test and its `main` as a test of its own
/// (`pass::<case>`), and lists the cases for the check that every file is declared.
macro_rules! pass_cases {
    ($($case:ident: $file:literal,)*) => {
        $(
            #[path = $file]
            mod $case;
        )*
        /// The legal neighbours, each run as the program it is.
        mod pass {
            $(
                #[test]
                fn $case() {
                    super::$case::main();
                }
            )*
        }
        /// Every passing case declared above.
        const PASS_CASES: &[&str] = &[$(stringify!($case)),*];
    };
}

pass_cases! {
    awk_fixed_program: "ui/pass/awk_fixed_program.rs",
    brace_placeholder: "ui/pass/brace_placeholder.rs",
    count_default: "ui/pass/count_default.rs",
    dash_after_dashdash: "ui/pass/dash_after_dashdash.rs",
    dash_after_option: "ui/pass/dash_after_option.rs",
    enum_flags: "ui/pass/enum_flags.rs",
    enum_value_delimiter: "ui/pass/enum_value_delimiter.rs",
    enum_value_query: "ui/pass/enum_value_query.rs",
    exit_differ: "ui/pass/exit_differ.rs",
    find_exec_braces: "ui/pass/find_exec_braces.rs",
    git_upstream: "ui/pass/git_upstream.rs",
    less_path: "ui/pass/less_path.rs",
    limits_all: "ui/pass/limits_all.rs",
    long_timeout: "ui/pass/long_timeout.rs",
    max_count: "ui/pass/max_count.rs",
    negative_minimum: "ui/pass/negative_minimum.rs",
    network_local: "ui/pass/network_local.rs",
    no_slots: "ui/pass/no_slots.rs",
    number_slot: "ui/pass/number_slot.rs",
    python3_c_enum: "ui/pass/python3_c_enum.rs",
    python3_module: "ui/pass/python3_module.rs",
    python3_script_arg: "ui/pass/python3_script_arg.rs",
    sed_line_integer: "ui/pass/sed_line_integer.rs",
    sed_range_pattern: "ui/pass/sed_range_pattern.rs",
    settings_all: "ui/pass/settings_all.rs",
    slot_inside_token: "ui/pass/slot_inside_token.rs",
    writes_network: "ui/pass/writes_network.rs",
}

/// A case added to `tests/ui/pass/` runs only once declared above: none is left out.
#[test]
fn every_passing_case_is_declared() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/pass");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("tests/ui/pass")
        .map(|entry| entry.expect("dir entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let declared: BTreeSet<String> = PASS_CASES.iter().map(|c| c.to_string()).collect();
    assert_eq!(
        on_disk, declared,
        "tests/ui/pass/ and the pass_cases! list differ"
    );
}

/// The facade's public surface is the curated list: the runtime's internals are not
/// re-exported (not an attack class, so no fixture row).
#[test]
fn facade() {
    trybuild::TestCases::new().compile_fail("tests/ui/facade/*.rs");
}

/// `10000000` as Rust lets it be written, `10_000_000`.
fn underscored(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

/// Reads the first string literal after `#[command_tool(` in a ui case, unescaped.
fn template_of(source: &str) -> Option<String> {
    let start = source.find("#[command_tool(")? + "#[command_tool(".len();
    let rest = source[start..].trim_start().strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                '\\' => out.push('\\'),
                '"' => out.push('"'),
                '\'' => out.push('\''),
                'u' => {
                    let hex: String = chars.by_ref().skip(1).take_while(|&c| c != '}').collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                _ => return None,
            },
            c => out.push(c),
        }
    }
    None
}

#[test]
fn every_fixture_row_has_its_ui_case_and_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut on_disk = BTreeSet::new();
    for class in CLASSES.iter().chain(&["pass"]) {
        for entry in std::fs::read_dir(root.join(class)).expect("ui class folder") {
            let path = entry.expect("dir entry").path();
            if path.extension().is_some_and(|e| e == "rs") {
                let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
                on_disk.insert((class.to_string(), stem));
            }
        }
    }
    let mut in_table = BTreeSet::new();
    for form in SETTING_FORMS {
        assert!(
            in_table.insert((form.class.to_string(), form.name.to_string())),
            "fixture `{}/{}` is listed twice",
            form.class,
            form.name
        );
        assert_eq!(form.class == "pass", form.verdict == Verdict::Accepted);
        let file = root.join(form.class).join(format!("{}.rs", form.name));
        let source = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("setting `{}` has no ui case ({e})", form.name));
        assert_eq!(template_of(&source).as_deref(), Some(form.template));
        // The macro's arguments say what the row says.
        let args = source
            .lines()
            .find(|l| l.starts_with("#[command_tool("))
            .expect("the attribute");
        if let Some(secs) = form.timeout {
            let written = args.contains(&format!("timeout = {secs}"))
                || args.contains(&format!("timeout = {}", underscored(secs)));
            assert!(written, "{}: timeout {secs}", file.display());
        }
        if let Some(bytes) = form.max_output {
            let written = args.contains(&format!("max_output = {bytes}"))
                || args.contains(&format!("max_output = {}", underscored(bytes)));
            assert!(written, "{}: max_output {bytes}", file.display());
        }
        for (name, _) in form.env {
            assert!(
                args.contains(&format!("{name} = ")),
                "{}: {name}",
                file.display()
            );
        }
        for (field, literal) in form.limits {
            assert!(
                args.contains(&format!("{field} = {literal}")),
                "{}: {field} = {literal}",
                file.display()
            );
        }
        if !form.exit_codes.is_empty() {
            let list = form
                .exit_codes
                .iter()
                .map(|(code, meaning)| format!("{code} = {meaning:?}"))
                .collect::<Vec<_>>()
                .join(", ");
            assert!(
                args.contains(&format!("exit_codes({list})")),
                "{}: exit_codes({list})",
                file.display()
            );
        }
        if !form.sandbox_read.is_empty() {
            let list = form
                .sandbox_read
                .iter()
                .map(|p| format!("{p:?}"))
                .collect::<Vec<_>>()
                .join(", ");
            assert!(
                args.contains(&format!("sandbox_read({list})")),
                "{}: sandbox_read({list})",
                file.display()
            );
        }
    }
    for form in FORMS {
        assert!(
            in_table.insert((form.class.to_string(), form.name.to_string())),
            "fixture `{}/{}` is listed twice",
            form.class,
            form.name
        );
        assert_eq!(
            form.class == "pass",
            form.verdict == Verdict::Accepted,
            "fixture `{}/{}`: pass/ holds exactly the accepted rows",
            form.class,
            form.name
        );
        let file = root.join(form.class).join(format!("{}.rs", form.name));
        let source = std::fs::read_to_string(&file).unwrap_or_else(|e| {
            panic!(
                "fixture `{}/{}` has no ui case ({e})",
                form.class, form.name
            )
        });
        if form.name != "missing_template" {
            assert_eq!(
                template_of(&source).as_deref(),
                Some(form.template),
                "ui case {} and its fixture row disagree on the template",
                file.display()
            );
        }
    }
    let only_on_disk: Vec<_> = on_disk.difference(&in_table).collect();
    let only_in_table: Vec<_> = in_table.difference(&on_disk).collect();
    assert!(
        only_on_disk.is_empty(),
        "ui cases without a fixture row: {only_on_disk:?}"
    );
    assert!(
        only_in_table.is_empty(),
        "fixture rows without a ui case: {only_in_table:?}"
    );
    let failing = FORMS.iter().filter(|f| f.class != "pass").count();
    assert!(
        failing >= 30,
        "at least 30 compile-fail cases, found {failing}"
    );
}
