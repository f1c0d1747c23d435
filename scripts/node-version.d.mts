export declare const MINIMUM_NODE: { major: number; minor: number };
export declare const LTS_LINES: number[];
export declare function nodeVersionProblem(version?: string): string | null;
export declare function requireSupportedNode(): void;
