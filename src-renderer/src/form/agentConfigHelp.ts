/**
 * Labels and one-line help for the agent config form, keyed by schema path (`*` = any list item or
 * named entry). Fields not listed here get a label made from their key. Leaving a field empty means
 * "inherit the global config.yaml".
 */
import type { HelpTexts } from './schemaForm.js';

export const agentConfigHelp: HelpTexts = {
  model: { help: 'Model id for this agent; empty = the global model.' },
  small_model: { label: 'Small model', help: 'Cheaper model for summaries and heartbeats.' },
  max_iterations: { label: 'Max model turns', help: 'Most model turns in one run (1–1000).' },
  max_tokens: { label: 'Max output tokens', help: 'Per model reply.' },
  context_window: { help: 'Tokens the model can read; compaction starts near it.' },
  mode: {
    label: 'Permission mode',
    help: 'default asks for risky actions; plan only reads; acceptEdits allows file edits.',
  },
  auto_approve: {
    label: 'Auto-approve',
    help: 'Skip approval questions (hard blocks and denied commands still hold).',
  },
  tools: { label: 'Tools' },
  'tools.allowed': { label: 'Allowed tools', help: 'Only these tools (one per line); empty = all.' },
  'tools.denied': { label: 'Denied tools', help: 'Never these tools (one per line).' },
  mcp_servers: { label: 'MCP servers', help: 'Servers only this agent uses, by name.' },
  'mcp_servers.*.type': { help: 'stdio runs a command; http connects to a URL.' },
  'mcp_servers.*.args': { label: 'Arguments', help: 'One per line.' },
  'mcp_servers.*.url': { label: 'URL' },
  'mcp_servers.*.context': { help: 'A hint for the model about what the server is for.' },
  permissions: { label: 'Permissions' },
  'permissions.allowed_commands': { help: 'Shell command patterns that run without asking (one per line).' },
  'permissions.denied_commands': { help: 'Shell command patterns that never run.' },
  'permissions.always_allow_tools': { help: 'Tools that never ask.' },
  'permissions.grants': {
    label: 'Grants from "Always allow"',
    help: 'Each covers one command in one folder, one path or one app; delete one to be asked again.',
  },
  'permissions.gui_unattended': { label: 'GUI tools allowed unattended' },
  'permissions.network_allowlist': { help: 'Hosts the http tool may reach.' },
  'permissions.sensitive_patterns': { help: 'File patterns that always ask.' },
  budget: { label: 'Budget' },
  'budget.max_usd_per_run': { label: 'Max USD per run', help: 'Spending cap for one run; 0 disables it.' },
  heartbeat: { label: 'Heartbeat', help: 'Runs HEARTBEAT.md on a timer.' },
  'heartbeat.every': { help: 'How often, e.g. 30m or 2h (at least 1m).' },
  'heartbeat.active_hours': { help: 'Local hours, e.g. 09:00-18:00; empty = all day.' },
  'heartbeat.model': { help: 'Model id, or "small"; empty = the agent\'s model.' },
  watch: { label: 'Watched folders', help: 'A change in these folders starts a run.' },
  'watch.*.path': { help: 'Absolute or ~/… folder.' },
  'watch.*.glob': { help: 'File name pattern; empty = every file.' },
  'watch.*.debounce': { help: 'Quiet time before a run, e.g. 2s or 2000.' },
  'watch.*.prompt': { help: 'What the run should do; the changed files are appended.' },
  cwd: { label: 'Working folder', help: 'Absolute or ~/…; empty = where the daemon runs.' },
};
