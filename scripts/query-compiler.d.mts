export declare const QUERY_COMPILER_WASM: string;
export declare function loadQueryCompilerFromFile(): Promise<void>;
