//! An MCP server on the official Rust SDK (rmcp) with a tool of its own (`add`) plus the
//! nanotool built-ins and the descriptors of a folder, over stdio.
//!
//! `cargo run --features rmcp --example rmcp_server -- [merged|plain] [CWD] [TOOLS_DIR]`
//!
//! - `merged` (the default): the server's own `ToolRouter` with nanotool's routes merged in;
//! - `plain`: nanotool's ready `ToolboxServer`, the toolbox's tools only.
//!
//! The host keeps `find` off limits with its own deny list: a call to it is refused (614).

use nanotool::adapters::rmcp::rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use nanotool::adapters::rmcp::rmcp::handler::server::tool::ToolCallContext;
use nanotool::adapters::rmcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use nanotool::adapters::rmcp::rmcp::service::RequestContext;
use nanotool::adapters::rmcp::rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use nanotool::adapters::rmcp::{ToolboxServer, rmcp::transport::stdio, route_call, tool_router};
use nanotool::{CommandExecKernel, KernelSettings, Toolbox, builtins};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;

/// A server of one's own: its router holds its own tool and nanotool's.
struct MyServer {
    router: ToolRouter<MyServer>,
}

impl ServerHandler for MyServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.router.list_all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // As `self.router.call(..)`, with nanotool's suggestions for an unknown name.
        route_call(&self.router, ToolCallContext::new(self, request, context)).await
    }
}

/// The server's own tool: adds two integers.
fn add_route() -> ToolRoute<MyServer> {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"]
    });
    let serde_json::Value::Object(schema) = schema else {
        unreachable!()
    };
    ToolRoute::new_dyn(
        Tool::new("add", "Add two integers", schema),
        |context: ToolCallContext<'_, MyServer>| {
            let args = context.arguments.clone().unwrap_or_default();
            Box::pin(async move {
                let (Some(a), Some(b)) = (args["a"].as_i64(), args["b"].as_i64()) else {
                    return Ok(CallToolResult::error(vec![ContentBlock::text(
                        "`a` and `b` must be integers",
                    )])
                    .into());
                };
                Ok(CallToolResult::success(vec![ContentBlock::text((a + b).to_string())]).into())
            })
        },
    )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "merged".to_owned());
    let cwd = args
        .next()
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    let tools_dir = args.next().map(PathBuf::from);

    let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings {
        cwd,
        ..KernelSettings::default()
    })?);
    for tool in builtins::all() {
        toolbox.register_arc(tool)?;
    }
    if let Some(dir) = tools_dir {
        for error in toolbox.load_descriptors(&dir) {
            eprintln!("{error}");
        }
    }
    toolbox.deny_binaries(["find"]);
    let toolbox = Arc::new(toolbox);

    match mode.as_str() {
        "plain" => {
            let server = ToolboxServer::new(toolbox).serve(stdio()).await?;
            server.waiting().await?;
        }
        "merged" => {
            let mut router = ToolRouter::new();
            router.add_route(add_route());
            router.merge(tool_router(toolbox));
            let server = MyServer { router }.serve(stdio()).await?;
            server.waiting().await?;
        }
        other => return Err(format!("unknown mode `{other}`: merged or plain").into()),
    }
    Ok(())
}
