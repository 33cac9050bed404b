/**
 * Lets the MCP conformance suite (@modelcontextprotocol/conformance, built for Node 22) start on Node 20:
 * its CLI imports `globSync` from `fs`, which Node 20 lacks, so its module fails to link. Only its
 * `tier-check` command calls it, which Rein never runs. Preloaded with `node --import`; on a Node with
 * `fs.globSync` it does nothing.
 */
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./fsHook.mjs', import.meta.url);
