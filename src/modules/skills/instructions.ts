// What provider CLIs are told about the service's automation skills. Their shell has `svc` on PATH
// (a shim in <home>/bin) and SVC_URL/SVC_HOME/SVC_BROWSER_PORT set, so these commands reach the same
// browser server and rules as the running service.
export const SKILL_INSTRUCTIONS = `You can automate a real web browser and HTTP traffic with the \`svc\` command in your shell:
- Browser (Chromium over CDP; starts on first use, keeps its tabs between commands):
  svc browser open <url> | snapshot [--diff] | click "<css|xpath=…|ref e12>" | type "<selector|ref>" "<text>" [--submit]
  svc browser extract "<selector>" text|html|attr:<name> [--all] | eval "<javascript>" | wait "<selector>"|--navigation|--idle
  svc browser screenshot [--full] | tabs | tab open|switch|close | console | network | fetch <url>
  Prefer \`snapshot\` (an accessibility tree with refs like e12) and act on refs; re-snapshot after the page changes.
- Vision click (screenshot + model, for canvas or desktop UIs): svc vision-click "<what to click>" [--double|--right|--hover|--describe]
- HTTP interception rules (redirect, rewrite, block, mock, transform): svc web-routing help
When the user asks about a web page (for example "open example.com and tell me the title"), use these commands.`;
