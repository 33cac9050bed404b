// The protocol is one file (core/ax/protocol.ts); the helpers follow it. These tests hold the Linux helper
// and the Swift helper to its method names, error numbers and roles by reading their sources.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AX_ERROR_CODES,
  AX_ERROR_NUMBERS,
  AX_METHOD_NAMES,
  AX_ROLES,
  errorCodeOf,
  METHODS,
  RpcReply,
  timeoutFor,
} from '../../../src-main/core/ax/protocol.js';

const ROOT = join(__dirname, '../../..');
const linux = (f: string) => readFileSync(join(ROOT, 'native/ax_server/linux/rein_ax', f), 'utf8');
const swift = (f: string) => readFileSync(join(ROOT, 'native/ax_server/macos/Sources/ax_server', f), 'utf8');

describe('the ax protocol', () => {
  it('names an error by data.code, else by its number', () => {
    expect(errorCodeOf({ code: -32001, data: { code: 'STALE_REF' } })).toBe('STALE_REF');
    expect(errorCodeOf({ code: -32004 })).toBe('NOT_VISIBLE');
    expect(errorCodeOf({ code: -32601 })).toBe('UNSUPPORTED');
    expect(errorCodeOf({ code: -32700 })).toBe('INVALID');
    expect(errorCodeOf({ code: -1, data: { code: 'WHAT' } })).toBe('FAILED');
    expect(new Set(Object.values(AX_ERROR_NUMBERS)).size).toBe(AX_ERROR_CODES.length);
  });

  it('gives each call its method’s time plus the wait it asked for', () => {
    expect(timeoutFor('ping', {})).toBe(2_000);
    expect(timeoutFor('click', { wait_ms: 1_000 })).toBe(METHODS.click.timeoutMs + 1_000);
    expect(timeoutFor('wait_for', { condition: 'exists', timeout_ms: 30_000 })).toBe(
      METHODS.wait_for.timeoutMs + 30_000,
    );
    expect(timeoutFor('wait_for', { condition: 'exists' })).toBe(METHODS.wait_for.timeoutMs + 10_000);
  });

  it('marks exactly the methods that change something as mutations', () => {
    const mutations = AX_METHOD_NAMES.filter((m) => METHODS[m].mutation).sort();
    expect(mutations).toEqual(['click', 'focus', 'key', 'mouse', 'press', 'scroll', 'set_value', 'type_text']);
  });

  it('parses replies: a result, an error, an error not tied to a request', () => {
    expect(RpcReply.safeParse({ jsonrpc: '2.0', id: 1, result: { ok: true } }).success).toBe(true);
    expect(RpcReply.safeParse({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'x' } }).success).toBe(true);
    expect(
      RpcReply.safeParse({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }).success,
    ).toBe(true);
    expect(RpcReply.safeParse({ jsonrpc: '2.0', id: 1 }).success).toBe(false);
    expect(RpcReply.safeParse({ id: 1, result: {} }).success).toBe(false);
  });

  it('is what the Linux helper implements: every method, the error numbers, roles from the vocabulary', () => {
    const methods = linux('methods.py');
    for (const m of AX_METHOD_NAMES) expect(methods, m).toContain(`'${m}':`);
    const errors = linux('errors.py');
    for (const [code, n] of Object.entries(AX_ERROR_NUMBERS)) expect(errors, code).toContain(`'${code}': ${n},`);
    const roles = linux('roles.py');
    const used = [...roles.matchAll(/^ {4}'([a-z]+)': \[/gm)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(20);
    for (const r of used) expect(AX_ROLES as readonly string[], r).toContain(r);
  });

  it('is what the Swift helper implements (read from its sources; it is built on a Mac)', () => {
    const main = swift('Methods.swift');
    for (const m of AX_METHOD_NAMES) expect(main, m).toContain(`"${m}"`);
    const errors = swift('Protocol.swift');
    for (const [code, n] of Object.entries(AX_ERROR_NUMBERS))
      expect(errors, code).toMatch(
        new RegExp(
          `case ${code.toLowerCase().replace(/_(.)/g, (_, c: string) => c.toUpperCase())} = "${code}"[\\s\\S]*?${n}`,
        ),
      );
    const roles = swift('Roles.swift');
    const used = [...roles.matchAll(/: "([a-z]+)"/g)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(15);
    for (const r of used) expect(AX_ROLES as readonly string[], r).toContain(r);
  });
});
