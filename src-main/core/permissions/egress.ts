/**
 * Network egress for the `http` tool: Rein's own daemon never (its port on this machine, in any
 * spelling: reinGuards.ts), loopback otherwise always, `network_allowlist` hosts (`example.com`,
 * `*.example.com`) without asking, anything else needs a person. Only http and https leave the machine.
 */
import type { EgressCheck } from '../tools/tool.js';
import type { Verdict } from './types.js';
import { isLoopbackHost } from '../util/loopback.js';
import { daemonUrlReason } from './reinGuards.js';

export interface EgressVerdict {
  decision: Verdict;
  reason: string;
  host?: string;
  /** The URL reaches Rein's own daemon: a hard block. */
  reinDaemon?: boolean;
}

export interface UrlRules {
  /** The ports of Rein's daemon (configured, and the one daemon.json names): refused on this machine. */
  reinPorts?: readonly number[];
}

function normaliseHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

export { isLoopbackHost };

/** Turns an allowlist entry that may be a URL or carry a port into a bare host pattern. */
function entryHost(entry: string): string {
  let e = entry.trim().toLowerCase();
  e = e.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  e = e.replace(/[/?#].*$/, '');
  if (!e.startsWith('[')) e = e.replace(/:[0-9]+$/, '');
  return normaliseHost(e);
}

/** The allowlist entry that covers the host, or undefined. `*.example.com` covers the bare domain too. */
export function allowlistEntryFor(host: string, allowlist: readonly string[]): string | undefined {
  const h = normaliseHost(host);
  return allowlist.find((raw) => {
    const e = entryHost(raw);
    if (!e) return false;
    if (e === '*') return true;
    if (e.startsWith('*.')) {
      const domain = e.slice(2);
      return h === domain || h.endsWith(`.${domain}`);
    }
    return h === e;
  });
}

export function classifyUrl(raw: unknown, allowlist: readonly string[], rules: UrlRules = {}): EgressVerdict {
  if (typeof raw !== 'string' || raw.trim() === '') return { decision: 'deny', reason: 'the request has no URL' };
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { decision: 'deny', reason: `"${raw.slice(0, 200)}" is not a valid URL` };
  }
  return classifyParsedUrl(url, allowlist, rules);
}

export function classifyParsedUrl(url: URL, allowlist: readonly string[], rules: UrlRules = {}): EgressVerdict {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { decision: 'deny', reason: `only http and https requests may be made, not ${url.protocol}` };
  }
  const host = url.hostname;
  if (!host) return { decision: 'deny', reason: 'the URL has no host' };
  const daemon = daemonUrlReason(url, rules.reinPorts ?? []);
  if (daemon) return { decision: 'deny', reason: daemon, host, reinDaemon: true };
  if (isLoopbackHost(host)) return { decision: 'allow', reason: `${host} is this computer (loopback)`, host };
  const entry = allowlistEntryFor(host, allowlist);
  if (entry) return { decision: 'allow', reason: `${host} is on network_allowlist ("${entry}")`, host };
  return { decision: 'ask', reason: `${host} is not on network_allowlist`, host };
}

export interface EgressCheckOptions {
  /**
   * What to do with a host that is neither loopback nor on the allowlist. `deny` (the default) suits checks
   * made without a person, such as a redirect to another host; pass `allow` where a person already approved
   * the call (or the mode allows it) and only the scheme matters.
   */
  unlisted?: 'deny' | 'allow';
  /** Rein's daemon ports, asked at each request (the daemon may have started since the run did). */
  reinPorts?: () => readonly number[];
}

/**
 * An EgressCheck for ToolContext.egress built from the permissions config. It never asks (it has nobody to
 * ask): the permission engine asks about the call's own URL before the tool runs.
 */
export function egressCheck(
  config: { network_allowlist: readonly string[] },
  opts: EgressCheckOptions = {},
): EgressCheck {
  const allowlist = [...config.network_allowlist];
  const unlisted = opts.unlisted ?? 'deny';
  return async (url) => {
    const v = classifyParsedUrl(url, allowlist, opts.reinPorts ? { reinPorts: opts.reinPorts() } : {});
    if (v.reinDaemon) return { allowed: false, reason: v.reason };
    if (v.decision === 'allow') return { allowed: true };
    if (v.decision === 'ask' && unlisted === 'allow') return { allowed: true };
    return { allowed: false, reason: v.reason };
  };
}
