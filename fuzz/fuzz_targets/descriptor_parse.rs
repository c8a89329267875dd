//! Descriptor parsing never panics on any bytes; what it accepts is a spec that validates and
//! renders its own defaults-only call without panicking; an error names the file and is 613.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nanotool_runtime::DescriptorLoader;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let loader = DescriptorLoader::new();
    let file = Path::new("fuzzed.tool.json");
    match loader.parse(file, data) {
        Ok(spec) => {
            let _ = spec.json_schema();
            let _ = spec.render(&serde_json::json!({}), &std::env::temp_dir());
        }
        Err(error) => {
            assert_eq!(error.code(), 613);
            assert!(error.to_string().contains("fuzzed.tool.json"));
        }
    }
});
