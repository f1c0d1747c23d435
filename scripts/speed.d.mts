export declare const REFERENCE_MS: number;
export declare function measureSpeedFactor(): Promise<{ factor: number; ms: number }>;
export declare function speedFactor(): number;
export declare function budget(ms: number): number;
export declare function ensureSpeedFactor(): number;
export declare function describeSpeed(measured: { factor: number; ms: number }): string;
