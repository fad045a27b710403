// baton-core for browsers and workers: `await init()` once (it fetches baton_web_bg.wasm
// beside this file, or takes the module or bytes you pass), then `request()`.
import init, { handleJson } from "./baton_web.js";

export * from "./baton_web.js";
export default init;

export class BatonError extends Error {
  constructor(error) {
    super(error.message);
    this.name = "BatonError";
    this.code = error.code;
    this.details = error.details;
  }
}

export function request(body) {
  const answer = JSON.parse(handleJson(JSON.stringify(body)));
  if (answer.error) throw new BatonError(answer.error);
  return answer.ok;
}
