//! A [`Toolbox`] served by an [rmcp] server (feature `rmcp`): as routes to merge into
//! a server's own [`ToolRouter`] ([`tool_router`], called through [`route_call`] so a typo
//! gets suggestions), or as a ready [`ServerHandler`] ([`ToolboxServer`]).
//!
//! A call is what `nanotool serve` answers: a refused call (614) and a failed command are
//! results with `isError: true` and nanotool's full text, so the model sees what to change;
//! a command's result carries `structuredContent` (exit code, output, truncation, timeout,
//! confinement) beside the text, and every tool lists the matching `outputSchema`
//! ([`nanotool_runtime::export::mcp_definition`], [`crate::mcp::call_result`]). rmcp's cancellation token
//! (fired by `notifications/cancelled`, or when the connection closes) fires the call's
//! [`CancelHandle`](crate::CancelHandle): the command's process group is killed. Each call
//! runs on tokio's blocking pool through [`Toolbox::call`], so the host's deny list holds. A
//! tool that panics is an internal error (`-32603`), never a crash of the server.
//!
//! The rmcp crate is re-exported as [`rmcp`] so the versions match.
//!
//! ```no_run
//! use nanotool::adapters::rmcp::{ToolboxServer, rmcp::ServiceExt};
//! use nanotool::{CommandExecKernel, KernelSettings, Toolbox};
//! use std::sync::Arc;
//!
//! # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
//! let toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default())?);
//! let server = ToolboxServer::new(Arc::new(toolbox))
//!     .serve(nanotool::adapters::rmcp::rmcp::transport::stdio())
//!     .await?;
//! server.waiting().await?;
//! # Ok(())
//! # }
//! ```

pub use ::rmcp;

use crate::UnknownTool;
use crate::mcp::call_result;
use crate::{CallError, ToolOutput, Toolbox};
use ::rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use ::rmcp::handler::server::tool::ToolCallContext;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ResultType, ServerCapabilities, ServerConfig,
    Tool as McpTool,
};
use ::rmcp::service::{MaybeSend, RequestContext};
use ::rmcp::{ErrorData, RoleServer, ServerHandler};
use nanotool_runtime::export::mcp_definition;
use nanotool_runtime::hint::closest;
use serde_json::Value;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The MCP definition of every tool of `toolbox`, in its order, as `nanotool serve` lists
/// them (`inputSchema`, `outputSchema`, `annotations`).
pub fn tools(toolbox: &Toolbox) -> Vec<McpTool> {
    toolbox
        .tools()
        .iter()
        .map(|tool| {
            serde_json::from_value(mcp_definition(tool.as_ref(), true))
                .expect("a tool definition is an MCP tool")
        })
        .collect()
}

/// Routes for every tool of `toolbox`, to merge into a server's own router:
/// `my_router.merge(tool_router(toolbox))` (or `+`). The server type `S` is the user's;
/// the routes ignore it.
///
/// ```
/// use nanotool::adapters::rmcp::{rmcp::handler::server::router::tool::ToolRouter, tool_router};
/// use nanotool::{CommandExecKernel, KernelSettings, Toolbox, builtins};
/// use std::sync::Arc;
///
/// struct MyServer;
///
/// let mut toolbox = Toolbox::new(CommandExecKernel::new(KernelSettings::default()).unwrap());
/// for tool in builtins::all() {
///     toolbox.register_arc(tool).unwrap();
/// }
/// let mut router = ToolRouter::<MyServer>::new();
/// router.merge(tool_router(Arc::new(toolbox)));
/// assert!(router.has_route("grep"));
/// ```
pub fn tool_router<S: MaybeSend + 'static>(toolbox: Arc<Toolbox>) -> ToolRouter<S> {
    let mut router = ToolRouter::new();
    for attr in tools(&toolbox) {
        let toolbox = Arc::clone(&toolbox);
        router.add_route(ToolRoute::new_dyn(
            attr,
            move |context: ToolCallContext<'_, S>| {
                let toolbox = Arc::clone(&toolbox);
                let name = context.name.to_string();
                let args = context.arguments.clone();
                let ct = context.request_context.ct.clone();
                Box::pin(async move {
                    call(&toolbox, &name, args, ct)
                        .await
                        .map(CallToolResponse::from)
                })
            },
        ));
    }
    router
}

/// Calls `name` on the blocking pool; `ct` firing kills the command. The result as
/// `nanotool serve` sends it.
async fn call(
    toolbox: &Arc<Toolbox>,
    name: &str,
    args: Option<JsonObject>,
    ct: CancellationToken,
) -> Result<CallToolResult, ErrorData> {
    let args = Value::Object(args.unwrap_or_default());
    let mut call = toolbox.call_async_with(name, args, |job| {
        tokio::task::spawn_blocking(job);
    });
    let cancel = call.cancel_handle().clone();
    let outcome = tokio::select! {
        outcome = &mut call => outcome,
        () = ct.cancelled() => {
            // Kill the command and wait until the kernel has reaped it.
            cancel.cancel();
            call.await
        }
    };
    match outcome {
        Ok(output) => Ok(result_of(&output)),
        Err(CallError::UnknownTool(unknown)) => Err(not_found(&unknown)),
        Err(error) => Err(ErrorData::internal_error(error.to_string(), None)),
    }
}

/// rmcp's own answer to an unknown tool (`-32602`, "tool not found"), with nanotool's
/// "did you mean".
fn not_found(unknown: &UnknownTool) -> ErrorData {
    ErrorData::invalid_params(format!("tool not found: {unknown}"), None)
}

/// Calls the tool of `context` on `router`, as [`ToolRouter::call`] does, except that a name
/// the router does not hold (or holds disabled) gets rmcp's `-32602` "tool not found" with
/// nanotool's suggestions among the router's enabled tools, the server's own and nanotool's
/// alike: what a model needs to correct a typo. Use it in a server's own
/// [`ServerHandler::call_tool`] in place of `router.call(context)`.
///
/// ```
/// use nanotool::adapters::rmcp::rmcp::handler::server::router::tool::ToolRouter;
/// use nanotool::adapters::rmcp::rmcp::handler::server::tool::ToolCallContext;
/// use nanotool::adapters::rmcp::rmcp::model::{CallToolRequestParams, CallToolResponse};
/// use nanotool::adapters::rmcp::rmcp::service::RequestContext;
/// use nanotool::adapters::rmcp::rmcp::{ErrorData, RoleServer, ServerHandler};
/// use nanotool::adapters::rmcp::route_call;
///
/// struct MyServer {
///     router: ToolRouter<MyServer>,
/// }
///
/// impl ServerHandler for MyServer {
///     async fn call_tool(
///         &self,
///         request: CallToolRequestParams,
///         context: RequestContext<RoleServer>,
///     ) -> Result<CallToolResponse, ErrorData> {
///         route_call(&self.router, ToolCallContext::new(self, request, context)).await
///     }
/// }
/// ```
pub async fn route_call<S: MaybeSend + 'static>(
    router: &ToolRouter<S>,
    context: ToolCallContext<'_, S>,
) -> Result<CallToolResponse, ErrorData> {
    if !router.has_route(&context.name) {
        let tools = router.list_all();
        let suggestions = closest(&context.name, tools.iter().map(|t| t.name.as_ref()))
            .into_iter()
            .map(str::to_owned)
            .collect();
        return Err(not_found(&UnknownTool {
            name: context.name.to_string(),
            suggestions,
        }));
    }
    router.call(context).await
}

/// `output` as an rmcp result: the text, `isError`, and `structuredContent`, exactly as
/// [`call_result`] shapes it for `nanotool serve`.
pub fn result_of(output: &ToolOutput) -> CallToolResult {
    let mut result: CallToolResult =
        serde_json::from_value(call_result(output)).expect("a call result is an MCP result");
    // As rmcp's constructors set it; rmcp drops it for a peer of the handshake era.
    result.result_type = Some(ResultType::COMPLETE);
    result
}

/// A ready rmcp [`ServerHandler`] serving the tools of a [`Toolbox`]: `tools/list` in the
/// toolbox's order, `tools/call` through [`Toolbox::call`], an unknown tool answered with
/// `-32602` and nanotool's suggestions. rmcp speaks both protocol eras (`initialize` and
/// `server/discover`).
#[derive(Clone)]
pub struct ToolboxServer {
    toolbox: Arc<Toolbox>,
    tools: Arc<[McpTool]>,
    info: ServerConfig,
}

impl std::fmt::Debug for ToolboxServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolboxServer")
            .field("toolbox", &self.toolbox)
            .finish()
    }
}

impl ToolboxServer {
    /// Serves `toolbox`, naming itself `nanotool` and this crate's version.
    pub fn new(toolbox: Arc<Toolbox>) -> Self {
        let tools = tools(&toolbox).into();
        let info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("nanotool", env!("CARGO_PKG_VERSION")));
        ToolboxServer {
            toolbox,
            tools,
            info,
        }
    }

    /// Replaces what `initialize` and `server/discover` answer (name, version, instructions).
    pub fn with_info(mut self, info: ServerConfig) -> Self {
        self.info = info;
        self
    }

    /// The toolbox.
    pub fn toolbox(&self) -> &Arc<Toolbox> {
        &self.toolbox
    }
}

impl ServerHandler for ToolboxServer {
    fn get_info(&self) -> ServerConfig {
        self.info.clone()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        call(&self.toolbox, &request.name, request.arguments, context.ct)
            .await
            .map(CallToolResponse::from)
    }
}
