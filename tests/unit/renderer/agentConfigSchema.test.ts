// The agent config form is generated from a JSON Schema that the page bundles, because the zod schema
// itself (core/agents/agentConfig.ts) imports Node's path module and cannot run in the page. This test
// pins the bundled copy to the real schema; REIN_WRITE_SCHEMA=1 rewrites it after a schema change.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentConfig } from '../../../src-main/core/agents/agentConfig.js';

const file = join(import.meta.dirname, '../../../src-renderer/src/form/agentConfig.schema.json');

function agentConfigJsonSchema(): unknown {
  return z.toJSONSchema(AgentConfig, { unrepresentable: 'any', io: 'input' });
}

describe('bundled agent config schema', () => {
  it('equals z.toJSONSchema(AgentConfig) (run with REIN_WRITE_SCHEMA=1 to refresh it)', () => {
    const fresh = agentConfigJsonSchema();
    if (process.env.REIN_WRITE_SCHEMA === '1') writeFileSync(file, `${JSON.stringify(fresh, null, 2)}\n`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(fresh);
  });
});
