// The agent config form, generated from the JSON Schema of the real AgentConfig: which inputs it makes,
// how edits become the value that is saved, and that its field names and errors line up with the ones
// the core (and so the daemon) reports.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentConfig } from '../../../src-main/core/agents/agentConfig.js';
import { describeIssues, formatFieldPath } from '../../../src-main/core/util/zodIssues.js';
import { fieldProblems } from '../../../src-renderer/src/api/apiError.js';
import schemaJson from '../../../src-renderer/src/form/agentConfig.schema.json';
import { agentConfigHelp } from '../../../src-renderer/src/form/agentConfigHelp.js';
import {
  buildFields,
  cleanValue,
  fieldKey,
  getAt,
  pairsToText,
  setAt,
  textToPairs,
  validatorFor,
  type FieldNode,
  type JsonSchema,
} from '../../../src-renderer/src/form/schemaForm.js';

const schema = schemaJson as JsonSchema;
const fields = buildFields(schema, agentConfigHelp);
const byKey = (nodes: FieldNode[], key: string): FieldNode | undefined => {
  for (const n of nodes) {
    if (n.key === key) return n;
    if (n.kind === 'group') {
      const hit = byKey(n.children, key);
      if (hit) return hit;
    }
  }
  return undefined;
};

describe('form generated from the agent config schema', () => {
  it('makes an input of the right kind for every field the issue names', () => {
    expect(byKey(fields, 'model')).toMatchObject({ kind: 'text', label: 'Model' });
    expect(byKey(fields, 'max_iterations')).toMatchObject({
      kind: 'number',
      integer: true,
      min: 1,
      max: 1000,
      label: 'Max model turns',
    });
    expect(byKey(fields, 'mode')).toMatchObject({
      kind: 'enum',
      options: ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'],
    });
    expect(byKey(fields, 'auto_approve')).toMatchObject({ kind: 'boolean' });
    expect(byKey(fields, 'tools.allowed')).toMatchObject({ kind: 'list', label: 'Allowed tools' });
    expect(byKey(fields, 'tools.denied')).toMatchObject({ kind: 'list' });
    expect(byKey(fields, 'budget.max_usd_per_run')).toMatchObject({ kind: 'number', integer: false, min: 0 });
    const heartbeat = byKey(fields, 'heartbeat');
    expect(heartbeat).toMatchObject({ kind: 'group' });
    expect(byKey(fields, 'heartbeat.every')).toMatchObject({ kind: 'text', required: true });
    const mcp = byKey(fields, 'mcp_servers');
    expect(mcp?.kind).toBe('objectMap');
    // `_inherit` in an agent file only exists to be refused: the form does not offer it.
    expect(mcp?.kind === 'objectMap' && mcp.entry.map((f) => f.key)).toEqual([
      'type',
      'command',
      'args',
      'env',
      'url',
      'disabled',
      'context',
      'keep_alive',
      'connect_timeout_seconds',
      'tool_timeout_seconds',
      'always_allow',
      'headers',
      'oauth',
    ]);
    expect(mcp?.kind === 'objectMap' && mcp.entry.find((f) => f.key === 'env')?.kind).toBe('pairs');
    const watch = byKey(fields, 'watch');
    expect(watch?.kind === 'objectList' && watch.item.map((f) => `${f.key}:${f.kind}`)).toEqual([
      'path:text',
      'glob:text',
      'debounce:textOrNumber',
      'prompt:text',
    ]);
  });

  it('names fields exactly as core/util/zodIssues.ts does', () => {
    for (const path of [
      ['model'],
      ['tools', 'allowed', 0],
      ['mcp_servers', 'my.server', 'args', 1],
      ['watch', 2, 'path'],
    ]) {
      expect(fieldKey(path)).toBe(formatFieldPath(path));
    }
  });

  it('edits a copy at a path, making missing parents, and removes a key set to undefined', () => {
    const a = { tools: { allowed: ['bash'] } };
    const b = setAt(a, ['heartbeat', 'every'], '30m') as Record<string, unknown>;
    expect(b).toEqual({ tools: { allowed: ['bash'] }, heartbeat: { every: '30m' } });
    expect(a).toEqual({ tools: { allowed: ['bash'] } });
    expect(getAt(setAt(b, ['watch', 0, 'path'], '~/in'), ['watch', 0, 'path'])).toBe('~/in');
    expect(setAt(b, ['tools', 'allowed'], undefined)).toEqual({ tools: {}, heartbeat: { every: '30m' } });
  });

  it('saves only what was set: empty groups and blank values go, list items and named entries stay', () => {
    const edited = {
      model: '',
      tools: { allowed: undefined },
      budget: {},
      mcp_servers: { fs: {} },
      watch: [{}],
      max_iterations: 5,
    };
    expect(cleanValue(edited, schema)).toEqual({ mcp_servers: { fs: {} }, watch: [{}], max_iterations: 5 });
    expect(cleanValue({ tools: {} }, schema)).toBeUndefined();
  });

  it('checks a value with the schema and keys each problem by the field it belongs to', () => {
    const check = validatorFor(schema);
    const value = { max_iterations: 5000, tools: { allowed: ['no spaces allowed'] }, watch: [{}], colour: 'red' };
    const errors = check(value);
    expect(Object.keys(errors).sort()).toEqual(['colour', 'max_iterations', 'tools.allowed[0]', 'watch[0].path']);
    expect(errors.colour).toBe('unknown key');
    // The same value through the real schema names the same fields.
    const real = AgentConfig.safeParse(value);
    expect(real.success).toBe(false);
    const coreFields = describeIssues(real.error!.issues, value).map((p) => p.field);
    expect(coreFields.sort()).toEqual(Object.keys(errors).sort());
    expect(check({ model: 'claude-x', heartbeat: { every: '30m' } })).toEqual({});
  });

  it('reads the field problems out of a daemon error message', () => {
    const message =
      'config.heartbeat.every: "10s" is shorter than the minimum 1m; config.tools.allowed[0]: not a tool name; config.max_iterations: Too big';
    expect(fieldProblems(message, 'config')).toEqual({
      'heartbeat.every': '"10s" is shorter than the minimum 1m',
      'tools.allowed[0]': 'not a tool name',
      max_iterations: 'Too big',
    });
    expect(fieldProblems('rein:saveAgent: body.config.mode: Invalid option', 'config')).toEqual({
      mode: 'Invalid option',
    });
    expect(fieldProblems('config: expected a mapping', 'config')).toEqual({ '': 'expected a mapping' });
    expect(fieldProblems('agent "x" not found', 'config')).toEqual({});
  });

  it('edits environment variables as NAME=value lines', () => {
    expect(textToPairs('A=1\n\nB=x=y\nC')).toEqual({ A: '1', B: 'x=y', C: '' });
    expect(pairsToText({ A: '1', B: 'x=y' })).toBe('A=1\nB=x=y');
    expect(textToPairs('  \n')).toBeUndefined();
  });

  it('stays a JSON Schema zod can read back', () => {
    expect(() => z.fromJSONSchema(schemaJson as never)).not.toThrow();
  });
});
