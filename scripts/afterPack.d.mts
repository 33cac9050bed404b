// Types of scripts/afterPack.mjs (electron-builder's afterPack hook), for its tests.
export interface AfterPackContext {
  appOutDir: string;
  electronPlatformName: string;
  arch: number;
  packager: { appInfo: { productFilename: string }; platformSpecificBuildOptions?: { identity?: string | null } };
}
type Env = Record<string, string | undefined>;
export declare function resourcesDir(context: AfterPackContext): string;
export declare function identityOf(context: Pick<AfterPackContext, 'packager'>, env?: Env): string | undefined;
export declare function buildInfo(
  context: { electronPlatformName: string; packager: { platformSpecificBuildOptions?: { identity?: string | null } } },
  env?: Env,
): { release: boolean; signing: 'developer-id' | 'adhoc' | 'none' };
export declare function nodeModuleAbi(file: string): number | undefined;
export declare function electronAbi(): { version: string; abi: number | undefined };
export declare function checkSqlite(resources: string): void;
export default function afterPack(context: AfterPackContext): Promise<void>;
