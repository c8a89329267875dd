//! Validation never panics on any arguments, and whatever it accepts keeps the shape: one
//! element per kept token, no element that a slot made start with `-` where it could be read
//! as an option, no character that misleads a reader (spaces, quotes and `;|&$<>` are inert
//! in one argv element).
#![no_main]

use libfuzzer_sys::fuzz_target;
use nanotool_runtime::{CommandSpec, SlotKind, SlotSpec};
use std::sync::OnceLock;

fn spec() -> &'static CommandSpec {
    static SPEC: OnceLock<CommandSpec> = OnceLock::new();
    SPEC.get_or_init(|| {
        CommandSpec::new(
            "fuzzed",
            "grep with every slot kind",
            "grep --max-count=<n> -e <pattern> <path> <mode> x<suffix>",
            vec![
                SlotSpec::new("n", SlotKind::Integer, "max").optional(),
                SlotSpec::new("pattern", SlotKind::String, "pattern"),
                SlotSpec::new("path", SlotKind::Path, "path").with_default(".".into()),
                SlotSpec::new("mode", SlotKind::Enum(vec!["-i".into(), "-w".into()]), "mode")
                    .optional(),
                SlotSpec::new("suffix", SlotKind::String, "suffix").optional(),
            ],
        )
        .expect("the fuzzed spec is valid")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(args) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let root = std::env::temp_dir();
    if let Ok(argv) = spec().render(&args, &root) {
        assert_eq!(argv[0], "grep");
        for arg in argv.iter() {
            assert!(!arg.chars().any(nanotool_runtime::slot::is_forbidden_char));
        }
        // The pattern is `-e`'s value (it may begin with `-`); the path never stands as an
        // option, and nothing after it does unless the template wrote it.
        let pattern_at = argv.iter().position(|a| a == "-e").expect("-e is literal") + 1;
        assert!(argv[pattern_at + 1].starts_with('.'));
        for arg in &argv[pattern_at + 1..] {
            assert!(!arg.starts_with('-') || arg == "-i" || arg == "-w");
        }
    }
});
