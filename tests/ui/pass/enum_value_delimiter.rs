//! pass: enum value delimiter.
use nanotool::{CommandStruct, SlotEnum, WorkPath, command_tool};

/// The values the slot takes: author text, a `;` and a space included.
#[derive(SlotEnum)]
pub enum Delim {
    /// A semicolon.
    #[slot(value = ";")]
    V0,
    /// A space.
    #[slot(value = " ")]
    V1,
    /// A comma.
    #[slot(value = ",")]
    V2,
}

/// Runs a command.
#[command_tool("cut -d <delim> -f 1 <file>")]
pub struct EnumValueDelimiter {
    /// The delim
    pub delim: Delim,
    /// The file
    pub file: WorkPath,
}

pub fn main() {
    let spec =
        EnumValueDelimiter::command_spec().expect("the runtime refuses what the macro accepted");
    assert_eq!(spec.template().source(), "cut -d <delim> -f 1 <file>");
    let call = EnumValueDelimiter { delim: Delim::V0, file: WorkPath::from("a.csv") };
    let argv = call.argv(std::path::Path::new(".")).unwrap();
    assert_eq!(argv.as_slice(), ["cut", "-d", ";", "-f", "1", "./a.csv"]);
    let call = EnumValueDelimiter { delim: Delim::V1, file: WorkPath::from("a.csv") };
    assert_eq!(call.argv(std::path::Path::new(".")).unwrap()[2], " ");
}
