/** The embedded components' build (scripts/build-embed.mjs): dist/embed/components.js, within its gzip budget. */
export declare const embedDist: string;
export declare const EMBED_BUDGET_GZIP_BYTES: number;
export declare function gzipSize(bytes: Uint8Array): number;
export declare function buildEmbed(options?: { force?: boolean; budget?: number }): Promise<boolean>;
