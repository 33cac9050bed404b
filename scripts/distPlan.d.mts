// Types of scripts/distPlan.mjs (plain JavaScript: npm run dist:* runs it before anything is built), for its tests.
type Env = Record<string, string | undefined>;
export declare const NOTARY_API_VARS: string[];
export declare const NOTARY_ID_VARS: string[];
export declare function notaryCredentials(env: Env): 'api-key' | 'apple-id' | undefined;
export declare function signingIdentity(env: Env): string;
export interface DistPlan {
  os: 'mac' | 'linux';
  notes: string[];
  helper?: { identity: string };
  nativeArchs: ('arm64' | 'x64')[];
  builderArgs: string[];
}
export declare function distPlan(o: { target: string; env: Env; platform: string }): DistPlan;
