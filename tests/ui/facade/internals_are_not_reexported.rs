// The facade re-exports what a user needs, not the runtime's internals: the template parser,
// the policy tables, the code form's generated-code support and the old hidden module are
// reachable only through `nanotool-runtime` (or not at all).
use nanotool::template::Template;
use nanotool::policy::check_template;
use nanotool::slot_type::SlotType;
use nanotool::__private::CommandStruct;
use nanotool::hint::closest;

fn main() {}
