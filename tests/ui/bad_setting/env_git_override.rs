//! bad_setting: a git override undone.

use nanotool::command_tool;

/// Runs the tests.
#[command_tool("cargo test", name = "env_git_override", env(GIT_CONFIG_GLOBAL = "/home/me/.gitconfig"))]
pub struct EnvGitOverride;

fn main() {}
