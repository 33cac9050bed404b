/**
 * What `createAgent` writes into a new agent folder: a persona to edit and a config.yaml whose every
 * line is commented out (so the new agent inherits everything) but which shows every key with a
 * working example. Lines starting with `# ` are examples, `## ` lines are explanations; a test pins
 * that uncommenting all examples gives a valid config.
 */
import { defaultConfig } from '../config/schema.js';

export function starterPersona(name: string): string {
  return `# ${name}

You are ${name}, a focused assistant.

Replace this text with who this agent is: what it works on, what it knows, how it should answer and
what it must never do. Rein puts this whole file at the top of every conversation with the agent.
`;
}

export function starterConfig(name: string): string {
  const defaults = defaultConfig();
  return `## Settings for the agent "${name}". Every key is optional: a key left out (or commented out)
## takes its value from the global config.yaml. Remove the "# " in front of a line to use it.
## \`rein agents validate ${name}\` checks this file; docs/agents.md explains every key.

# model: ${defaults.model}
# small_model: ${defaults.small_model}
## left out: 200 for a run you watch (terminal, window), 25 for remote and unattended runs
# max_iterations: 25
# max_tokens: ${defaults.max_tokens}
# context_window: ${defaults.context_window}
## default | acceptEdits | plan | dontAsk | bypassPermissions
# mode: default
## true skips approval questions (hard blocks and denied commands still hold)
# auto_approve: false
## schedules, heartbeats and watchers: deny (default) refuses a call that needs approval at once;
## ask sends it to the desktop app or web UI while one is open
# unattended_approvals: deny
# cwd: ~/Documents
# budget:
#   max_usd_per_run: ${defaults.budget.max_usd_per_run}

## allowed replaces the global list (empty = every tool); denied adds to it and always wins
# tools:
#   allowed: []
#   denied: [http]

## denied_commands and sensitive_patterns add to the global lists; the others replace them
# permissions:
#   allowed_commands: ["git status", "npm test"]
#   denied_commands: ["git push --force*"]
#   always_allow_tools: []
#   gui_unattended: []
#   network_allowlist: ["*.github.com"]
#   sensitive_patterns: ["*.p12"]

## Setting mcp_servers replaces the global servers, except those marked _inherit: true there
# mcp_servers:
#   notes:
#     command: npx
#     args: ["-y", "example-mcp-server"]

## Runs the agent on a timer with the checklist in HEARTBEAT.md
# heartbeat:
#   every: 30m
#   active_hours: "09:00-18:00"
#   model: small
#   overlap_prevention: true
#   max_usd_per_day: 1.00

## Runs the agent when files change in a folder
# watch:
#   - path: ~/Downloads
#     glob: "*.pdf"
#     debounce: 2s
#     prompt: Sort the new PDFs into folders by subject.
`;
}
