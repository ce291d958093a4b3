/** dist/ops, where the ops screen's page is built. */
export declare const opsDist: string;
/** Build the ops screen's page unless dist/ops is current; resolves with whether it built. */
export declare function buildOps(options?: { force?: boolean }): Promise<boolean>;
