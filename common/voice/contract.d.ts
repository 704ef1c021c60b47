/**
 * The Supertonic model's contract: the four graphs, the names, element types and dimensions of
 * their inputs and outputs. Symbolic dimensions are named (`B` batch, `T` text length in characters
 * including the language tags, `L` latent length); fixed ones are numbers. A downloaded model is
 * checked against this before its first use, and a mismatch is refused with the file and the
 * difference named.
 */
export declare const GRAPHS: readonly ["duration_predictor", "text_encoder", "vector_estimator", "vocoder"];
export type GraphName = (typeof GRAPHS)[number];
export type TensorType = 'float32' | 'int64';
/** A dimension: a number when fixed, a letter when symbolic. */
export type Dim = number | 'B' | 'T' | 'L' | 'W';
export interface TensorSpec {
    name: string;
    type: TensorType;
    dims: readonly Dim[];
}
export interface GraphSpec {
    inputs: readonly TensorSpec[];
    outputs: readonly TensorSpec[];
}
/** Channels of a latent frame: `ttl.latent_dim` (24) × `ttl.chunk_compress_factor` (6). */
export declare const LATENT_CHANNELS = 144;
/** Text embedding width. */
export declare const TEXT_EMBEDDING = 256;
export declare const CONTRACT: Readonly<Record<GraphName, GraphSpec>>;
/** What a runtime reports of one input or output (onnxruntime-web's `inputMetadata` entries). */
export interface ReportedTensor {
    name: string;
    type?: string;
    /** Numbers for fixed dimensions; strings (or negative numbers) for symbolic ones. */
    shape?: readonly (number | string)[];
}
/** A model file that does not match the contract; names the file and the difference. */
export declare class ModelContractError extends Error {
    readonly name = "ModelContractError";
}
/**
 * Refuses a graph whose inputs or outputs differ from the contract in name, element type, rank or
 * a fixed dimension (symbolic dimensions may carry any name). `file` is named in the error.
 */
export declare function checkGraph(graph: GraphName, file: string, reported: {
    inputs: readonly ReportedTensor[];
    outputs: readonly ReportedTensor[];
}): void;
