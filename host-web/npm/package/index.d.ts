// baton-core for Node. The ABI's request and answer types are in ./types (generated from
// the core); the wasm-bindgen exports (Analyzer, renderMarkdown, …) in ./node/baton_web.
import type { Request, Answers, AbiError, ErrorCode } from "./types";
export * from "./types";
export {
  handleJson, call, version, Analyzer, renderMarkdown, foldLedger, analyze, humanDuration,
} from "./node/baton_web";

/** A refusal from the core: `code` is stable (docs/errors.md), `details` structured. */
export declare class BatonError extends Error {
  constructor(error: AbiError);
  readonly code: ErrorCode;
  readonly details: { [key: string]: unknown };
}

/** Sends one ABI request; returns what its op answers, or throws a BatonError. */
export declare function request<R extends Request>(request: R): Answers[R["op"]];
