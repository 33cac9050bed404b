// Types of scripts/makeAppIcon.mjs, for its tests.
export declare function icns(entries: [string, Buffer][]): Buffer;
export declare const ICNS_TYPES: [string, number][];
export declare const LINUX_SIZES: number[];
