// baton-core for browsers and workers: `await init()`, then `request()`.
import type { Request, Answers, AbiError, ErrorCode } from "../types.js";
export * from "../types.js";
export * from "./baton_web.js";
export { default } from "./baton_web.js";

/** A refusal from the core: `code` is stable (docs/errors.md), `details` structured. */
export declare class BatonError extends Error {
  constructor(error: AbiError);
  readonly code: ErrorCode;
  readonly details: { [key: string]: unknown };
}

/** Sends one ABI request; returns what its op answers, or throws a BatonError. */
export declare function request<R extends Request>(request: R): Answers[R["op"]];
