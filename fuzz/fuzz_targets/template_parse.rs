//! The template parser never panics; an accepted template renders one argv element per token
//! with every literal part unchanged; an error's span lies inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nanotool_runtime::template::{Part, Template};

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    match Template::parse(source) {
        Ok(template) => {
            let argv = template.render(|_| Some("v"));
            assert_eq!(argv.len(), template.tokens().len());
            for (token, arg) in template.tokens().iter().zip(&argv) {
                let mut rebuilt = String::new();
                for part in token.parts() {
                    match part {
                        Part::Literal(text) => rebuilt.push_str(text),
                        Part::Slot(_) => rebuilt.push('v'),
                    }
                }
                assert_eq!(&rebuilt, arg);
            }
        }
        Err(error) => {
            assert!(error.span().end <= source.len());
            let _ = error.to_string();
        }
    }
});
