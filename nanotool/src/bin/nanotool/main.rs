//! The `nanotool` command: list, export, check and call command tools, or serve them to an
//! MCP client over stdio.
//!
//! Exit statuses: 0 when the work was done (for `call`: the command ran, whatever its own exit
//! code, a timeout included), 2 when a call was refused (614) or names an unknown tool, 1 when
//! something could not run (a binary missing, a folder unreadable, bad usage, `check` errors).
//!
//! | module | what lives there |
//! |---|---|
//! | `cli` | clap's types: the options and the subcommands |
//! | `assembly` | the kernel and the toolbox every subcommand uses |
//! | `config` | the host's config file, `WORK/config.json`, read and checked |
//! | `settings` | the flags over the config file over the defaults, and each value's source |
//! | `commands` | one module per subcommand |
//! | `report` | a failure and its exit status; writing to stdout |
//! | `logging` | the log: its level, and the pipe the server logs through |
//! | `signals` | signal handling and process hardening: all of the binary's `unsafe` |
//! | `trust` | the work folder's files used only where no command can write them, or as approved |

use std::process::ExitCode;

use clap::Parser;

mod assembly;
mod cli;
mod commands;
mod config;
mod logging;
mod report;
mod settings;
mod signals;
mod trust;

use assembly::{Assembled, assemble, assemble_call, warn_descriptors, warn_unreadable};
use cli::{Cli, Command};
use logging::init_logging;
use report::Failure;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    init_logging(matches!(cli.command, Command::Serve { .. }));
    match run(cli) {
        Ok(status) => ExitCode::from(status),
        Err(failure) => {
            eprintln!("nanotool: {}", failure.message);
            ExitCode::from(failure.status)
        }
    }
}

fn run(cli: Cli) -> Result<u8, Failure> {
    let common = &cli.common;
    match &cli.command {
        Command::List { json } => {
            let Assembled {
                toolbox,
                errors,
                host,
                ..
            } = assemble(common)?;
            warn_descriptors(&errors);
            if *json {
                warn_unreadable(&toolbox);
            }
            commands::list::run(&toolbox, &host, *json)
        }
        Command::Schema { format } => {
            let Assembled {
                toolbox, errors, ..
            } = assemble(common)?;
            warn_descriptors(&errors);
            commands::schema::run(&toolbox, *format)
        }
        Command::Call { name, args, json } => {
            let Assembled {
                toolbox, errors, ..
            } = assemble_call(common, name)?;
            warn_descriptors(&errors);
            commands::call::run(&toolbox, name, args, *json)
        }
        Command::Check { dir, json } => commands::check::run(common, dir.as_deref(), *json),
        Command::Serve { structured_content } => commands::serve::run(common, *structured_content),
        Command::Trust => assembly::approve(common),
    }
}
